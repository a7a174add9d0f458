"""The step diff calls a run matched only when the package made the same writes AND ended the
same way (README: matched "ends the same way"): a run the compiled program handed to its
fallback, or one it ended with another outcome, is not matched."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior
from jdsl.compiler.normalize import normalize_all
from jdsl.compiler.stepdiff import diff_text, step_diff

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _cancel(i: int, *, reservation: bool = True) -> dict[str, Any]:
    user: dict[str, Any] = {"name": f"user {i}"}
    if reservation:
        user["reservation"] = f"R{i}X{i}Z"
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}"}, task_id=f"t{i}")
    b.call("get_user", user, store="user", node_id="agent", node_type="react", user_id=f"u{i}")
    if reservation:
        b.call("cancel_reservation", {"ok": True}, node_id="agent", node_type="react",
               reservation_id=user["reservation"])  # fmt: skip
    return b.done(True)


def test_a_run_handed_to_the_fallback_is_not_matched() -> None:
    result = compile_behavior([_cancel(i) for i in range(3)], name="cancel")
    assert result.ok
    (episode,) = normalize_all([_cancel(7, reservation=False)])
    diff = step_diff(result.package.ir, episode)
    assert diff.divergence is None and diff.handed_over is not None
    assert not diff.matched and diff.verdict.startswith("handed to the fallback")
    text = diff_text(diff)
    assert "matched" not in text.splitlines()[0]
    assert text.splitlines()[0].startswith("episode ep7: handed to the fallback")


def test_a_run_with_the_same_calls_and_outcome_is_matched() -> None:
    result = compile_behavior([_cancel(i) for i in range(3)], name="cancel")
    (episode,) = normalize_all([_cancel(8)])
    diff = step_diff(result.package.ir, episode)
    assert diff.matched and diff.verdict == "matched"
    assert diff.package_outcome == diff.teacher_outcome == "success"


def test_the_diff_and_package_validate_give_one_verdict_per_run() -> None:
    """fresh7 finding 1: ``show --diff`` called a run ``diverged`` that ``package validate``
    called ``unreplayable`` (a read the record never made): both judge a run by one execution."""
    from jdsl.compiler import validate_package
    from jdsl.compiler.stepdiff import diff_summary

    result = compile_behavior([_cancel(i) for i in range(3)], name="cancel")
    b = EpisodeBuilder("ep9", inputs={"user_id": "u9"}, task_id="t9")
    b.call("cancel_reservation", {"ok": True}, node_id="agent", node_type="react",
           reservation_id="R9X9Z")  # fmt: skip
    (episode,) = normalize_all([b.done(True)])
    (row,) = validate_package(result.package, [episode]).rows
    assert row.outcome == "unreplayable"
    diff = step_diff(result.package.ir, episode)
    assert diff.kind == row.outcome and not diff.matched
    assert diff.verdict.startswith("unreplayable at step")
    assert "0 diverged, 1 unreplayable" in diff_summary([diff])


def test_a_run_handed_to_the_fallback_says_fallback_as_validate_does() -> None:
    """fresh8: the diff said `outcome: teacher success, package failure` where validate says
    `fallback`: the outcome line names the hand-over, one word for both commands."""
    result = compile_behavior([_cancel(i) for i in range(3)], name="cancel")
    (episode,) = normalize_all([_cancel(7, reservation=False)])
    diff = step_diff(result.package.ir, episode)
    assert "   outcome: teacher success, package fallback" in diff_text(diff).splitlines()
