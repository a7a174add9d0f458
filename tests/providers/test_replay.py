"""ReplayModel over hand-made events: order per node, divergence reports, strict and lenient."""

from __future__ import annotations

import pytest
from jdsl.providers import Message, ModelTurn, ReplayDivergence, ReplayModel, ToolCall, Usage
from jdsl.trace import TraceEvent


def request(event_id, node, messages, system="sys"):
    payload = {
        "node_id": node,
        "system": system,
        "messages": [m.model_dump(mode="json") for m in messages],
    }
    return TraceEvent(kind="model.requested", event_id=event_id, payload=payload)


def response(parent, node, text="", calls=(), usage=None, finish="stop"):
    payload = {
        "node_id": node,
        "raw_output": text,
        "tool_calls": [{"id": i, "name": n, "arguments": a} for i, n, a in calls],
        "usage": usage,
        "finish_reason": finish,
    }
    return TraceEvent(kind="model.responded", parent_event_id=parent, payload=payload)


Q1, Q2 = [Message.user("first")], [Message.user("second")]
EVENTS = [
    request("r1", "a", Q1),
    response(
        "r1", "a", calls=[("c1", "lookup", {"x": 1})], usage={"input_tokens": 3}, finish="tool_call"
    ),
    request("r2", "b", Q2),
    response("r2", "b", text="B"),
]


def test_answers_in_recorded_order():
    replay = ReplayModel(EVENTS)
    first = replay.converse("sys", Q1)
    assert first == ModelTurn(
        tool_calls=(ToolCall(id="c1", name="lookup", arguments={"x": 1}),),
        usage=Usage(input_tokens=3),
        finish_reason="tool_call",
    )
    assert replay.converse("sys", Q2).text == "B"
    assert replay.remaining == 0 and replay.divergence is None


def test_calls_are_matched_per_node():
    replay = ReplayModel(EVENTS)
    assert replay.converse("sys", Q2).text == "B"  # node b first: still found by its messages
    assert replay.converse("sys", Q1).tool_calls[0].name == "lookup"


def test_accepts_event_dicts_and_streams():
    replay = ReplayModel([e.model_dump(mode="json") for e in EVENTS])
    replay.converse("sys", Q1)
    assert list(replay.stream("sys", [{"role": "user", "content": "second"}])) == [
        "B",
        ModelTurn(text="B", finish_reason="stop"),
    ]


def test_the_first_differing_message_is_reported():
    replay = ReplayModel(EVENTS)
    with pytest.raises(ReplayDivergence) as info:
        replay.converse("sys", [Message.user("something else")])
    divergence = info.value.divergence
    assert (
        divergence.call_index == 0 and divergence.node_id == "a" and divergence.message_index == 0
    )
    assert (
        divergence.expected["content"] == "first"
        and divergence.actual["content"] == "something else"
    )
    assert replay.divergence == divergence
    assert "message 0" in str(info.value) and "'first'" in str(info.value)


def test_a_different_system_prompt_is_a_divergence():
    with pytest.raises(ReplayDivergence, match="system prompt differs"):
        ReplayModel(EVENTS).converse("other system", Q1)


def test_an_extra_call_is_a_divergence():
    replay = ReplayModel(EVENTS[:2])
    replay.converse("sys", Q1)
    with pytest.raises(ReplayDivergence, match="no model call left"):
        replay.converse("sys", Q1)


def test_lenient_mode_records_and_continues():
    replay = ReplayModel(EVENTS, strict=False)
    turn = replay.converse("sys", [*Q1, Message.user("extra")])
    assert turn.tool_calls[0].name == "lookup"
    assert replay.divergence is not None and replay.divergence.message_index == 1
    assert replay.divergence.expected is None  # the recording had no message 1
    assert replay.converse("sys", Q2).text == "B"
    assert replay.divergence.call_index == 0  # only the first divergence is kept
