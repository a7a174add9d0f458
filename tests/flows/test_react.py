from __future__ import annotations

from typing import Any

import pytest
from flows_helpers import FakeClock, Scripted, ask, registered
from jdsl.errors import PermissionDenied, ProviderTimeout
from jdsl.flows import McpTarget, SubtreeTarget, ToolTarget, react_flow
from jdsl.interaction import (
    CancelToken,
    McpCallResult,
    McpRegistry,
    McpToolInfo,
    McpToolPage,
    Sandbox,
    ToolRegistry,
    ToolResult,
)
from jdsl.providers.messages import ModelTurn, Usage
from jdsl.settings import Settings


def test_completed_feeds_observations_back_and_sums_usage(tools, log) -> None:
    model = Scripted(ask(("a1", "echo", {"x": 1})), "done")
    result = react_flow(model, "go", tools=tools)
    assert (result.status, result.stop_reason, result.answer) == ("completed", "completed", "done")
    assert result.usage.total == 14 and result.steps == 2 and result.action_calls == 1
    tool_message = model.calls[1]["messages"][-1]
    assert tool_message.role == "tool" and tool_message.content == "echo 1"
    assert tool_message.metadata == {"action_request_id": "a1", "name": "echo"}
    assert model.calls[1]["messages"][-2].tool_calls[0].id == "a1"
    assert result.pending == () and log == [("echo", {"x": 1})]


def test_business_failure_is_fed_back_and_both_actions_run(tools, log) -> None:
    model = Scripted(ask(("a1", "fail", {}), ("a2", "echo", {"x": 2})), "recovered")
    result = react_flow(model, "go", tools=tools)
    assert result.stop_reason == "completed" and [name for name, _ in log] == ["fail", "echo"]
    fed = model.calls[1]["messages"]
    assert fed[-2].content == "failed: NOT_FOUND: no such thing" and fed[-2].is_error


def test_exception_and_unknown_tool_become_failed_observations(tools) -> None:
    model = Scripted(
        ask(("a1", "crash", {}), ("a2", "nope", {}), ("a3", "echo", {"x": "bad"})), "ok"
    )
    result = react_flow(model, "go", tools=tools, on_undeclared="observe")
    assert result.stop_reason == "completed"
    texts = [m.content for m in model.calls[1]["messages"][-3:]]
    assert (
        texts[0].startswith("failed: TOOL_EXCEPTION: RuntimeError: boom") and "/srv" not in texts[0]
    )
    assert texts[1].startswith("failed: UNKNOWN_TOOL")
    assert texts[2].startswith("failed: INVALID_ARGUMENTS")


def test_max_steps_reserves_the_last_model_call(tools, log) -> None:
    result = react_flow(Scripted(ask(("a1", "echo", {"x": 1}))), "go", tools=tools, max_steps=1)
    assert (result.status, result.stop_reason) == ("partial", "max_steps")
    assert [c.id for c in result.pending] == ["a1"] and log == []
    result = react_flow(
        Scripted(ask(("a1", "echo", {"x": 1})), ask(("a2", "echo", {"x": 2}))),
        "go",
        tools=tools,
        max_steps=2,
    )
    assert result.stop_reason == "max_steps" and [c.id for c in result.pending] == ["a2"]
    assert result.action_calls == 1


def test_max_action_calls_zero_keeps_requests(tools, log) -> None:
    result = react_flow(Scripted(ask(("a1", "echo", {}))), "go", tools=tools, max_action_calls=0)
    assert (result.status, result.stop_reason) == ("partial", "max_action_calls")
    assert len(result.pending) == 1 and log == []


def test_max_total_tokens(tools, log) -> None:
    result = react_flow(Scripted(ask(("a1", "echo", {}))), "go", tools=tools, max_total_tokens=3)
    assert (result.status, result.stop_reason) == ("partial", "max_tokens")
    assert len(result.pending) == 1 and log == []


def test_usage_unavailable_under_a_token_budget(tools) -> None:
    result = react_flow(
        Scripted(ask(("a1", "echo", {}), usage=None)), "go", tools=tools, max_total_tokens=100
    )
    assert result.stop_reason == "error" and result.error.code == "USAGE_UNAVAILABLE"
    assert react_flow(Scripted(ModelTurn(text="fine")), "go", tools=tools).usage is None


def test_timeout_reads_the_injected_clock(tools) -> None:
    clock = FakeClock()

    def slow_turn() -> ModelTurn:
        clock.now += 10
        return ask(("a1", "echo", {}))

    result = react_flow(Scripted(slow_turn), "go", tools=tools, timeout_s=5, clock=clock)
    assert (result.status, result.stop_reason, result.error.code) == (
        "partial",
        "timeout",
        "TIMEOUT",
    )
    assert [c.id for c in result.pending] == ["a1"]


