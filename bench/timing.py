"""Timers: medians of several runs, in seconds (``time.perf_counter`` unless a caller picks
another clock, e.g. ``time.process_time`` for CPU time, and another summary, e.g. ``min``)."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Timed",
    "interleaved_medians",
    "interleaved_samples",
    "median_seconds",
    "paired_ratio",
    "timed_once",
]


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
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """The median over ``repeats`` of the mean time of ``number`` calls of ``fn``, in seconds.

    Args:
        fn: the work to time (its result is discarded).
        repeats: how many samples the median is taken over (at least 1).
        number: calls per sample, for work too short to time one call at a time.
        warmup: untimed calls before the first sample (caches, lazy imports).
        setup: called untimed before every sample (e.g. a fresh sink).
        clock: what a sample is measured with (seconds; wall-clock time by default).

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
            start = clock()
            for _ in range(number):
                fn()
            samples.append((clock() - start) / number)
        finally:
            gc.enable()
    return statistics.median(samples)


@dataclass(frozen=True)
class Timed:
    """One contender of :func:`interleaved_medians`: the work and its untimed per-sample setup."""

    fn: Callable[[], Any]
    setup: Callable[[], Any] | None = None


def interleaved_medians(
    contenders: Mapping[str, Timed],
    *,
    repeats: int = 5,
    number: int = 1,
    clock: Callable[[], float] = time.perf_counter,
    pick: Callable[[list[float]], float] = statistics.median,
) -> dict[str, float]:
    """Median seconds per call of each contender, sampling them in turn (a, b, c, a, b, c, ...).

    Alternating the samples makes their ratios fair on a busy machine: a burst of load hits all
    contenders rather than whichever happened to run then. Each contender is warmed up once.

    Args:
        contenders: ``{name: Timed}``.
        repeats: samples per contender.
        number: calls per sample.
        clock: what a sample is measured with (see :func:`median_seconds`).
        pick: what summarises a contender's samples (the median by default; ``min`` for the
            best of them).
    """
    samples = interleaved_samples(contenders, repeats=repeats, number=number, clock=clock)
    return {name: pick(values) for name, values in samples.items()}


def interleaved_samples(
    contenders: Mapping[str, Timed],
    *,
    repeats: int = 5,
    number: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, list[float]]:
    """Every sample of :func:`interleaved_medians`, in the order taken: ``{name: [seconds per
    call, one per round]}``; the i-th samples of two contenders were taken one round apart at
    most (see :func:`paired_ratio`)."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(max(repeats, 1)):
        for name, timed in contenders.items():
            warm = not samples[name]
            samples[name].append(
                median_seconds(
                    timed.fn,
                    repeats=1,
                    number=number,
                    warmup=int(warm),
                    setup=timed.setup,
                    clock=clock,
                )
            )
    return samples


def paired_ratio(samples: Sequence[float], baseline: Sequence[float]) -> float:
    """The median over rounds of ``samples[i] / baseline[i]`` (samples of the same round of
    :func:`interleaved_samples`): a burst of load that slows one round slows both of its
    samples, so it moves their ratio less than it moves either figure."""
    return statistics.median(a / b for a, b in zip(samples, baseline, strict=True) if b > 0)
