"""Among equally supported paths, the one with more writes is compiled: the shorter path would
end the longer run with its writes unmade (a divergence), while a run whose writes are a prefix
of the longer path is matched up to its last write (then handed to the fallback, or, when the
program asks a decision that run never made, unreplayable)."""

from __future__ import annotations

import sys
from pathlib import Path

from jdsl.compiler import compile_normalized, normalize_all
from jdsl.compiler.branches import plan_branches, read_only_of

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _episodes(reasons: tuple[str, str] = ("", "")) -> list:
    """``one`` cancels one booking, ``two`` two; with ``reasons`` the two cancels of ``two``
    differ in more than the booking (then they are not one call repeated over some bookings)."""
    extra = [{"reason": r} if r else {} for r in reasons]
    one = EpisodeBuilder("one", inputs={"user_id": "u1"})
    one.call("get_user", {"bookings": ["B1", "B2"]}, store="user", user_id="u1")
    one.call("cancel_booking", "ok", store="c1", booking_id="B1", **extra[0])
    two = EpisodeBuilder("two", inputs={"user_id": "u2"})
    two.call("get_user", {"bookings": ["B3", "B4"]}, store="user", user_id="u2")
    two.call("cancel_booking", "ok", store="c1", booking_id="B3", **extra[0])
    two.call("cancel_booking", "ok", store="c2", booking_id="B4", **extra[1])
    return normalize_all([one.done(True), two.done(True)])


def test_the_tied_path_with_more_writes_is_the_main_one() -> None:
    plan = plan_branches(_episodes(), read_only=read_only_of(None), min_support=2)
    assert plan.lanes[0].skeleton == ("get_user", "cancel_booking", "cancel_booking")


def test_the_longer_run_is_served_the_shorter_one_is_not_claimed_matched() -> None:
    result = compile_normalized(_episodes(("plans changed", "duplicate")), name="cancel")
    outcomes = {e.episode_id: e.outcome for e in result.verification.executions}
    assert outcomes["two"] == "matched"  # the shorter path would leave its second write unmade
    # the program then asks which second booking to cancel; the shorter run holds no such
    # decision, so what it would do is unknown: unreplayable, and verification says so
    assert outcomes["one"] == "unreplayable" and result.verification.status == "failed"


def test_one_write_repeated_over_some_bookings_serves_both_runs() -> None:
    # the same cancel over one booking or two is one loop over a selection (staticize/loops.py)
    result = compile_normalized(_episodes(), name="cancel")
    outcomes = {e.episode_id: e.outcome for e in result.verification.executions}
    assert outcomes == {"one": "matched", "two": "matched"} and result.ok
