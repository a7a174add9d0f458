from __future__ import annotations

import sys
from pathlib import Path

import pytest
from jdsl.errors import PermissionDenied
from jdsl.interaction import McpRegistry, Sandbox, ToolRegistry
from jdsl.providers.messages import ToolCall

pytest.importorskip("mcp")
from jdsl.interaction.mcp_sdk import connect_stdio  # noqa: E402

SERVER = str(Path(__file__).with_name("mcp_server.py"))


@pytest.fixture(scope="module")
def connection():
    with connect_stdio(sys.executable, [SERVER], timeout_s=30) as conn:
        yield conn


def test_discover_and_invoke_over_stdio(connection) -> None:
    mcp = McpRegistry({"shop": connection.client}, sandbox=Sandbox(grants={"mcp": ["shop"]}))
    caps = {c.name: c for c in mcp.discover("shop")}
    assert set(caps) == {"order_status", "add"}
    assert caps["add"].input_schema["required"] == ["a", "b"]
    ok = mcp.invoke("shop", "order_status", {"order_id": "W1"}, call_id="c1")
    assert (ok.status, ok.content, ok.source) == ("success", "pending", "shop:order_status")
    summed = mcp.invoke("shop", "add", {"a": 2, "b": 3}, call_id="c2")
    assert summed.content == "5"
    failed = mcp.invoke("shop", "order_status", {"order_id": "W9"}, call_id="c3")
    assert failed.status == "failed" and failed.error.code == "MCP_TOOL_ERROR"


def test_registered_tools_from_stdio(connection) -> None:
    mcp = McpRegistry({"shop": connection.client}, sandbox=Sandbox(grants={"mcp": ["shop"]}))
    reg = ToolRegistry(mcp.as_tools("shop"), sandbox=Sandbox(grants={"tool": ["*"]}))
    result = reg.call(ToolCall(id="c1", name="add", arguments={"a": 40, "b": 2}))
    assert result.content == "42"


def test_denied_stdio_server_is_not_contacted(connection) -> None:
    class Spy:
        def __getattr__(self, name):  # any use of the client fails the test
            raise AssertionError(f"client touched: {name}")

    mcp = McpRegistry({"shop": Spy()}, sandbox=Sandbox())
    with pytest.raises(PermissionDenied):
        mcp.discover("shop")


def test_adapter_works_inside_a_running_event_loop() -> None:
    """Jupyter runs an event loop in the main thread; the adapter must still work there."""
    import asyncio

    async def notebook_cell() -> str:
        with connect_stdio(sys.executable, [SERVER], timeout_s=30) as conn:
            mcp = McpRegistry({"shop": conn.client}, sandbox=Sandbox(grants={"mcp": ["shop"]}))
            return mcp.invoke("shop", "order_status", {"order_id": "W2"}, call_id="c1").content

    assert asyncio.run(notebook_cell()) == "delivered"
