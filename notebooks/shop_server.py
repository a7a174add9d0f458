
from mcp.server.fastmcp import FastMCP

server = FastMCP("shop")
STATUS = {"W1": "pending", "W2": "delivered"}


@server.tool()
def order_status(order_id: str) -> str:
    """Look up the status of an order by its id."""
    return STATUS.get(order_id, "unknown")


if __name__ == "__main__":
    server.run("stdio")
