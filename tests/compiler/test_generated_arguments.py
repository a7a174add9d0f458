"""Generated arguments: what a model wrote that no lineage explains (docs/design.md §6).

A constant needs E2 support (the same value in 3 episodes) and is never model-written prose or
an identifier; a value the user's messages contain is a run input the user states; anything
else is a residual decision reading the conversation and the state the value mentions.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior, compile_normalized, normalize_all
from jdsl.importers import import_tau_bench

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402

SLICE = Path(__file__).parents[1] / "fixtures" / "tau_bench" / "gpt-4o-airline.slice.json"


@pytest.fixture(scope="module")
def airline() -> list[Any]:
    return normalize_all(import_tau_bench(SLICE).episodes)


def _family(episodes: list[Any], family: str) -> list[Any]:
    return [e for e in episodes if e.metadata["task_family"] == family]


def _choices(result: Any) -> dict[str, Any]:
    return {f"{a.tool}.{c.argument}": c for a in result.compiled.actions for c in a.choices}


@pytest.mark.parametrize("family", ["airline_test_38", "airline_test_42", "airline_test_48"])
def test_a_transfer_summary_is_a_residual_reading_the_conversation(
    airline: list[Any], family: str
) -> None:
    result = compile_normalized(_family(airline, family), name=family)
    summary = _choices(result)["transfer_to_human_agents.summary"]
    assert summary.how == "residual" and "const" not in summary.spec
    residual = next(r for r in result.compiled.residuals if summary.source in r.outputs)
    assert (
        residual.node["signature"]
        == f"conversation, get_reservation_details_out -> {summary.source}"
    )
    assert result.ok and "conversation" in result.compiled.required_inputs


def test_a_reservation_id_the_user_typed_is_a_stated_input(airline: list[Any]) -> None:
    result = compile_normalized(_family(airline, "airline_test_48"), name="t48")
    choice = _choices(result)["get_reservation_details.reservation_id"]
    assert len(set(choice.values)) == 1 and len(choice.values) == 3  # identical: once a constant
    assert (choice.how, choice.stated, choice.spec) == ("input", True, {"ref": "reservation_id"})
    assert "reservation_id = ref reservation_id (input, stated by the user)" in str(result.report())
    assert not result.report()["constants"]


def _agent(eid: str, said: str, user: str = "u_1", **arguments: Any) -> dict[str, Any]:
    b = EpisodeBuilder(eid, inputs={"user_id": user})
    b.emit("user.message", {"content": said})
    b.call("book", {"ok": True}, node_id="agent", node_type="react", **arguments)
    return b.done()


def test_a_constant_needs_e2_and_the_report_lists_its_support() -> None:
    episodes = [_agent(f"e{i}", "book me a seat", f"u_{i % 2}", cabin="business",
                       note="Seat booked as asked.") for i in range(3)]  # fmt: skip
    result = compile_behavior(episodes, name="book")
    how = {c.argument: c.how for c in result.compiled.actions[0].choices}
    assert how == {"cabin": "const", "note": "residual"}  # prose is never frozen, even 3 of 3
    assert result.report()["constants"] == [
        "book.cabin = 'business': 3 of 3 episodes, 2 users, 2 tasks (E2)"
    ]
    assert "constant      book.cabin = 'business': 3 of 3 episodes, 2 users, 2 tasks (E2)" in str(
        result.report()
    )
    two = compile_behavior(episodes[:2], name="book")
    assert {c.argument: c.how for c in two.compiled.actions[0].choices}["cabin"] == "residual"
    one_user = [_agent(f"e{i}", "book me a seat", cabin="business") for i in range(3)]
    how = {
        c.argument: c.how for c in compile_behavior(one_user, name="b").compiled.actions[0].choices
    }
    assert how["cabin"] == "residual"  # 3 of 3 but one user: no constant


def test_a_value_the_user_said_is_a_stated_input_and_prose_reads_the_conversation() -> None:
    episodes = [_agent("a", "I want business please", cabin="business", note="Booked business."),
                _agent("b", "economy, thanks", cabin="economy", note="Booked economy for you.")]  # fmt: skip
    result = compile_behavior(episodes, name="book")
    cabin, note = result.compiled.actions[0].choices
    assert (cabin.how, cabin.stated) == ("input", True)
    assert note.how == "residual"
    assert result.compiled.residuals[0].node["signature"] == "conversation -> note"
