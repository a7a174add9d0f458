"""Compiler: ``compile_behavior`` on the airline episodes and on retail corpora of 100 to 10,000.

Each corpus is a JSONL trace file measured in a fresh worker process (``python -m
bench.compiler --worker FILE``), so its peak memory is its own. In the worker:

- parse: read the file and ``json.loads`` every line (the floor any reader pays);
- read: iterate ``jdsl.trace.iter_episodes(path)`` (every episode built, one at a time);
- compile: the file compiled as ``jdsl compile --group-by task`` does, streaming
  (``normalize_stream(iter_episodes(path))``: chain check and normalize per episode, then
  ``group_episodes(..., "task")`` and ``compile_normalized`` per family: what
  ``compile_behavior`` does for one family); the retail corpus is one family;
- peak memory: the worker's peak resident set size (``VmHWM``) after its first compile.

Each time is a median of several passes. The scaling exponent is the log-log slope of compile
time from the smallest to the largest retail corpus.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.corpora import airline_corpus, retail_corpus
from bench.table import Row
from bench.timing import Timed, interleaved_medians

__all__ = [
    "compile_families",
    "measure",
    "measure_file",
    "parse_json_lines",
    "peak_rss_bytes",
]

SECTION = "compiler"
REPO = Path(__file__).resolve().parent.parent
GIGABYTE = 1_000_000_000


def parse_json_lines(path: Path) -> int:
    """Read ``path`` and ``json.loads`` every non-blank line; returns the number of lines."""
    count = 0
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                json.loads(line)
                count += 1
    return count


def compile_families(path: Path) -> list[Any]:
    """Compile the trace file as ``jdsl compile --group-by task`` does; returns the results."""
    from jdsl.compiler import compile_normalized, group_episodes
    from jdsl.compiler.stream import normalize_stream
    from jdsl.trace import iter_episodes

    normalized = normalize_stream(iter_episodes(path))
    return [
        compile_normalized(members, name=_name(family), task_family=family)
        for family, members in group_episodes(normalized, "task")
    ]


def read_episodes(path: Path) -> int:
    """Iterate the episodes of ``path``; returns how many there are."""
    from jdsl.trace import iter_episodes

    return sum(1 for _ in iter_episodes(path))


def _name(family: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in family) or "behavior"


def peak_rss_bytes() -> int:
    """This process's peak resident set size in bytes.

    On Linux ``VmHWM`` of ``/proc/self/status``: ``ru_maxrss`` is not used there because it
    keeps the parent's peak across fork and exec, so a worker would report its parent's.
    """
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB elsewhere
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def measure_file(path: Path, *, repeats: int) -> dict[str, Any]:
    """The figures of one corpus, measured in this process (see the module doc).

    Every compile sample runs on freshly loaded episodes, so nothing cached on the episode
    objects by an earlier pass helps a later one. Passes stop after the first when it took more
    than a minute.

    Returns:
        ``{episodes, events, families, verified, parse_s, load_s, compile_s, baseline_rss,
        peak_rss, repeats, error}`` (memory in bytes); ``compile_s`` is None (and ``error`` says why) when the
        compiler is missing or fails.
    """
    import jdsl.compiler  # noqa: F401 - imported before any timing

    out: dict[str, Any] = {"error": None, "compile_s": None, "baseline_rss": peak_rss_bytes()}
    compiles: list[float] = []
    for _ in range(max(repeats, 1)):
        try:
            start = time.perf_counter()
            results = compile_families(path)
            compiles.append(time.perf_counter() - start)
        except Exception as exc:  # noqa: BLE001 - reported in the table, never hidden
            out["error"] = f"{type(exc).__name__}: {exc}"[:300]
            break
        out.update(families=len(results), verified=sum(1 for r in results if r.ok))
        out.setdefault("peak_rss", peak_rss_bytes())  # after the first compile
        del results
        if compiles[0] > 60:
            break
    out.setdefault("peak_rss", peak_rss_bytes())
    out["episodes"] = read_episodes(path)
    out["events"] = parse_json_lines(path)
    out["repeats"] = max(len(compiles), 1)
    reading = interleaved_medians(  # in turn, so a burst of load hits both
        {
            "parse": Timed(lambda: parse_json_lines(path)),
            "load": Timed(lambda: read_episodes(path)),
        },
        repeats=max(out["repeats"], 5),
    )
    out["parse_s"], out["load_s"] = reading["parse"], reading["load"]
    if compiles and out["error"] is None:
        out["compile_s"] = statistics.median(compiles)
    return out


def run_json_worker(command: list[str], timeout_s: float) -> dict[str, Any]:
    """Run a bench worker in a fresh interpreter; its last stdout line is a JSON object
    (``{"error": ...}`` when it timed out or failed)."""
    try:
        done = subprocess.run(
            command, cwd=REPO, capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired:
        return {"error": f"worker timed out after {timeout_s:.0f} s"}
    if done.returncode != 0:
        return {"error": f"worker failed: {done.stderr.strip().splitlines()[-1:]}"}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run_worker(path: Path, *, repeats: int, timeout_s: float) -> dict[str, Any]:
    """:func:`measure_file` in a fresh interpreter (``python -m bench.compiler --worker``)."""
    command = [
        sys.executable,
        "-m",
        "bench.compiler",
        "--worker",
        str(path),
        "--repeats",
        str(repeats),
    ]
    return run_json_worker(command, timeout_s)


def corpus_rows(label: str, figures: dict[str, Any], *, memory_target: bool) -> list[Row]:
    """Rows for one corpus: compile vs parse per episode, load per episode, peak memory."""
    error = figures.get("error")
    n = figures.get("episodes") or 0

    def per(key: str) -> float | None:
        return figures[key] / n if n and figures.get(key) is not None else None

    compile_s, parse_s = figures.get("compile_s"), figures.get("parse_s")
    met = None if compile_s is None or parse_s is None else compile_s <= 5 * parse_s
    load_s = figures.get("load_s")
    read_met = None if load_s is None or parse_s is None else load_s <= 3 * parse_s
    fams = figures.get("families")
    shape = f"{n:,} episodes, {figures.get('events', 0):,} events" + (
        f", {fams} families ({figures.get('verified')} verified)" if fams else ""
    )
    peak = figures.get("peak_rss")
    return [
        Row(
            SECTION,
            f"{label}: compile_behavior, per episode",
            per("compile_s"),
            "s",
            per("parse_s"),
            "json.loads",
            "<= 5x JSON parse",
            met,
            error
            or f"{shape}; read, chain-checked and compiled, streaming (before this "
            f"round the load was not counted); median of {figures.get('repeats', '?')}",
        ),
        Row(
            SECTION,
            f"{label}: iter_episodes, per episode",
            per("load_s"),
            "s",
            per("parse_s"),
            "json.loads",
            "<= 3x JSON parse",
            None if read_met is None else read_met,
            note="jdsl's streaming reader: every episode's events as TraceEvent models",
        ),
        Row(
            SECTION,
            f"{label}: peak memory (worker RSS)",
            None if peak is None else float(peak),
            "B",
            target="< 2 GB" if memory_target else None,
            met=None if not memory_target or peak is None else peak < 2 * GIGABYTE,
            note=f"streaming compile; {_mb(figures.get('baseline_rss'))} with jdsl imported",
        ),
    ]


def _mb(value: Any) -> str:
    return "?" if value is None else f"{value / 1e6:.0f} MB"


def exponent_row(sizes: list[int], compiled: dict[int, dict[str, Any]], quick: bool) -> Row:
    """The log-log slope of compile time from the smallest to the largest corpus."""
    small, big = sizes[0], sizes[-1]
    a, b = compiled[small].get("compile_s"), compiled[big].get("compile_s")
    value = math.log(b / a) / math.log(big / small) if a and b else None
    name = f"scaling exponent, retail {small:,} -> {big:,} episodes"
    return Row(
        SECTION,
        name + (" (--quick; the target is for 100 -> 10,000)" if quick else ""),
        value,
        "",
        target="<= 1.1",
        met=None if value is None else value <= 1.1,
        note="log-log slope of compile time",
    )


def measure(*, quick: bool) -> list[Row]:
    """All compiler rows; ``quick`` uses the 100 and 1,000 corpora only."""
    sizes = [100, 1_000] if quick else [100, 1_000, 10_000]
    repeats = 3 if quick else 5
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="jdsl-bench-") as tmp:
        airline = airline_corpus(Path(tmp) / "airline.jsonl")
        rows += corpus_rows(
            "tau-bench airline (real)",
            run_worker(airline, repeats=repeats, timeout_s=600),
            memory_target=False,
        )
        compiled: dict[int, dict[str, Any]] = {}
        for n in sizes:
            start = time.perf_counter()
            path = retail_corpus(Path(tmp) / f"retail{n}.jsonl", n)
            teach = time.perf_counter() - start
            compiled[n] = run_worker(path, repeats=repeats, timeout_s=900)
            rows += corpus_rows(f"retail teacher x {n:,}", compiled[n], memory_target=n == 10_000)
            rows.append(
                Row(
                    SECTION,
                    f"retail teacher x {n:,}: traced run to JSONL, per episode",
                    teach / n,
                    "s",
                    note=f"{path.stat().st_size / n / 1e3:.1f} kB "
                    "of JSONL per episode; one pass (corpus generation)",
                )
            )
            path.unlink()
    rows.append(exponent_row(sizes, compiled, quick))
    if quick:
        rows.append(
            Row(
                SECTION,
                "retail teacher x 10,000: peak memory (worker RSS)",
                None,
                "B",
                target="< 2 GB",
                note="not run in --quick; run bench/run.py",
            )
        )
    return rows


def main(argv: list[str] | None = None) -> None:
    """The worker entry point: print :func:`measure_file`'s figures as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", type=Path, required=True, help="a JSONL trace file")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(json.dumps(measure_file(args.worker, repeats=args.repeats)))


if __name__ == "__main__":
    main()
