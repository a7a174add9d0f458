"""React leaf: tool loop through react_flow."""

from __future__ import annotations

import pytest
from jdsl import ListTraceSink, ModelTurn, Status, ToolCall, react, root, tool
from jdsl.errors import BindingError
from jdsl.testing import FunctionModel, ScriptedModel


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def boom(x: str) -> str:
    """Always fails."""
    raise RuntimeError("kaput")


def calls(*items: tuple[str, dict]) -> ModelTurn:
    return ModelTurn(
        tool_calls=tuple(
            ToolCall(id=f"c{i}", name=n, arguments=a) for i, (n, a) in enumerate(items)
        )
    )


def test_tool_loop_writes_the_answer():
    model = ScriptedModel(calls(("add", {"a": 2, "b": 3})), "5")
    ctx = root("r").do(react("q -> answer: int", tools=[add], id="agent")).run(model=model, q="2+3")
    assert ctx.status is Status.SUCCESS and ctx.blackboard["answer"] == 5
    assert ctx.blackboard.who_wrote("answer") == "agent"
    spec = model.calls[0]["tools"][0]
    assert spec.name == "add" and spec.parameters["required"] == ["a", "b"]
    tool_message = model.calls[1]["messages"][-1]
    assert tool_message.role == "tool" and tool_message.content == "5" and not tool_message.is_error


def test_tool_exception_and_unknown_tool_are_failed_observations():
    model = ScriptedModel(calls(("boom", {"x": "1"}), ("nope", {})), "gave up")
    ctx = root("r").do(react("q -> answer", tools=[add, boom])).run(model=model, q="?")
    assert ctx.status is Status.SUCCESS and ctx.error is None
    observations = [m for m in model.calls[1]["messages"] if m.role == "tool"]
    assert [m.is_error for m in observations] == [True, True]
    assert "kaput" in observations[0].content and "nope" in observations[1].content


def test_max_steps_counts_model_calls_and_fails_without_answer():
    sink = ListTraceSink()
    model = FunctionModel(
        lambda system, messages, tools, model_id: ModelTurn(
            tool_calls=(ToolCall(id=f"c{len(messages)}", name="add", arguments={"a": 1, "b": 1}),)
        )
    )
    tree = root("r").do(react("q -> answer", tools=[add], max_steps=2))
    ctx = tree.run(model=model, trace_sink=sink, q="?")
    assert ctx.status is Status.FAILURE and "answer" not in ctx.blackboard
    assert len(model.calls) == 2
    finished = next(e for e in sink.events if e.kind == "react.finished").payload
    assert finished["status"] == "partial" and finished["stop_reason"] == "max_steps"
    assert finished["pending_actions"][0]["name"] == "add"


def test_answer_that_fails_validation_fails():
    ctx = (
        root("r").do(react("q -> answer: int", tools=[add])).run(model=ScriptedModel("lots"), q="?")
    )
    assert ctx.status is Status.FAILURE and "answer" not in ctx.blackboard


def test_react_needs_exactly_one_output():
    with pytest.raises(ValueError, match="exactly one output"):
        react("q -> a, b", tools=[add])


def test_react_tools_bound_by_name_at_run():
    tree = root("r").do(react("q -> answer", tools=["plus"]))
    with pytest.raises(BindingError):
        tree.run(model=ScriptedModel("x"), q="?")
    model = ScriptedModel(calls(("plus", {"a": 1, "b": 2})), "3")
    ctx = tree.run(model=model, tools={"plus": add}, q="?")
    assert ctx.blackboard["answer"] == "3" and model.calls[0]["tools"][0].name == "plus"


def test_react_trace_events():
    sink = ListTraceSink()
    model = ScriptedModel(calls(("add", {"a": 1, "b": 2})), "3")
    root("r").do(react("q -> answer", tools=[tool(add)], id="agent")).run(
        model=model, trace_sink=sink, q="?"
    )
    kinds = [e.kind for e in sink.events if e.payload.get("node_id") == "agent"]
    assert kinds[:4] == ["node.enter", "react.started", "toolset.exposed", "model.requested"]
    assert "tool.call.started" in kinds and "tool.call.completed" in kinds
    started = next(e for e in sink.events if e.kind == "react.started").payload
    assert started["signature"] == "q -> answer" and started["tools"] == ["add"]
    finished = next(e for e in sink.events if e.kind == "react.finished").payload
    assert finished["status"] == "completed" and finished["answer"] == "3"
