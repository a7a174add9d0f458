"""Residual signatures: typed outputs, heuristic wording, optional model wording, inputs."""

from __future__ import annotations

import pytest
from jdsl.compiler import as_records, compile_behavior
from jdsl.compiler.residualize import HeuristicCompilerModel, LLMCompilerModel, infer_type
from jdsl.testing import ScriptedModel


def test_heuristic_wording() -> None:
    words = HeuristicCompilerModel().word_instruction
    assert words("request, orders -> selected_index: int", []) == (
        "Choose the selected index from request, orders. Answer with its 0-based index.")  # fmt: skip
    assert words("text -> intent", []).startswith("Classify the intent")
    assert words("-> is_ok: bool", []) == "Determine whether it is ok."


def test_a_model_only_words_instructions(retail_episodes) -> None:
    model = ScriptedModel('{"instruction": "Pick the order the customer means."}')
    result = compile_behavior(retail_episodes(2), name="r", model=model)
    predict = next(n for n in result.ir["root"]["child"]["children"] if n["kind"] == "predict")
    assert predict["instructions"] == "Pick the order the customer means."
    assert predict["signature"] == "request, orders -> selected_index: int"
    assert result.package.signatures["resolve_target"]["outputs"][0]["schema"] == {
        "type": "integer"
    }


@pytest.mark.parametrize("reply", ["no json here", '{"other": 1}', ""])
def test_bad_model_wording_falls_back_to_the_heuristic(reply: str) -> None:
    text = LLMCompilerModel(ScriptedModel(reply)).word_instruction("q -> answer", [])
    assert text == HeuristicCompilerModel().word_instruction("q -> answer", [])


def test_infer_type() -> None:
    assert [infer_type(v) for v in ([1, 2], [1, 2.5], [True], [{}], ["a"], [])] == [
        "int", "float", "bool", "dict", "str", "str"]  # fmt: skip


def test_unknown_episode_forms_are_refused() -> None:
    with pytest.raises(TypeError, match="cannot read int as an episode"):
        as_records(3)
