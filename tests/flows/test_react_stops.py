"""react_flow's stop rules (seed: undeclared actions stop the flow) and its execution errors
(seed: "Invalid input throws; execution errors return ReactFlowResult")."""

from __future__ import annotations

from typing import Any

import pytest
from flows_helpers import Scripted, ask
from jdsl.errors import AuthenticationError, ServerError
from jdsl.flows import SubtreeTarget, react_flow
from jdsl.interaction import ToolResult
from jdsl.providers.messages import ModelTurn


def test_an_undeclared_action_stops_a_standalone_flow_with_its_requests_pending(tools, log) -> None:
    model = Scripted(ask(("a1", "echo", {"x": 1}), ("a2", "delete_everything", {})), "unreached")
    result = react_flow(model, "go", tools=tools)
    assert (result.status, result.stop_reason) == ("partial", "error")
    assert result.error.code == "UNDECLARED_ACTION"
    assert "'delete_everything'" in result.error.message and "echo" in result.error.message
    assert [c.id for c in result.pending] == ["a1", "a2"]  # nothing of that turn ran
    assert log == [] and len(model.calls) == 1 and result.observations == ()


def test_observe_feeds_an_undeclared_action_back_as_the_tree_does(tools, log) -> None:
    model = Scripted(ask(("a1", "nope", {})), "recovered")
    result = react_flow(model, "go", tools=tools, on_undeclared="observe")
    assert (result.status, result.answer) == ("completed", "recovered")
    assert result.observations[0].error.code == "UNKNOWN_TOOL"


def test_an_undeclared_action_after_a_declared_turn_keeps_earlier_observations(tools) -> None:
    model = Scripted(ask(("a1", "echo", {"x": 1})), ask(("a2", "nope", {})), "unreached")
    result = react_flow(model, "go", tools=tools)
    assert result.stop_reason == "error" and result.error.code == "UNDECLARED_ACTION"
    assert [o.call_id for o in result.observations] == ["a1"]
    assert [c.id for c in result.pending] == ["a2"] and result.steps == 2


def test_the_undeclared_name_is_scrubbed_and_bounded(tools) -> None:
    secret = "sk-" + "A1b2" * 12
    result = react_flow(Scripted(ask(("a1", secret, {}))), "go", tools=tools)
    assert result.error.code == "UNDECLARED_ACTION" and secret not in result.error.message
    assert "\n" not in result.error.message


def test_duplicate_ids_stop_in_observe_mode_too(tools) -> None:
    model = Scripted(ask(("a1", "echo", {})), ask(("a1", "echo", {})))
    result = react_flow(model, "go", tools=tools, on_undeclared="observe")
    assert result.error.code == "INVALID_MODEL_OUTPUT" and [c.id for c in result.pending] == ["a1"]


def test_on_undeclared_is_checked_input(tools) -> None:
    with pytest.raises(ValueError, match="on_undeclared"):
        react_flow(Scripted("x"), "go", tools=tools, on_undeclared="ignore")  # type: ignore[arg-type]


def _raises(exc: BaseException) -> Any:
    def turn() -> ModelTurn:
        raise exc

    return turn


@pytest.mark.parametrize(
    "exc",
    [
        ConnectionError("connection refused by /srv/proxy/socket"),
        OSError("network unreachable"),
        RuntimeError("event loop is closed"),
        ServerError("upstream 503", provider="fake"),
        AuthenticationError("bad key sk-" + "Z" * 40, provider="fake"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_any_model_exception_before_a_turn_is_a_failed_result(tools, exc: Exception) -> None:
    result = react_flow(Scripted(_raises(exc)), "go", tools=tools)
    assert (result.status, result.stop_reason) == ("failed", "error")
    assert result.error.code == "MODEL_ERROR"
    assert result.error.message.startswith(type(exc).__name__ + ":")
    assert "/srv" not in result.error.message and "sk-ZZZZ" not in result.error.message
    assert result.exception is exc  # kept for a caller that must re-raise (the React leaf)
    assert "exception" not in result.model_dump()  # never serialized


def test_a_model_exception_after_a_turn_is_partial(tools, log) -> None:
    model = Scripted(ask(("a1", "echo", {"x": 1})), _raises(ConnectionError("reset")))
    result = react_flow(model, "go", tools=tools)
    assert (result.status, result.stop_reason, result.error.code) == (
        "partial",
        "error",
        "MODEL_ERROR",
    )
    assert result.steps == 1 and log == [("echo", {"x": 1})]


def test_a_converse_returning_junk_is_invalid_model_output(tools) -> None:
    class Junk:
        def converse(self, *args: Any, **kwargs: Any) -> int:
            return 42

    result = react_flow(Junk(), "go", tools=tools)
    assert (result.status, result.error.code) == ("failed", "INVALID_MODEL_OUTPUT")


def test_an_action_whose_result_is_invalid_stops_without_raising(tools) -> None:
    def broken(arguments: dict) -> ToolResult:
        return ToolResult.model_construct(status="failed", error=None, content=None)

    model = Scripted(ask(("a1", "plan", {}), ("a2", "echo", {})), "unreached")
    result = react_flow(model, "go", tools=tools, actions={"plan": SubtreeTarget(broken)})
    assert (result.status, result.stop_reason) == ("partial", "dependency_failed")
    assert result.error.code == "INVALID_RESULT" and result.observations == ()
    assert [c.id for c in result.pending] == ["a2"]
