"""Tracing cost per node tick, including what the bench leaves out (not a test; run it).

``python tests/trace/perf_tracing.py`` prints, for a sequence of 1,000 no-op actions, the median
cost per node tick of a run untraced, traced to a ListTraceSink (as bench/run.py measures it),
the same plus reading ``.events`` (building and hashing the events) and verifying the chain,
and traced to a JsonlTraceSink (default redaction and blobs).
"""

from __future__ import annotations

import gc
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jdsl import act, root, seq
from jdsl.trace import JsonlTraceSink, ListTraceSink, Trace

TICKS = 1001


def noop() -> None:
    """A no-op tool."""


def per_tick(fn: Callable[[], Any], samples: int = 9) -> float:
    """Median seconds per node tick of ``fn`` (the collector paused, as timeit does)."""
    times = []
    for _ in range(samples):
        gc.disable()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        gc.enable()
    return statistics.median(times) / TICKS


def main() -> None:
    tree = root("seq").do(seq(*(act(noop) for _ in range(TICKS - 1))))
    tree.run()
    folder = Path(tempfile.mkdtemp(prefix="jdsl-perf-"))
    files = iter(range(10**9))

    def read() -> None:
        sink = ListTraceSink()
        tree.run(trace_sink=sink)
        assert len(sink.events) == 4 * TICKS + 2

    def verify() -> None:
        sink = ListTraceSink()
        tree.run(trace_sink=sink)
        assert Trace(sink.events).verify() == []

    rows: dict[str, Callable[[], Any]] = {
        "untraced": tree.run,
        "ListTraceSink": lambda: tree.run(trace_sink=ListTraceSink()),
        "ListTraceSink + .events": read,
        "ListTraceSink + .events + verify": verify,
        "JsonlTraceSink": lambda: tree.run(
            trace_sink=JsonlTraceSink(folder / f"run{next(files)}.jsonl")
        ),
    }
    base = None
    for name, fn in rows.items():
        cost = per_tick(fn)
        base = base or cost
        print(f"{name:34s} {cost * 1e6:8.2f} µs per node tick  {cost / base:6.1f}x untraced")


if __name__ == "__main__":
    main()
