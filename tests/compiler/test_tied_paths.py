"""Among equally supported paths too thin to branch, the one with more writes is planned first:
the shorter path would end the longer run with its writes unmade. When the path planned first
still leaves a run unaccounted (an extra write it never made, a decision its record does not
hold), the program compiles the part the paths share and hands over to the fallback where they
part (``tests/compiler/test_hand_over.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

from jdsl.compiler import compile_normalized, normalize_all
from jdsl.compiler.branches import plan_branches, read_only_of

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _episodes(then: str = "cancel_booking") -> list:
    """One run cancels the user's first booking; the other cancels it and then calls ``then``
    on the second booking (another cancel: a loop over some bookings; a refund: another write)."""
    one = EpisodeBuilder("one", inputs={"user_id": "u1"})
    one.call("get_user", {"bookings": ["B1", "B2"]}, store="user", user_id="u1")
    one.call("cancel_booking", "ok", store="c1", booking_id="B1")
    two = EpisodeBuilder("two", inputs={"user_id": "u2"})
    two.call("get_user", {"bookings": ["B3", "B4"]}, store="user", user_id="u2")
    two.call("cancel_booking", "ok", store="c1", booking_id="B3")
    two.call(then, "ok", store="c2", booking_id="B4")
    return normalize_all([one.done(True), two.done(True)])


def test_the_tied_path_with_more_writes_is_the_main_one() -> None:
    plan = plan_branches(_episodes(), read_only=read_only_of(None), min_support=2)
    assert plan.lanes[0].skeleton == ("get_user", "cancel_booking", "cancel_booking")


def test_a_loop_over_some_elements_serves_both_runs() -> None:
    result = compile_normalized(_episodes(), name="cancel")
    outcomes = {e.episode_id: e.outcome for e in result.verification.executions}
    assert outcomes == {"one": "matched", "two": "matched"} and result.ok


def test_a_write_the_shorter_run_never_made_hands_over_after_the_shared_write() -> None:
    result = compile_normalized(_episodes("refund_booking"), name="cancel")
    v = result.verification
    assert result.ok, result.report().text
    # following the longer path, the shorter run would make a refund it never made (diverged):
    # both runs make the shared calls (the cancel included) and are handed to the fallback
    assert {e.episode_id: (e.outcome, e.fallback and e.fallback.writes_done)
            for e in v.executions} == {"one": ("fallback", 1), "two": ("fallback", 1)}  # fmt: skip
