from __future__ import annotations

from typing import Any

import pytest
from jdsl.errors import PermissionDenied, ToolError
from jdsl.interaction import (
    RegisteredTool,
    Sandbox,
    ToolContext,
    ToolRegistry,
    ToolResult,
    observe,
)
from jdsl.providers.messages import ToolCall

SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
    "additionalProperties": False,
}


def make_tool(
    name: str = "read_text", result: Any = None, log: list | None = None
) -> RegisteredTool:
    def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if log is not None:
            log.append((args, ctx.call_id))
        return result if result is not None else ToolResult(content=f"text of {args['path']}")

    return RegisteredTool(name, "Read a text file", SCHEMA, execute)


def registry(*tools: RegisteredTool, grants: list[str] | None = None) -> ToolRegistry:
    return ToolRegistry(tools, sandbox=Sandbox(grants={"tool": grants or ["*"]}))


def call(name: str = "read_text", **arguments: Any) -> ToolCall:
    return ToolCall(id="c1", name=name, arguments=arguments or {"path": "a.txt"})


def test_call_adds_call_id_and_source() -> None:
    result = registry(make_tool()).call(call())
    assert (result.status, result.call_id, result.source) == ("success", "c1", "read_text")
    assert result.content == "text of a.txt"


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "dots.are.bad", "ümlaut"])
def test_register_rejects_bad_host_names(name: str) -> None:
    with pytest.raises(ToolError, match="1-64 characters"):
        registry(make_tool(name))


def test_register_rejects_duplicates_and_invalid_schemas() -> None:
    reg = registry(make_tool())
    with pytest.raises(ToolError, match="already registered"):
        reg.register(make_tool())
    bad = RegisteredTool("bad", "", {"type": 5}, make_tool().execute)
    with pytest.raises(ToolError, match="invalid JSON Schema"):
        reg.register(bad)


def test_unregister_returns_true_once_and_removes_only_its_registration() -> None:
    reg = registry()
    first = reg.register(make_tool())
    assert first() is True and first() is False
    reg.register(make_tool())  # a new registration under the same name
    assert first() is False and "read_text" in reg


def test_call_order_id_then_permission_then_registered_then_validation() -> None:
    log: list = []
    denied = ToolRegistry([make_tool(log=log)], sandbox=Sandbox())
    with pytest.raises(ToolError, match="nonempty id"):
        denied.call(ToolCall(id="", name="nope", arguments={}))
    with pytest.raises(PermissionDenied, match="tool"):
        denied.call(call())
    with pytest.raises(ToolError) as unknown:
        registry().call(call("missing"))
    assert unknown.value.code == "UNKNOWN_TOOL"
    reg = registry(make_tool(log=log))
    with pytest.raises(ToolError) as invalid:
        reg.call(ToolCall(id="c1", name="read_text", arguments={"path": 3, "extra": 1}))
    assert invalid.value.code == "INVALID_ARGUMENTS"
    assert log == []  # never executed


def test_validate_hook_rejects_before_execute() -> None:
    log: list = []

    def no_secrets(args: dict[str, Any]) -> None:
        if args["path"].startswith("secret"):
            raise ValueError("secret files are off limits")

    tool = make_tool(log=log)
    guarded = RegisteredTool(tool.name, tool.description, tool.parameters, tool.execute, no_secrets)
    with pytest.raises(ToolError, match="off limits"):
        registry(guarded).call(call(path="secret.txt"))
    assert log == []


def test_business_failure_is_returned_not_raised() -> None:
    failed = ToolResult.failure("NOT_FOUND", "no such order", retryable=False)
    result = registry(make_tool(result=failed)).call(call())
    assert result.status == "failed" and result.error and result.error.code == "NOT_FOUND"


@pytest.mark.parametrize(
    "bad",
    [
        ToolResult(status="success"),  # success without content
        ToolResult(status="timeout"),  # non-success without error
        ToolResult(structured_content={"x": float("nan")}),
        ToolResult.failure("OOPS", "failed reading /etc/shadow"),
        ToolResult.failure("OOPS", "auth Bearer abc.def"),
        ToolResult.failure("bad code!", "fine"),
    ],
)
def test_invalid_results_raise(bad: ToolResult) -> None:
    with pytest.raises(ToolError) as exc:
        registry(make_tool(result=bad)).call(call())
    assert exc.value.code in {"INVALID_RESULT", "UNSAFE_ERROR"}


def test_specs_list_only_allowed_tools_without_executables() -> None:
    reg = registry(make_tool("a"), make_tool("b"), grants=["a"])
    specs = reg.specs()
    assert [s.name for s in specs] == ["a"]
    assert set(specs[0].model_dump()) == {"name", "description", "parameters"}


def test_observe_prefixes_failures_and_keeps_status() -> None:
    failed = ToolResult.failure("NOT_FOUND", "no such order", content="details")
    obs = observe(registry(make_tool(result=failed)).call(call()))
    assert obs.status == "failed" and obs.message.is_error
    assert obs.message.content == "failed: NOT_FOUND: no such order\ndetails"
    assert (obs.message.role, obs.message.name, obs.message.tool_call_id) == (
        "tool",
        "read_text",
        "c1",
    )
    ok = observe(registry(make_tool()).call(call()))
    assert ok.message.content == "text of a.txt" and not ok.message.is_error


def test_observe_requires_registry_fields() -> None:
    with pytest.raises(ValueError, match="call_id"):
        observe(ToolResult(content="x"))