def test_provider_timeout_before_any_turn_is_failed(tools) -> None:
    def raise_timeout() -> ModelTurn:
        raise ProviderTimeout("timed out", provider="fake")

    result = react_flow(Scripted(raise_timeout), "go", tools=tools)
    assert (result.status, result.stop_reason) == ("failed", "timeout")


def test_cancelled_before_start_and_midway(tools, log) -> None:
    token = CancelToken()
    token.cancel()
    result = react_flow(Scripted("never"), "go", tools=tools, cancel=token)
    assert (result.status, result.stop_reason) == ("failed", "cancelled")
    token = CancelToken()

    def cancel_then_ask() -> ModelTurn:
        token.cancel()
        return ask(("a1", "echo", {}))

    result = react_flow(Scripted(cancel_then_ask), "go", tools=tools, cancel=token)
    assert (result.status, result.stop_reason) == ("partial", "cancelled") and log == []


def test_keyboard_interrupt_maps_to_cancelled(tools) -> None:
    def interrupt() -> ModelTurn:
        raise KeyboardInterrupt

    assert react_flow(Scripted(interrupt), "go", tools=tools).stop_reason == "cancelled"


@pytest.mark.parametrize("tool", ["slow"])
def test_timeout_result_stops_with_dependency_failed(tools, log, tool: str) -> None:
    model = Scripted(ask(("a1", tool, {}), ("a2", "echo", {})), "unreached")
    result = react_flow(model, "go", tools=tools)
    assert (result.status, result.stop_reason) == ("partial", "dependency_failed")
    assert result.error.code == "SLOW" and len(model.calls) == 1
    assert [c.id for c in result.pending] == ["a2"] and result.observations[0].status == "timeout"


def test_infrastructure_error_stops_without_an_observation(log) -> None:
    def denied(a: dict) -> ToolResult:
        raise PermissionDenied("file.read", "secret.txt")

    registry = ToolRegistry(
        [registered("read", denied, log)], sandbox=Sandbox(grants={"tool": ["*"]})
    )
    model = Scripted(ask(("a1", "read", {}), ("a2", "read", {})), "unreached")
    result = react_flow(model, "go", tools=registry)
    assert result.stop_reason == "dependency_failed" and result.observations == ()
    assert [c.id for c in result.pending] == ["a2"] and "permission denied" in result.error.message


@pytest.mark.parametrize("reason", ["error", "content_filter"])
def test_model_error_finish(tools, reason: str) -> None:
    turn = ModelTurn(text="x", finish_reason=reason, usage=Usage(total_tokens=1))
    result = react_flow(Scripted(turn), "go", tools=tools)
    assert result.stop_reason == "error" and result.error.code == "MODEL_ERROR"


def test_duplicate_action_ids_are_invalid_output(tools) -> None:
    model = Scripted(ask(("a1", "echo", {})), ask(("a1", "echo", {})))
    result = react_flow(model, "go", tools=tools)
    assert result.stop_reason == "error" and result.error.code == "INVALID_MODEL_OUTPUT"


def test_every_stop_reason_is_reachable(tools) -> None:
    clock = FakeClock()
    token = CancelToken()
    token.cancel()

    def late() -> ModelTurn:
        clock.now += 60
        return ask(("a1", "echo", {}))

    reasons = {
        react_flow(Scripted("done"), "go", tools=tools).stop_reason,
        react_flow(Scripted(ask(("a", "echo", {}))), "go", tools=tools, max_steps=1).stop_reason,
        react_flow(
            Scripted(ask(("a", "echo", {}))), "go", tools=tools, max_action_calls=0
        ).stop_reason,
        react_flow(
            Scripted(ask(("a", "echo", {}))), "go", tools=tools, max_total_tokens=1
        ).stop_reason,
        react_flow(Scripted(late), "go", tools=tools, clock=clock, timeout_s=1).stop_reason,
        react_flow(Scripted("x"), "go", tools=tools, cancel=token).stop_reason,
        react_flow(Scripted(ask(("a", "slow", {}))), "go", tools=tools).stop_reason,
        react_flow(
            Scripted(ask(("a", "echo", {})), ask(("a", "echo", {}))), "go", tools=tools
        ).stop_reason,
    }
    assert reasons == {
        "completed",
        "max_steps",
        "max_action_calls",
        "max_tokens",
        "timeout",
        "cancelled",
        "dependency_failed",
        "error",
    }


def test_mcp_target_uses_caller_routing_only() -> None:
    class Client:
        calls: list = []

        def list_tools(self, cursor: Any = None) -> McpToolPage:
            return McpToolPage(tools=(McpToolInfo(name="lookup", input_schema={"type": "object"}),))

        def call_tool(self, name: str, arguments: dict) -> McpCallResult:
            self.calls.append((name, arguments))
            return McpCallResult(content="from mcp")

    client = Client()
    mcp = McpRegistry(
        {"files": client, "other": client}, sandbox=Sandbox(grants={"mcp": ["files"]})
    )
    model = Scripted(ask(("a1", "find", {"server": "other", "targetNode": "x"})), "ok")
    result = react_flow(model, "go", actions={"find": McpTarget("files", "lookup")}, mcp=mcp)
    assert result.stop_reason == "completed" and [t.name for t in model.calls[0]["tools"]] == [
        "find"
    ]
    assert client.calls == [("lookup", {"server": "other", "targetNode": "x"})]
    assert result.observations[0].source == "files:lookup"


