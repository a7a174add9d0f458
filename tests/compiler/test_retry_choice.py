"""Which of two compiled programs a retry keeps (:func:`jdsl.compiler.retries.improves`, issue
24): a program that passes verification, else the one that serves more runs end to end with the
same writes, when it serves more than it leaves unaccounted. A bare hand-over (every run to the
fallback: accounted, serving none) is the last resort: it never replaces a program that serves
most runs, though one run it leaves unreplayable fails that program too (the terse retail
corpus at scale: exchange and return, 70 of 74 runs served, were reported as a hand-over
serving none); it does replace one serving one run of two (``test_hand_over.py``)."""

from __future__ import annotations

from jdsl.compiler.executions import Divergence, Execution
from jdsl.compiler.fallback import Fallback
from jdsl.compiler.retries import improves
from jdsl.compiler.verify import VerificationReport


def _report(matched: int, fallback: int = 0, unreplayable: int = 0) -> VerificationReport:
    runs = [Execution(f"m{i}", (), 1, "success", None) for i in range(matched)]
    runs += [Execution(f"f{i}", (), 1, "failure", None, Fallback("hand_over_0", "guard false", 0, 0))
             for i in range(fallback)]  # fmt: skip
    runs += [Execution(f"u{i}", (), 1, "error", Divergence(f"u{i}", "p", 0, None, None, "no decision",
                                                           "model")) for i in range(unreplayable)]  # fmt: skip
    return VerificationReport((), executions=tuple(runs))


def test_a_bare_hand_over_never_replaces_a_program_that_serves_runs() -> None:
    serving, bare = _report(70, fallback=3, unreplayable=1), _report(0, fallback=74)
    assert not serving.ok and not serving.accounted
    assert bare.accounted and not bare.ok and bare.serves_none
    assert not improves(bare, serving)
    assert improves(serving, bare)


def test_a_passing_program_wins_then_the_one_serving_more() -> None:
    assert improves(_report(40, fallback=34), _report(70, unreplayable=4))
    assert not improves(_report(70, unreplayable=4), _report(40, fallback=34))
    assert improves(_report(60, fallback=14), _report(40, fallback=34))
    assert improves(_report(50, unreplayable=24), _report(40, unreplayable=34))
    assert improves(
        _report(0, fallback=2), _report(0, unreplayable=2)
    )  # nothing serves: the hand-over
