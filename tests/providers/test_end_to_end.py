"""Issue 5 "Done when": the retail Predict and a two-tool React leaf run through each adapter
against the loopback server with identical blackboard results; a root with a model id and no
model object resolves its model from the environment."""

from __future__ import annotations

from typing import Any

import pytest
from jdsl import dsl
from jdsl.envs.fixtures import retail_fixture_tools, retail_teacher
from jdsl.providers import ReplayDivergence, ReplayModel
from jdsl.trace import ListTraceSink
from loopback_server import Reply

VENDORS = ("anthropic", "openai", "gemini")
INPUTS = {"email": "c1@x.com", "request": "cancel my pending order"}


def retail_predict() -> Any:
    return retail_teacher(system="You are a careful retail agent.")


def retail_react() -> Any:
    return dsl.root("find_order", system="You are a careful retail agent.").do(
        dsl.react(
            "request, email -> order_id",
            tools=["lookup", "list_orders"],
            instructions="Find the id of the customer's pending order.",
            id="agent",
        )
    )


REACT_SCRIPT = (
    Reply(tool_calls=[("call_1", "lookup", {"email": "c1@x.com"})]),
    Reply(text="Listing orders.", tool_calls=[("call_2", "list_orders", {"customer_id": "U1"})]),
    Reply(text="#W11"),
)


def board(ctx: Any) -> dict[str, Any]:
    return {k: ctx.blackboard[k] for k in ctx.blackboard.keys()}


def test_retail_predict_gives_identical_blackboards(server, make_model):
    boards = {}
    for vendor in VENDORS:
        server.script(Reply(text="1", usage={"input": 40, "output": 1}))
        ctx = retail_predict().run(
            model=make_model(vendor), tools=retail_fixture_tools(1), **INPUTS
        )
        assert ctx.status.value == "success", ctx.error
        boards[vendor] = board(ctx)
    assert boards["anthropic"]["order"]["id"] == "#W11"
    assert boards["anthropic"] == boards["openai"] == boards["gemini"]


def test_two_tool_react_gives_identical_blackboards(server, make_model):
    boards = {}
    for vendor in VENDORS:
        server.reset()
        server.script(*REACT_SCRIPT)
        sink = ListTraceSink()
        ctx = retail_react().run(
            model=make_model(vendor), trace_sink=sink, tools=retail_fixture_tools(1), **INPUTS
        )
        assert ctx.status.value == "success", ctx.error
        assert len(server.requests) == 3  # the tool history passed the vendor's rules
        finished = [e for e in sink.events if e.kind == "react.finished"][-1]
        assert finished.payload["usage"]["input_tokens"] == 33
        boards[vendor] = board(ctx)
    assert boards["openai"]["order_id"] == "#W11"
    assert boards["anthropic"] == boards["openai"] == boards["gemini"]


def test_a_failing_tool_reaches_the_model_as_an_observation(server, make_model, vendor):
    server.script(
        Reply(tool_calls=[("call_1", "lookup", {"email": "nobody@x.com"})]),
        Reply(tool_calls=[("call_2", "lookup", {"email": "c1@x.com"})]),
        Reply(tool_calls=[("call_3", "list_orders", {"customer_id": "U1"})]),
        Reply(text="#W11"),
    )
    ctx = retail_react().run(model=make_model(vendor), tools=retail_fixture_tools(1), **INPUTS)
    assert ctx.blackboard["order_id"] == "#W11"
    assert len(server.requests) == 4


def test_a_root_with_a_model_id_resolves_it_from_the_environment(server, isolated_env, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", server.api_key)
    monkeypatch.setenv("OPENAI_BASE_URL", server.url("openai"))
    server.script(Reply(text="1"))
    root = retail_predict()
    root.model_id = "gpt-4o-mini"
    ctx = root.run(tools=retail_fixture_tools(1), **INPUTS)
    assert ctx.blackboard["order"]["id"] == "#W11"
    assert server.requests[-1].body["model"] == "gpt-4o-mini"


def test_a_root_with_a_model_id_and_no_key_says_what_to_set(isolated_env):
    from jdsl.errors import AuthenticationError

    root = retail_predict()
    root.model_id = "claude-sonnet-4-5"
    with pytest.raises(AuthenticationError, match="ANTHROPIC_API_KEY"):
        root.run(tools=retail_fixture_tools(1), **INPUTS)


def test_a_recorded_react_run_replays_without_the_server(server, make_model):
    server.script(*REACT_SCRIPT)
    sink = ListTraceSink()
    live = retail_react().run(
        model=make_model("anthropic"), trace_sink=sink, tools=retail_fixture_tools(1), **INPUTS
    )
    replay = ReplayModel(sink.events)
    again = retail_react().run(model=replay, tools=retail_fixture_tools(1), **INPUTS)
    assert board(again) == board(live) and replay.remaining == 0 and replay.divergence is None
    assert len(server.requests) == 3  # nothing new reached the server

    other = ReplayModel(sink.events)
    with pytest.raises(ReplayDivergence):  # a model error propagates from React, as from Predict
        retail_react().run(
            model=other, tools=retail_fixture_tools(1), email="c2@x.com", request="x"
        )
    assert other.divergence is not None and other.divergence.node_id == "agent"
    assert other.divergence.message_index == 0 and "c2@x.com" in other.divergence.actual["content"]


def test_a_recorded_predict_run_replays_and_raises_on_divergence(server, make_model):
    server.script(Reply(text="1"))
    sink = ListTraceSink()
    live = retail_predict().run(
        model=make_model("gemini"), trace_sink=sink, tools=retail_fixture_tools(1), **INPUTS
    )
    again = retail_predict().run(model=ReplayModel(sink), tools=retail_fixture_tools(1), **INPUTS)
    assert board(again) == board(live)
    with pytest.raises(ReplayDivergence, match="message 0"):
        retail_predict().run(
            model=ReplayModel(sink), tools=retail_fixture_tools(2), email="c2@x.com", request="r"
        )


def test_replay_from_a_jsonl_file_with_large_messages_in_blobs(server, make_model, tmp_path):
    from jdsl.trace import JsonlTraceSink, read_events

    server.script(*REACT_SCRIPT)
    path = tmp_path / "run.jsonl"
    long_request = "please find it " * 100  # over the blob threshold below
    inputs = {**INPUTS, "request": long_request}
    sink = JsonlTraceSink(path, blob_threshold_bytes=256)
    live = retail_react().run(
        model=make_model("openai"), trace_sink=sink, tools=retail_fixture_tools(1), **inputs
    )
    assert any(e.blob_refs for e in read_events(path) if e.kind == "model.requested")
    for source in (path, read_events(path)):
        replay = ReplayModel(source)
        again = retail_react().run(model=replay, tools=retail_fixture_tools(1), **inputs)
        assert board(again) == board(live) and replay.divergence is None
