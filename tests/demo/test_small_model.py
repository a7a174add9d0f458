"""jdsl.demo.small_model with a scripted model: both arms run per task, are scored with the
benchmark's reward, counted, logged and tabulated (the real local run is the slow test and
``jdsl demo --model local:...``)."""

from __future__ import annotations

import json

from jdsl.demo.small_model import Counted, compare_small_model, react_agent, table_text
from jdsl.testing import ScriptedModel


def test_both_arms_run_per_task_scored_counted_and_logged(tmp_path) -> None:
    lines: list[str] = []
    # the first held-out task: the package asks twice (order index, reason); the react agent
    # is answered at once (no tool call), so it changes nothing and scores 0
    model = ScriptedModel("0", "no longer needed", "I did nothing.")
    package, react = compare_small_model(
        "scripted", tmp_path, limit=1, model=model, echo=lines.append
    )
    runs = [json.loads(line) for line in (tmp_path / "small_model_runs.jsonl").open()]
    assert [r["arm"] for r in runs] == ["package", "react"] and len(lines) == 2
    assert package.tasks == react.tasks == 1
    assert package.model_calls == 2 and react.model_calls == 1
    assert react.passed == 0 and runs[1]["reward"] == 0.0
    text = table_text("scripted", (package, react))
    assert "(a) compiled package" in text and "(b) the model alone" in text


def test_the_react_agent_has_the_family_tools_and_the_teacher_instructions() -> None:
    agent = react_agent()
    leaf = agent.child
    assert leaf.tools == ["find_user_id_by_email", "find_user_id_by_name_zip",
                          "get_user_details", "get_order_details", "cancel_pending_order"]  # fmt: skip
    assert "Answer with one of the two allowed reasons exactly." in leaf.instructions
    assert agent.system.startswith("You are a careful retail agent.")


def test_counted_forwards_structured_outputs() -> None:
    class Typed:
        structured_outputs = True

    assert (
        Counted(Typed()).structured_outputs and not Counted(ScriptedModel("x")).structured_outputs
    )
