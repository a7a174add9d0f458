"""Among equally supported paths too thin to branch, the one with more writes is planned first:
the shorter path would end the longer run with its writes unmade. When the path planned first
still leaves a run unaccounted (an extra write it never made, a decision its record does not
hold), the program compiles the part the paths share and hands over to the fallback where they
part (``tests/compiler/test_hand_over.py``); a program serving none of its runs end to end
fails verification."""

from __future__ import annotations

import sys
from pathlib import Path

from jdsl.compiler import compile_normalized, normalize_all
from jdsl.compiler.branches import plan_branches, read_only_of

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _episodes(reasons: tuple[str, str] = ("", ""), then: str = "cancel_booking") -> list:
    """``one`` cancels one booking, ``two`` cancels it and then calls ``then`` on a second one
    (another cancel: a loop over some bookings; a refund: another write); with ``reasons`` the
    two cancels of ``two`` differ in more than the booking (then they are not one call repeated
    over some bookings)."""
    extra = [{"reason": r} if r else {} for r in reasons]
    one = EpisodeBuilder("one", inputs={"user_id": "u1"})
    one.call("get_user", {"bookings": ["B1", "B2"]}, store="user", user_id="u1")
    one.call("cancel_booking", "ok", store="c1", booking_id="B1", **extra[0])
    two = EpisodeBuilder("two", inputs={"user_id": "u2"})
    two.call("get_user", {"bookings": ["B3", "B4"]}, store="user", user_id="u2")
    two.call("cancel_booking", "ok", store="c1", booking_id="B3", **extra[0])
    two.call(then, "ok", store="c2", booking_id="B4", **extra[1])
    return normalize_all([one.done(True), two.done(True)])


def test_the_tied_path_with_more_writes_is_the_main_one() -> None:
    plan = plan_branches(_episodes(), read_only=read_only_of(None), min_support=2)
    assert plan.lanes[0].skeleton == ("get_user", "cancel_booking", "cancel_booking")


def test_the_shorter_run_unaccounted_on_the_longer_path_hands_over_after_the_shared_write() -> None:
    result = compile_normalized(_episodes(("plans changed", "duplicate")), name="cancel")
    # following the longer path, the program asks which second booking to cancel, a decision
    # the shorter run's record does not hold (unreplayable): instead both runs make the shared
    # calls, the first cancel included, and are handed to the fallback
    v = result.verification
    # every run is accounted for, but none served end to end: that fails verification
    assert not result.ok and v.accounted and v.serves_none, result.report().text
    assert {e.episode_id: (e.outcome, e.fallback and e.fallback.writes_done)
            for e in v.executions} == {"one": ("fallback", 1), "two": ("fallback", 1)}  # fmt: skip


def test_one_write_repeated_over_some_bookings_serves_both_runs() -> None:
    # the same cancel over one booking or two is one loop over a selection (staticize/loops.py)
    result = compile_normalized(_episodes(), name="cancel")
    outcomes = {e.episode_id: e.outcome for e in result.verification.executions}
    assert outcomes == {"one": "matched", "two": "matched"} and result.ok


def test_a_write_the_shorter_run_never_made_hands_over_after_the_shared_write() -> None:
    result = compile_normalized(_episodes(then="refund_booking"), name="cancel")
    v = result.verification
    # every run is accounted for, but none served end to end: that fails verification
    assert not result.ok and v.accounted and v.serves_none, result.report().text
    # following the longer path, the shorter run would make a refund it never made (diverged)
    assert {e.episode_id: (e.outcome, e.fallback and e.fallback.writes_done)
            for e in v.executions} == {"one": ("fallback", 1), "two": ("fallback", 1)}  # fmt: skip
