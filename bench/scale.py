"""Scale: streaming compile up to 10^5 episodes, the Dask engine, and the 10^6 simulation.

- streaming compile: ``compile_behavior(shards)`` over retail teacher corpora written as 8
  JSONL shards, in a fresh worker process (``python -m bench.scale --worker ...``), so the peak
  RSS (``VmHWM``) is its own; the scaling exponent is the log-log slope of compile time from
  the smallest to the largest corpus;
- Dask: the largest corpus compiled with ``compile_on_dask`` on a 2-worker ``LocalCluster``
  (processes, 127.0.0.1) against the one-process streaming compile of the same shards (package
  bytes compared), the scheduler's overhead per task, and each worker's peak RSS;
- simulation: 10^6 episodes generated inside the workers (no corpus on disk): each worker
  makes its episodes from recorded templates (episode ids and world data renumbered), runs the
  per-episode passes and maps them into a fact table; the tables are tree-reduced.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import sys
import tempfile
import time
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from bench.compiler import peak_rss_bytes, run_json_worker
from bench.corpora import retail_corpus
from bench.table import Row

__all__ = ["measure", "simulate_range"]

SECTION = "scale"
REPO = Path(__file__).resolve().parent.parent
SHARDS = 8
MEMORY_TARGET = 500_000_000
_MARK = "987654321"  # the template worlds' number, replaced by each simulated episode's


def write_shards(
    folder: Path, episodes: int, shards: int = SHARDS, *, processes: int = 2
) -> list[Path]:
    """The retail corpus of ``episodes`` as ``shards`` JSONL files, written by ``processes``
    processes (1: in this one)."""
    folder.mkdir(parents=True, exist_ok=True)
    bounds = [episodes * i // shards for i in range(shards + 1)]
    jobs = [(folder / f"shard{i:02d}.jsonl", bounds[i], bounds[i + 1]) for i in range(shards)]
    if processes <= 1:
        return [_write_shard(*job) for job in jobs]
    with get_context("spawn").Pool(processes) as pool:
        return pool.starmap(_write_shard, jobs)


def _write_shard(path: Path, first: int, end: int) -> Path:
    return retail_corpus(path, end - first, start=first)


def compile_worker(paths: list[Path]) -> dict[str, Any]:
    """Streaming compile of ``paths`` in this process: time, peak RSS, package digest."""
    import jdsl.compiler  # noqa: F401 - imported before timing
    from jdsl.compiler import compile_behavior

    baseline = peak_rss_bytes()
    start, cpu = time.perf_counter(), time.process_time()
    result = compile_behavior(paths, name="retail_lookup")
    return {
        "compile_s": time.perf_counter() - start,
        "cpu_s": time.process_time() - cpu,
        "peak_rss": peak_rss_bytes(),
        "baseline_rss": baseline,
        "episodes": len(result.normalized),
        "ok": result.ok,
        "digest": _digest(result.package),
    }


def dask_worker(paths: list[Path], simulate: int) -> dict[str, Any]:
    """The Dask figures (see the module doc), on a 2-worker LocalCluster started here."""
    from jdsl.compiler.dask_engine import compile_on_dask, dask_client, tree_reduce

    out: dict[str, Any] = {}
    with dask_client(workers=2) as client:
        client.gather(client.map(_noop, range(4), pure=False))  # workers warm
        client.run(_import_compiler)  # as the one-process compile, imported before timing
        start = time.perf_counter()
        client.gather(client.map(_noop, range(200), pure=False))
        out["task_overhead_s"] = (time.perf_counter() - start) / 200
        start = time.perf_counter()
        result = compile_on_dask(paths, name="retail_lookup", client=client)
        out["compile_s"] = time.perf_counter() - start
        out["digest"] = _digest(result.package)
        out["worker_rss"] = sorted(client.run(peak_rss_bytes).values())
        del result
        client.restart()  # fresh workers: the simulation's memory is its own
        ranges = [(i * simulate // 16, (i + 1) * simulate // 16) for i in range(16)]
        start = time.perf_counter()
        tables = client.map(simulate_range, ranges, pure=False)
        merged = tree_reduce(client, tables).result()
        out["simulate_s"] = time.perf_counter() - start
        out["simulate_episodes"] = merged.episodes
        out["simulate_candidates"] = len(merged.candidates())
        out["simulate_rss"] = sorted(client.run(peak_rss_bytes).values())
    return out


def _noop(_: int) -> None:
    return None


def _import_compiler() -> None:
    import jdsl.compiler.dask_engine  # noqa: F401


def simulate_range(bounds: tuple[int, int]) -> Any:
    """Episodes ``first..end`` made on the fly from templates, mapped into a FactTable."""
    import orjson
    from jdsl.compiler.reduce import FactTable
    from jdsl.compiler.stream import map_episode

    templates = _templates()
    table = FactTable()
    for i in range(*bounds):
        number, eid = str(i), f"sim_{i}"
        events = [
            {**envelope, "episode_id": eid, "payload": orjson.loads(number.join(parts))}
            for envelope, parts in templates[i % 2]
        ]
        normalized = map_episode({"episode_id": eid, "events": events}, check_chain=False)
        if normalized is not None:
            table.add(dataclasses.replace(normalized, teacher_ir=None))
    return table


def _templates() -> list[list[tuple[dict[str, Any], list[str]]]]:
    """Two recorded teacher episodes (pending order first / second): per event, its envelope
    and its payload's JSON split at the world number (joined with each episode's number)."""
    from jdsl.envs.fixtures import RetailWorld
    from jdsl.testing import ScriptedModel
    from jdsl.trace import ListTraceSink

    from bench.corpora import retail_teacher

    tree, out = retail_teacher(), []
    for i in range(2):
        statuses = ("pending", "shipped") if i % 2 else ("shipped", "pending")
        world = RetailWorld.numbered(_MARK, statuses=statuses)
        sink = ListTraceSink()
        tree.run(model=ScriptedModel("0" if i % 2 else "1"), trace_sink=sink, tools=world.tools(),
                 email=world.email, request="cancel my pending order")  # fmt: skip
        out.append([
            ({k: v for k, v in e.to_dict().items() if k != "payload"},
             json.dumps(e.payload).split(_MARK))
            for e in sink.events
        ])  # fmt: skip
    return out


def _digest(package: Any) -> str:
    from jdsl.package import export_jdsl

    with tempfile.TemporaryDirectory() as tmp:
        written = export_jdsl(package, Path(tmp) / "p.jdsl")
        return hashlib.sha256(Path(written).read_bytes()).hexdigest()


def _run(mode: str, paths: list[Path], *extra: str, timeout_s: float) -> dict[str, Any]:
    command = [sys.executable, "-m", "bench.scale", mode, *extra, *map(str, paths)]
    return run_json_worker(command, timeout_s)


def measure(*, quick: bool) -> list[Row]:
    """The scale rows; ``quick`` uses 300 and 3,000 episodes and a 20,000-episode simulation."""
    sizes = [300, 3_000] if quick else [1_000, 100_000]
    simulate = 20_000 if quick else 1_000_000
    rows: list[Row] = []
    local: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="jdsl-scale-") as tmp:
        for n in sizes:
            paths = write_shards(Path(tmp) / f"r{n}", n)
            local[n] = _run("--compile", paths, timeout_s=3600)
            rows += _local_rows(n, local[n], target=n == sizes[-1])
        figures = _run("--dask", paths, "--simulate", str(simulate), timeout_s=3600)
    rows.append(_exponent_row(sizes, local))
    rows += _dask_rows(sizes[-1], local[sizes[-1]], figures)
    rows += _simulation_rows(simulate, figures)
    return rows


def _local_rows(n: int, f: dict[str, Any], *, target: bool) -> list[Row]:
    error, peak = f.get("error"), f.get("peak_rss")
    per = f["compile_s"] / n if f.get("compile_s") else None
    return [
        Row(SECTION, f"retail x {n:,} ({SHARDS} shards): streaming compile, per episode", per,
            "s", note=error or f"{f.get('episodes')} episodes, verified {f.get('ok')}; CPU "
            f"{(f.get('cpu_s') or 0) / n * 1e3:.2f} ms per episode"),
        Row(SECTION, f"retail x {n:,}: streaming compile peak memory (worker RSS)",
            None if peak is None else float(peak), "B",
            target="<= 500 MB" if target else None,
            met=None if not target or peak is None else peak <= MEMORY_TARGET,
            note=f"{(f.get('baseline_rss') or 0) / 1e6:.0f} MB with jdsl imported"),
    ]  # fmt: skip


def _exponent_row(sizes: list[int], local: dict[int, dict[str, Any]]) -> Row:
    small, big = sizes[0], sizes[-1]
    a, b = local[small].get("cpu_s"), local[big].get("cpu_s")
    value = math.log(b / a) / math.log(big / small) if a and b else None
    return Row(SECTION, f"scaling exponent, streaming compile {small:,} -> {big:,} episodes",
               value, "", target="<= 1.1", met=None if value is None else value <= 1.1,
               note="log-log slope of the compile's CPU time (wall time on a shared machine "
               "also measures the other jobs)")  # fmt: skip


def _dask_rows(n: int, local: dict[str, Any], f: dict[str, Any]) -> list[Row]:
    error = f.get("error")
    same = None if error else f.get("digest") == local.get("digest")
    rss = f.get("worker_rss") or []
    return [
        Row(SECTION, f"retail x {n:,}: Dask engine, 2-worker LocalCluster, compile",
            f.get("compile_s"), "s", local.get("compile_s"), "one process", "faster",
            None if error or not local.get("compile_s") else f["compile_s"] < local["compile_s"],
            error or f"{SHARDS} shards; map + replay on the workers, tree reduction, staticize "
            "and package on the client"),
        Row(SECTION, f"retail x {n:,}: Dask package bytes == local package bytes",
            None if same is None else float(same), "", target="identical",
            met=same, note="sha256 of the exported .jdsl files"),
        Row(SECTION, "Dask scheduler overhead, per task", f.get("task_overhead_s"), "s",
            note="200 no-op tasks on the warm cluster"),
        Row(SECTION, f"retail x {n:,}: Dask peak memory per worker", max(rss) if rss else None,
            "B", note="workers' VmHWM: " + ", ".join(f"{r / 1e6:.0f} MB" for r in rss)),
    ]  # fmt: skip


def _simulation_rows(n: int, f: dict[str, Any]) -> list[Row]:
    rss = f.get("simulate_rss") or []
    done = f.get("simulate_episodes")
    return [
        Row(SECTION, f"simulation: {n:,} episodes made inside 2 workers, map + tree reduce",
            f.get("simulate_s"), "s", target="completes", met=None if done is None else done == n,
            note=f.get("error") or f"{done} episodes, {f.get('simulate_candidates')} candidates;"
            " no corpus on disk"),
        Row(SECTION, "simulation: peak memory per worker", max(rss) if rss else None, "B",
            note="workers' VmHWM: " + ", ".join(f"{r / 1e6:.0f} MB" for r in rss)),
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    """Worker entry: ``--compile PATHS`` or ``--dask PATHS --simulate N``; prints JSON.

    Shards to pass are written by :func:`write_shards`. A jdsl error (a missing or bad trace
    file, no successful episode) or an OSError prints one ``error:`` line and exits 2, as a usage error.
    """
    from jdsl.errors import JdslError

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--dask", action="store_true")
    parser.add_argument("--simulate", type=int, default=0)
    parser.add_argument("paths", type=Path, nargs="+")
    args = parser.parse_args(argv)
    try:
        if args.compile:
            print(json.dumps(compile_worker(args.paths)))
        else:
            print(json.dumps(dask_worker(args.paths, args.simulate)))
    except (JdslError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
