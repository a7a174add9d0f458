from __future__ import annotations

from typing import Any

import pytest
from jdsl.errors import PermissionDenied, ToolError
from jdsl.interaction import (
    McpCallResult,
    McpRegistry,
    McpToolInfo,
    McpToolPage,
    Sandbox,
    ToolRegistry,
)
from jdsl.providers.messages import ToolCall

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


class FakeClient:
    def __init__(self, pages: list[McpToolPage] | None = None, result: Any = None) -> None:
        self.pages = pages or [
            McpToolPage(tools=(McpToolInfo(name="lookup", input_schema=SCHEMA),))
        ]
        self.result = result or McpCallResult(content="found")
        self.list_calls: list[str | None] = []
        self.tool_calls: list[tuple[str, dict]] = []

    def list_tools(self, cursor: str | None = None) -> McpToolPage:
        self.list_calls.append(cursor)
        index = 0 if cursor is None else int(cursor)
        return self.pages[min(index, len(self.pages) - 1)]

    def call_tool(self, name: str, arguments: dict[str, Any]) -> McpCallResult:
        self.tool_calls.append((name, arguments))
        return self.result


def paged(n_pages: int, per_page: int = 1, repeat: bool = False) -> list[McpToolPage]:
    pages = []
    for p in range(n_pages):
        tools = tuple(McpToolInfo(name=f"t{p}_{i}", input_schema=SCHEMA) for i in range(per_page))
        nxt = None if p == n_pages - 1 else ("1" if repeat else str(p + 1))
        pages.append(McpToolPage(tools=tools, next_cursor=nxt))
    return pages


def registry(client: Any, grants: list[str] | None = None, **limits: int) -> McpRegistry:
    return McpRegistry(
        {"files": client}, sandbox=Sandbox(grants={"mcp": grants or ["files"]}), **limits
    )


def test_discovery_pages_through_cursors() -> None:
    client = FakeClient(paged(3, per_page=2))
    caps = registry(client).discover("files")
    assert [c.name for c in caps] == ["t0_0", "t0_1", "t1_0", "t1_1", "t2_0", "t2_1"]
    assert client.list_calls == [None, "1", "2"]


def test_discovery_limits() -> None:
    with pytest.raises(ToolError) as pages:
        registry(FakeClient(paged(5)), max_pages=4).discover("files")
    assert pages.value.code == "MCP_DISCOVERY_LIMIT"
    with pytest.raises(ToolError) as caps:
        registry(FakeClient(paged(2, per_page=3)), max_capabilities=5).discover()
    assert caps.value.code == "MCP_DISCOVERY_LIMIT"
    with pytest.raises(ToolError) as repeated:
        registry(FakeClient(paged(4, repeat=True))).discover()
    assert repeated.value.code == "MCP_REPEATED_CURSOR"
    with pytest.raises(ValueError):
        McpRegistry(max_pages=0)


@pytest.mark.parametrize(
    "schema", [None, "object", {"type": "array"}, {"type": "object", "x": float("nan")}]
)
def test_invalid_input_schemas_raise(schema: Any) -> None:
    page = McpToolPage(tools=(McpToolInfo(name="bad", input_schema=schema),))
    with pytest.raises(ToolError):
        registry(FakeClient([page])).discover("files")


def test_denied_server_is_never_contacted() -> None:
    allowed, denied = FakeClient(), FakeClient()
    mcp = McpRegistry({"a": allowed, "b": denied}, sandbox=Sandbox(grants={"mcp": ["a"]}))
    with pytest.raises(PermissionDenied, match="mcp"):
        mcp.discover()
    with pytest.raises(PermissionDenied):
        mcp.discover("b")
    with pytest.raises(PermissionDenied):
        mcp.invoke("b", "lookup", {"q": "x"}, call_id="c1")
    assert denied.list_calls == [] and denied.tool_calls == []
    assert allowed.list_calls == []  # checked before any server is contacted
    assert [c.name for c in mcp.discover("a")] == ["lookup"]


def test_invoke_sets_source_and_status() -> None:
    client = FakeClient()
    result = registry(client).invoke("files", "lookup", {"q": "x"}, call_id="c1")
    assert (result.status, result.source, result.call_id, result.content) == (
        "success", "files:lookup", "c1", "found")  # fmt: skip


