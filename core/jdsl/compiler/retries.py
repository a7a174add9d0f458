"""Which program a compile keeps, and the support bars it retries at
(:func:`jdsl.compiler.pipeline.compile_normalized`, issue 24).

A family's program is compiled from its supported paths; when it leaves runs unaccounted or
to the fallback, the compile retries (routed paths, hand-overs where thin paths part, higher
support bars: :func:`more_support`) and keeps the better program (:func:`improves`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

from jdsl.compiler.branches import successful_pool
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.verify import VerificationReport

__all__ = ["MAX_SUPPORT_RETRIES", "improves", "more_support", "standing"]

MAX_SUPPORT_RETRIES: Final = 3
"""How many higher support bars a program that leaves runs unaccounted is retried at."""


def improves(new: VerificationReport, old: VerificationReport) -> bool:
    """``new`` is the better program (:func:`standing`)."""
    return standing(new) > standing(old)


def standing(report: VerificationReport) -> tuple[bool, int, bool]:
    """How good a verified program is, to compare: it passes; else the runs it serves end to end
    with the same writes, counted only when they outnumber the runs it leaves unaccounted (a
    program as likely to do the unknown as the known is no better than handing over); then it
    accounts for every run. So a failing program serving 70 of 74 runs is kept over a bare
    hand-over (every run to the fallback, serving none: the last resort, when nothing serves
    anything), and a hand-over over a program serving one run of two and leaving the other
    unaccounted."""
    matched = report.matched
    counted = matched if report.ok or matched > len(report.unaccounted) else 0
    return report.ok, counted, report.accounted


def more_support(normalized: Sequence[NormEpisode], min_support: int) -> list[int]:
    """The support bars above ``min_support`` at which fewer successful paths are branched:
    each path's count of successful episodes plus one, at most :data:`MAX_SUPPORT_RETRIES`."""
    counts = Counter(e.tool_sequence() for e in successful_pool(normalized))
    return sorted({n + 1 for n in counts.values() if n >= min_support})[:MAX_SUPPORT_RETRIES]
