"""jdsl.testing: ScriptedModel and FunctionModel."""

from __future__ import annotations

import pytest
from jdsl import Message, ModelTurn, ToolSpec, Usage
from jdsl.testing import FunctionModel, ScriptedModel


def test_scripted_replies_in_order_last_repeats_and_calls_recorded():
    model = ScriptedModel(
        "a", ModelTurn(text="b"), turns=[ModelTurn(text="c", usage=Usage(input_tokens=1))]
    )
    texts = [model.converse("S", [Message.user(str(i))], (), "m").text for i in range(5)]
    assert texts == ["a", "b", "c", "c", "c"]
    assert model.calls[0] == {
        "system": "S",
        "messages": [Message.user("0")],
        "tools": [],
        "model_id": "m",
    }
    assert model.converse("", []).usage == Usage(input_tokens=1)
    assert model.generate("", [Message.user("x")]) == "c"


def test_scripted_model_rejects_bad_replies():
    with pytest.raises(TypeError):
        ScriptedModel(3)  # type: ignore[arg-type]


def test_function_model_sees_every_argument():
    spec = ToolSpec(name="t")
    model = FunctionModel(
        lambda system, messages, tools, model_id: (
            f"{system}|{len(messages)}|{tools[0].name}|{model_id}"
        )
    )
    assert model.converse("S", [Message.user("x")], [spec], "m").text == "S|1|t|m"
    assert len(model.calls) == 1


def test_a_structured_double_records_the_schema_and_others_refuse_one():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    model = ScriptedModel('{"n": 1}', structured_outputs=True)
    assert model.structured_outputs and not ScriptedModel("x").structured_outputs
    model.converse("", [Message.user("x")], response_schema=schema)
    model.converse("", [Message.user("y")])
    assert model.calls[0]["response_schema"] == schema and "response_schema" not in model.calls[1]
    with pytest.raises(TypeError, match="structured_outputs=True"):
        FunctionModel(lambda *a: "x").converse("", [], response_schema=schema)
    typed = FunctionModel(lambda *a: "x", structured_outputs=True)
    assert typed.converse("", [], response_schema=schema).text == "x"
    assert typed.calls[0]["response_schema"] == schema