def test_subtree_and_renamed_tool_targets(tools, log) -> None:
    seen: list = []
    actions = {
        "plan": SubtreeTarget(
            lambda args: seen.append(args) or {"plan": "ok"}, "Run the planning subtree"
        ),
        "say": ToolTarget("echo"),
    }
    model = Scripted(ask(("a1", "plan", {"goal": "g"}), ("a2", "say", {"x": 5})), "done")
    result = react_flow(model, "go", tools=tools, actions=actions)
    assert result.stop_reason == "completed" and seen == [{"goal": "g"}]
    assert [m.content for m in model.calls[1]["messages"][-2:]] == ['{"plan":"ok"}', "echo 5"]
    assert log == [("echo", {"x": 5})]


def test_registry_sandbox_limits_exposed_tools(tools) -> None:
    narrow = ToolRegistry(
        [tools.get("echo"), tools.get("fail")], sandbox=Sandbox(grants={"tool": ["echo"]})
    )
    model = Scripted("done")
    react_flow(model, "go", tools=narrow)
    assert [t.name for t in model.calls[0]["tools"]] == ["echo"]


def test_budget_precedence_and_validation(tools) -> None:
    settings = Settings().merged({"react": {"max_steps": 1}})
    model = Scripted(ask(("a1", "echo", {})))
    assert react_flow(model, "go", tools=tools, settings=settings).stop_reason == "max_steps"
    assert (
        react_flow(
            Scripted(ask(("a1", "echo", {})), "ok"),
            "go",
            tools=tools,
            settings=settings,
            max_steps=2,
        ).stop_reason
        == "completed"
    )
    with pytest.raises(ValueError, match="budget"):
        react_flow(model, "go", tools=tools, max_steps=0)


def test_emit_produces_trace_payloads(tools) -> None:
    events: list = []

    class Event:
        def __init__(self, n: int) -> None:
            self.event_id = f"e{n}"

    def emit(kind: str, payload: dict, *, actor: str, parent_event_id: str | None = None) -> Event:
        events.append((kind, actor, parent_event_id, payload))
        return Event(len(events))

    react_flow(
        Scripted(ask(("a1", "echo", {"x": 1}), ("a2", "fail", {})), "done"),
        "go",
        tools=tools,
        emit=emit,
        node_id="root/react.0",
    )
    assert events[0][0] == "toolset.exposed" and events[0][3]["tools"][0]["host_name"] == "crash"
    events.pop(0)
    kinds = [(k, a, p) for k, a, p, _ in events]
    assert kinds[:5] == [
        ("model.requested", "model", None),
        ("model.responded", "model", "e2"),
        ("tool.call.started", "model", None),
        ("tool.call.completed", "tool", "e4"),
        ("tool.call.started", "model", None),
    ]
    assert kinds[5] == ("tool.call.failed", "tool", "e6")
    assert all(p["node_id"] == "root/react.0" for *_, p in events)
    assert events[3][3]["result"] == "echo 1" and events[5][3]["error_type"] == "NOT_FOUND"


def test_plain_function_tools_are_granted_by_their_binding() -> None:
    def lookup(order_id: str) -> dict:
        """Find an order."""
        if order_id == "bad":
            raise KeyError(order_id)
        return {"id": order_id, "status": "pending"}

    model = Scripted(
        ask(("a1", "lookup", {"order_id": "W1"}), ("a2", "lookup", {"order_id": "bad"})), "done"
    )
    result = react_flow(model, "go", tools=[lookup])
    assert result.stop_reason == "completed" and [t.name for t in model.calls[0]["tools"]] == [
        "lookup"
    ]
    assert result.observations[0].structured_content == {"id": "W1", "status": "pending"}
    assert result.observations[1].error.code == "TOOL_EXCEPTION"


def test_concurrent_flows_stay_isolated(tools) -> None:
    import threading

    results: dict = {}

    def run(tag: str) -> None:
        model = Scripted(ask((f"{tag}1", "echo", {"x": len(tag)})), f"done {tag}")
        results[tag] = (react_flow(model, tag, tools=tools), model)

    threads = [threading.Thread(target=run, args=(t,)) for t in ("a", "bb", "ccc")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for tag, (result, _model) in results.items():
        assert result.answer == f"done {tag}"
        assert [m.content for m in result.messages] == [tag, "", f"echo {len(tag)}", f"done {tag}"]
