"""Timers: medians of several runs, in seconds (``time.perf_counter``)."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

__all__ = ["median_seconds", "timed_once"]


def timed_once(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Run ``fn`` once; return ``(seconds, result)``."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def median_seconds(
    fn: Callable[[], Any],
    *,
    repeats: int = 5,
    number: int = 1,
    warmup: int = 1,
    setup: Callable[[], Any] | None = None,
) -> float:
    """The median over ``repeats`` of the mean time of ``number`` calls of ``fn``, in seconds.

    Args:
        fn: the work to time (its result is discarded).
        repeats: how many samples the median is taken over (at least 1).
        number: calls per sample, for work too short to time one call at a time.
        warmup: untimed calls before the first sample (caches, lazy imports).
        setup: called untimed before every sample (e.g. a fresh sink).

    The garbage collector runs before each sample and is paused during it, as ``timeit`` does.
    """
    for _ in range(warmup):
        if setup is not None:
            setup()
        fn()
    samples = []
    for _ in range(max(repeats, 1)):
        if setup is not None:
            setup()
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            for _ in range(number):
                fn()
            samples.append((time.perf_counter() - start) / number)
        finally:
            gc.enable()
    return statistics.median(samples)
