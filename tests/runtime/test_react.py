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


def lookup_ticket(ticket_id: str) -> dict:
    """The ticket's text and the customer's plan."""
    return {"text": "The checkout page is down for every customer.", "plan": "enterprise"}


SIG = "ticket -> category, urgency: Literal['low', 'high']"


def test_several_typed_outputs_are_parsed_like_predict_and_all_written():
    sink = ListTraceSink()
    model = ScriptedModel(
        calls(("lookup_ticket", {"ticket_id": "T-7"})),
        '```json\n{"category": " outage ", "urgency": "high"}\n```',
    )
    tree = root("r").do(react(SIG, tools=[lookup_ticket], id="triage"))
    ctx = tree.run(model=model, trace_sink=sink, ticket="T-7: checkout broken")
    assert ctx.status is Status.SUCCESS
    assert (ctx.blackboard["category"], ctx.blackboard["urgency"]) == ("outage", "high")
    assert {ctx.blackboard.who_wrote(k) for k in ("category", "urgency")} == {"triage"}
    prompt = model.calls[0]["messages"][0].content
    assert "JSON object containing exactly these keys: category (text), urgency" in prompt
    finished = next(e for e in sink.events if e.kind == "react.finished").payload
    assert finished["outputs"] == {"category": "outage", "urgency": "high"}
    assert tree.child.label == "react(ticket -> category, urgency, tools=[lookup_ticket])"


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ('{"category": "outage"}', "missing ['urgency']"),
        ('{"category": "outage", "urgency": "soon"}', "output urgency: 'soon'"),
        ("It is an outage, and urgent.", "not parseable JSON"),
    ],
)
def test_several_outputs_write_nothing_unless_all_validate(answer: str, reason: str):
    tree = root("r").do(react(SIG, tools=[lookup_ticket]))
    ctx = tree.run(model=ScriptedModel(answer), ticket="T-7")
    assert ctx.status is Status.FAILURE
    assert "category" not in ctx.blackboard and "urgency" not in ctx.blackboard
    assert reason in ctx.failure.reason and ctx.failure.reason.startswith("react answer:")


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


def test_several_outputs_round_trip_through_text_and_ir():
    from jdsl.ir import validate_ir
    from jdsl.text import format_behavior, parse_behavior

    tree = parse_behavior(f'react "{SIG}" tools=[lookup_ticket] id=triage')
    assert tree.child.parsed.output_names == ("category", "urgency")
    assert parse_behavior(format_behavior(tree)).model_dump() == tree.model_dump()
    assert validate_ir({"format": "jdsl.behavior.v1", "root": tree.to_ir()}).ok


def test_a_model_exception_propagates_from_the_leaf_after_the_trace_closes():
    sink = ListTraceSink()

    def unreachable(system, messages, tools, model_id):
        raise ConnectionError("connection refused")

    tree = root("r").do(react(SIG, tools=[lookup_ticket]))
    with pytest.raises(ConnectionError, match="refused"):
        tree.run(model=FunctionModel(unreachable), trace_sink=sink, ticket="T-7")
    kinds = [e.kind for e in sink.events]
    assert "react.finished" in kinds and kinds[-1] == "episode.finished"
    finished = next(e for e in sink.events if e.kind == "react.finished").payload
    assert (finished["status"], finished["stop_reason"]) == ("failed", "error")


def test_a_tool_bound_by_capability_id_is_shown_under_a_host_name():
    """A package's fallback names its tools by capability id (``retail.add``), which no
    provider takes as a tool name: the model sees the id's last part and calls that."""
    model = ScriptedModel(calls(("add", {"a": 2, "b": 3})), "5")
    tree = root("r").do(react("q -> answer: int", tools=["retail.add"], id="agent"))
    ctx = tree.run(model=model, tools={"retail.add": add}, q="2+3")
    assert ctx.error is None and ctx.status is Status.SUCCESS and ctx.blackboard["answer"] == 5
    assert [s.name for s in model.calls[0]["tools"]] == ["add"]


def test_capability_ids_sharing_a_last_part_get_distinct_host_names():
    model = ScriptedModel(calls(("b_add", {"a": 2, "b": 3})), "5")
    tree = root("r").do(react("q -> answer: int", tools=["a.add", "b.add"], id="agent"))
    ctx = tree.run(model=model, tools={"a.add": add, "b.add": add}, q="2+3")
    assert ctx.error is None and ctx.blackboard["answer"] == 5
    assert [s.name for s in model.calls[0]["tools"]] == ["a_add", "b_add"]


def test_ctrl_c_during_a_react_model_call_cancels_the_run():
    """react_flow turns a KeyboardInterrupt into a ``cancelled`` result; in a tree the run
    must still stop as cancelled (a package's fallback is a react: Ctrl-C there used to end
    the run as an ordinary failure, exit 1)."""

    def interrupt(system, messages, tools, model_id) -> ModelTurn:
        raise KeyboardInterrupt

    sink = ListTraceSink()
    tree = root("r").do(react("q -> answer", tools=[add], id="agent"))
    with pytest.raises(KeyboardInterrupt):
        tree.run(model=FunctionModel(interrupt), trace_sink=sink, q="?")
    finished = next(e for e in sink.events if e.kind == "react.finished").payload
    assert finished["stop_reason"] == "cancelled"
    assert sink.events[-1].kind == "episode.finished"
    assert sink.events[-1].payload["status"] == "cancelled"


def test_the_run_says_which_react_took_over_from_which_failure_without_a_trace():
    """A react ticked after a failed sibling takes over from it: the run's result says so
    (``ctx.takeover``), traced or not; a run the first child serves has none."""
    from jdsl import guard, sel

    tree = root("r").do(
        sel(guard("ready == true", id="is_ready"), react("q -> answer", tools=[add], id="fallback"))
    )
    ctx = tree.run(model=ScriptedModel("done"), q="?", ready=False)
    assert ctx.status is Status.SUCCESS and ctx.takeover is not None
    assert (ctx.takeover.by, ctx.takeover.failure.node_id) == ("fallback", "is_ready")
    assert ctx.takeover.failure.reason.startswith("guard ready == true was false")
    assert str(ctx.takeover) == f"fallback took over at is_ready: {ctx.takeover.failure.reason}"
    sink = ListTraceSink()
    traced = tree.run(model=ScriptedModel("done"), q="?", ready=False, trace_sink=sink)
    started = next(e for e in sink.events if e.kind == "react.started").payload
    assert started["after_failure"]["reason"] == traced.takeover.failure.reason
    assert tree.run(model=ScriptedModel("done"), q="?", ready=True).takeover is None
