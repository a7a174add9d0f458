"""The jdsl benchmark table: ``python bench/run.py [--quick]``.

Measures the interpreter (against py_trees), the trace compiler, the notebook views, import
times, retrieval (SQLite FTS5) and the cost of hostile inputs (issue #17); prints one table and
writes ``bench/out/RESULTS.md`` (the figures, the machine, the command; ``bench/out/`` is ignored
by git, so ``make bench`` leaves the tree clean). The committed ``bench/RESULTS.md`` and
``bench/RESULTS-full.md`` are refreshed on purpose: ``--output bench/RESULTS.md``.
Every figure is a median of several runs (the interpreter's: of CPU time, sampled in turn with
its peers, see ``bench/interpreter.py``); a peer's figure and the ratio come from the same run.
Each target is reported as met or MISSED; a section that fails is reported as such.

``--quick`` (under two minutes) takes fewer samples and compiles the 100- and 1,000-episode
retail corpora only; the full run (under twenty minutes) adds the 10,000-episode corpus.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script from a fresh clone: make `bench` importable
    sys.path.insert(0, str(HERE.parent))

from bench import (  # noqa: E402
    compiler,
    hardening,
    imports,
    interpreter,
    machine,
    notebook,
    retrieval,
    scale,
)
from bench.table import Row, markdown, text_table  # noqa: E402

Measure = Callable[..., list[Row]]


def _otel(*, quick: bool) -> list[Row]:
    """OpenTelemetry export (bench/otel.py), imported when its section runs."""
    from bench import otel

    return otel.measure(quick=quick)


SECTIONS: dict[str, Measure] = {
    "interpreter": interpreter.measure,
    "otel": _otel,
    "compiler": compiler.measure,
    "scale": scale.measure,
    "notebook": notebook.measure,
    "imports": imports.measure,
    "retrieval": retrieval.measure,
    "hardening": hardening.measure,
}
NOTES = (
    "Each figure is the median of several samples (the note says how many where it varies); "
    "the garbage collector is paused while a sample runs, as timeit does.",
    "Peers run in the same process run as jdsl, so ratios are comparable even when the machine "
    "is busy; absolute figures are not (other jobs shared the cores during this run).",
    "Interpreter: jdsl is timed through Root.run (a whole run per sample: fresh context, binding "
    "checks, the ticks); py_trees through tick_once on a tree set up once. Its figures are "
    "medians of process CPU time over samples taken in turn with the peers, not of wall-clock "
    "time (the machine is shared: see bench/interpreter.py).",
    "Compiler: each corpus is measured in a fresh worker process, so peak memory is its own; "
    "'json.loads' is reading the same JSONL file and parsing every line.",
)


def _revision() -> str:
    """The checkout's commit (``git describe --always --dirty``), or ``unknown`` outside git."""
    try:
        done = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=HERE.parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except OSError:
        return "unknown"
    return done.stdout.strip() or "unknown"


def run_sections(names: list[str], *, quick: bool) -> list[Row]:
    """Every named section's rows; a section that raises becomes one row saying so."""
    rows: list[Row] = []
    for name in names:
        start = time.perf_counter()
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        try:
            rows += SECTIONS[name](quick=quick)
        except Exception as exc:  # noqa: BLE001 - a failed section is reported, never hidden
            traceback.print_exc()
            rows.append(Row(name, "section failed", None, note=f"{type(exc).__name__}: {exc}"))
        print(f"[bench] {name} done in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks, print the table, write the results file; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description="jdsl benchmarks (see bench/run.py)")
    parser.add_argument("--quick", action="store_true", help="fewer samples and corpora (< 2 min)")
    parser.add_argument(
        "--only",
        action="append",
        choices=sorted(SECTIONS),
        help="run only this section (repeatable)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=HERE / "out" / "RESULTS.md",
        help="where to write the results (default bench/out/RESULTS.md, not tracked; pass "
        "bench/RESULTS.md to refresh the committed figures on purpose)",
    )
    args = parser.parse_args(argv)
    start, load_before = time.perf_counter(), machine.load_text()
    rows = run_sections(args.only or list(SECTIONS), quick=args.quick)
    elapsed = time.perf_counter() - start
    print(text_table(rows))
    command = " ".join(["python bench/run.py", *argv])
    described = {
        **machine.describe_machine(),
        "load (1, 5, 15 min)": f"{load_before} at the start, {machine.load_text()} at the end",
        "jdsl commit": _revision(),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(
        markdown(
            rows,
            machine=described,
            command=command,
            elapsed_s=elapsed,
            notes=NOTES,
        ),
        encoding="utf-8",
    )
    print(f"wrote {args.output} ({elapsed:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
