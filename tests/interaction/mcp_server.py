"""A tiny MCP server for tests, spoken to over stdio (run as a script)."""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP

server = FastMCP("jdsl-test")

ORDERS = {"W1": "pending", "W2": "delivered"}


@server.tool()
def order_status(order_id: str) -> str:
    """Look up the status of an order by its id."""
    if order_id not in ORDERS:
        raise ValueError(f"no order {order_id}")
    return ORDERS[order_id]


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if __name__ == "__main__":
    server.run("stdio")