@pytest.mark.parametrize("arguments", ["{}", ["q"], None, 3])
def test_invoke_rejects_non_objects_before_the_client(arguments: Any) -> None:
    client = FakeClient()
    with pytest.raises(ToolError):
        registry(client).invoke("files", "lookup", arguments, call_id="c1")
    assert client.tool_calls == []


def test_invoke_rejects_cycles_empty_names_and_schema_violations() -> None:
    client = FakeClient()
    mcp = registry(client)
    cyclic: dict = {}
    cyclic["self"] = cyclic
    with pytest.raises(ToolError):
        mcp.invoke("files", "lookup", cyclic, call_id="c1")
    for server, name, call_id in (("", "lookup", "c"), ("files", "", "c"), ("files", "lookup", "")):
        with pytest.raises(ToolError):
            mcp.invoke(server, name, {}, call_id=call_id)
    mcp.discover("files")
    with pytest.raises(ToolError) as exc:
        mcp.invoke("files", "lookup", {"q": 1}, call_id="c1")
    assert exc.value.code == "INVALID_ARGUMENTS"
    assert client.tool_calls == []


def test_is_error_uses_fixed_error_unless_safe_one_given() -> None:
    unsafe = McpCallResult(
        is_error=True, content="Traceback at /srv/x", error={"code": "E", "message": "at /srv/x"}
    )
    result = registry(FakeClient(result=unsafe)).invoke("files", "lookup", {"q": "x"}, call_id="c1")
    assert result.status == "failed"
    assert (result.error.code, result.error.message) == (
        "MCP_TOOL_ERROR",
        "MCP tool reported an execution error",
    )
    assert result.content is None  # untrusted content is not copied
    safe = McpCallResult(
        is_error=True, error={"code": "NOT_FOUND", "message": "no such file", "stack": "x"}
    )
    result = registry(FakeClient(result=safe)).invoke("files", "lookup", {"q": "x"}, call_id="c1")
    assert result.error.model_dump() == {
        "code": "NOT_FOUND",
        "message": "no such file",
        "retryable": False,
    }


def test_is_error_must_be_a_bool() -> None:
    with pytest.raises(ValueError):
        McpCallResult.model_validate({"is_error": "yes"})


def test_as_tools_runs_through_a_tool_registry() -> None:
    client = FakeClient()
    mcp = registry(client)
    tools = mcp.as_tools("files", prefix="files_")
    reg = ToolRegistry(tools, sandbox=Sandbox(grants={"tool": ["files_*"]}))
    result = reg.call(ToolCall(id="c9", name="files_lookup", arguments={"q": "x"}))
    assert (result.content, result.call_id, result.source) == ("found", "c9", "files_lookup")
    assert client.tool_calls == [("lookup", {"q": "x"})]


def test_register_rules() -> None:
    mcp = McpRegistry()
    with pytest.raises(ToolError):
        mcp.register("", FakeClient())
    handle = mcp.register("a", FakeClient())
    with pytest.raises(ToolError):
        mcp.register("a", FakeClient())
    assert handle() is True and handle() is False and mcp.servers() == []


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"q": {"$ref": "http://127.0.0.1:9/evil.json"}}},
        {"type": "object", "properties": {"q": {"type": "strng"}}},
        {"type": "object", "properties": {"q": {"type": "string", "pattern": r"(a)\1"}}},
    ],
)
def test_an_unsafe_server_schema_is_refused_at_discovery(schema: Any) -> None:
    page = McpToolPage(tools=(McpToolInfo(name="bad", input_schema=schema),))
    with pytest.raises(ToolError) as info:
        registry(FakeClient([page])).discover("files")
    assert info.value.code == "MCP_INVALID_SCHEMA"


def test_a_server_pattern_is_checked_in_linear_time() -> None:
    import time

    schema = {"type": "object", "properties": {"q": {"type": "string", "pattern": "^(a+)+$"}}}
    client = FakeClient([McpToolPage(tools=(McpToolInfo(name="lookup", input_schema=schema),))])
    mcp = registry(client)
    mcp.discover("files")
    started = time.perf_counter()
    with pytest.raises(ToolError) as info:
        mcp.invoke("files", "lookup", {"q": "a" * 30 + "b"}, call_id="c1")
    assert info.value.code == "INVALID_ARGUMENTS" and time.perf_counter() - started < 1.0
