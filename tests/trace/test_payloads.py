"""The runtime's payloads against the contract table of docs/ARCHITECTURE.md."""

from __future__ import annotations

from typing import Any

from jdsl import tree
from jdsl.providers.messages import ModelTurn, ToolCall, Usage
from jdsl.trace import EventKind, ListTraceSink, TraceEvent, payload_problems


class Scripted:
    def __init__(self, *turns: ModelTurn) -> None:
        self.turns = list(turns)

    def converse(
        self, system: str, messages: Any, tools: Any = (), model_id: Any = None
    ) -> ModelTurn:
        return self.turns.pop(0) if len(self.turns) > 1 else self.turns[0]


def lookup(email: str) -> dict[str, str]:
    """Find a customer by email."""
    return {"id": "U1", "email": email}


def _run(child: Any, model: Any = None) -> list[TraceEvent]:
    sink = ListTraceSink()
    root = tree.Root(name="contract", child=child)
    root.run(model=model, trace_sink=sink, tools={"lookup": lookup}, email="a@x.com", request="r")
    return sink.events


def test_action_check_guard_and_predict_payloads_match_the_contract() -> None:
    child = tree.Sequence(
        children=[
            tree.Action(tool="lookup", args={"email": {"ref": "email"}}, store="customer"),
            tree.Check(key="customer.id", equals="U1"),
            tree.Guard(expression={"eq": [{"ref": "customer.id"}, {"const": "U1"}]}),
            tree.Predict(signature="request, customer -> selected_index: int"),
        ]
    )
    events = _run(child, Scripted(ModelTurn(text="1", usage=Usage(input_tokens=9))))
    kinds = {e.kind for e in events}
    assert {
        EventKind.GUARD_EVALUATED,
        EventKind.MODEL_RESPONDED,
        EventKind.BLACKBOARD_READ,
    } <= kinds
    assert payload_problems(events) == []


def test_react_payloads_match_the_contract() -> None:
    call = ToolCall(id="c1", name="lookup", arguments={"email": "a@x.com"})
    model = Scripted(ModelTurn(tool_calls=(call,)), ModelTurn(text="U1"))
    events = _run(tree.React(signature="email -> customer_id", tools=["lookup"]), model)
    assert EventKind.REACT_FINISHED in {e.kind for e in events}
    assert payload_problems(events) == []
    first, second = [e for e in events if e.kind == EventKind.MODEL_REQUESTED]
    assert second.payload["messages_from"]["event_id"] == first.event_id
    torn = [e for e in events if e is not first]
    assert any("messages_from does not point" in p for p in payload_problems(torn))


def test_departures_are_reported() -> None:
    sink = ListTraceSink()
    start = sink.emit(TraceEvent(kind=EventKind.TOOL_CALL_STARTED, payload={"node_id": "a"}))
    sink.emit(
        TraceEvent(
            kind=EventKind.EPISODE_FINISHED,
            payload={"skill": "s", "status": "exploded", "error_type": None, "error_message": None},
        )
    )
    sink.emit(TraceEvent(kind=EventKind.NODE_EXIT, parent_event_id=start.event_id,
                         payload={"node_id": "a", "type": "action", "label": "x", "status": "success"}))  # fmt: skip
    sink.emit(TraceEvent(kind="user.message", payload={}))  # not a runtime kind: not checked
    problems = payload_problems(sink.events)
    assert any("lacks 'store'" in p and "sequence 0" in p for p in problems)
    assert any("'exploded' is not one of" in p for p in problems)
    assert any("node.exit" in p and "node.enter" in p for p in problems)
    assert len(problems) == 5  # store, tool, arguments, status, parent
