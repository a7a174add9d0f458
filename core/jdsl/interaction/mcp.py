"""McpRegistry: MCP servers behind a structural client protocol (reference ditto §4).

jdsl does not own MCP connections: the application supplies one :class:`McpClient` per server
name (for the official SDK, :func:`jdsl.interaction.mcp_sdk.connect_stdio` or
:class:`~jdsl.interaction.mcp_sdk.SdkMcpClient`). Every operation needs the ``mcp`` grant of the
server; a denied server is refused before its client is touched.

Discovery pages through ``list_tools(cursor)`` with a page limit (default 100) and a
capability limit (default 1000); a repeated cursor or an invalid ``input_schema`` is an error.
An invoke is validated before the client is touched (nonempty server, call id and name; the
arguments a JSON object, checked against the discovered schema when known). A result with
``is_error`` becomes ``failed``, with the fixed ``MCP_TOOL_ERROR`` unless the client gave a
safe error, so untrusted tool text never becomes diagnostics.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from jdsl.errors import JdslError, ToolError
from jdsl.interaction.registry import RegisteredTool, ToolContext
from jdsl.interaction.results import (
    Reference,
    ResultError,
    ToolResult,
    check_error,
    check_json,
    validate_result,
)
from jdsl.interaction.sandbox import Sandbox
from jdsl.interaction.schemas import UnsafeSchemaError, safe_validator
from jdsl.interaction.tools import HOST_NAME

__all__ = [
    "McpCallResult",
    "McpCapability",
    "McpClient",
    "McpRegistry",
    "McpToolInfo",
    "McpToolPage",
]

MCP_TOOL_ERROR = ResultError(code="MCP_TOOL_ERROR", message="MCP tool reported an execution error")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class McpToolInfo(_Model):
    """One tool a server lists."""

    name: str
    description: str = ""
    input_schema: Any = None


class McpToolPage(_Model):
    """One page of ``list_tools``; ``next_cursor`` is None on the last page."""

    tools: tuple[McpToolInfo, ...] = ()
    next_cursor: str | None = None


class McpCallResult(_Model):
    """A neutral MCP tool result (the adapter maps the SDK's ``CallToolResult`` to it)."""

    content: Any = None
    structured_content: Any = None
    references: tuple[Reference, ...] = ()
    is_error: StrictBool = False
    error: dict[str, Any] | None = None


class McpCapability(_Model):
    """A discovered tool of one server."""

    server: str
    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=dict)


class McpClient(Protocol):
    """What the registry needs from an MCP connection (synchronous)."""

    def list_tools(self, cursor: str | None = None) -> McpToolPage: ...

    def call_tool(self, name: str, arguments: dict[str, Any]) -> McpCallResult: ...


def _fail(message: str, *, server: str = "", code: str = "INVALID_MCP_REQUEST") -> ToolError:
    return ToolError(message, tool=server, code=code)


class McpRegistry:
    """Named MCP clients behind the sandbox's ``mcp`` grants.

    Args:
        clients: ``{server name: client}`` to register now.
        sandbox: the permissions (deny by default).
        max_pages: discovery page limit per server.
        max_capabilities: discovery capability limit per request.
    """

    def __init__(
        self,
        clients: Mapping[str, McpClient] | None = None,
        *,
        sandbox: Sandbox | None = None,
        max_pages: int = 100,
        max_capabilities: int = 1000,
    ) -> None:
        if max_pages < 1 or max_capabilities < 1:
            raise ValueError("max_pages and max_capabilities must be positive integers")
        self.sandbox = sandbox if sandbox is not None else Sandbox()
        self.max_pages = max_pages
        self.max_capabilities = max_capabilities
        self._clients: dict[str, McpClient] = {}
        self._schemas: dict[tuple[str, str], dict[str, Any]] = {}
        self._validators: dict[tuple[str, str], Any] = {}  # safe_validator of each schema
        for server, client in (clients or {}).items():
            self.register(server, client)

    def register(self, server: str, client: McpClient) -> Any:
        """Add ``client`` as ``server``; returns a handle that removes it (True once)."""
        if not isinstance(server, str) or not server.strip():
            raise _fail("an MCP server needs a nonempty name")
        if server in self._clients:
            raise _fail(f"MCP server {server!r} is already registered", server=server)
        self._clients[server] = client

        def unregister() -> bool:
            if self._clients.get(server) is not client:
                return False
            del self._clients[server]
            return True

        return unregister

    def servers(self) -> list[str]:
        """Registered server names, sorted."""
        return sorted(self._clients)

    def _client(self, server: str) -> McpClient:
        self.sandbox.check("mcp", server)
        if server not in self._clients:
            raise _fail(
                f"no MCP server named {server!r}; registered: {self.servers()}",
                server=server,
                code="UNKNOWN_MCP_SERVER",
            )
        return self._clients[server]

    def discover(self, server: str | None = None) -> list[McpCapability]:
        """Tools of ``server`` (or of every server), paging through cursors.

        Every named server is permission-checked before any client is contacted.

        Raises:
            PermissionDenied: a server without an ``mcp`` grant (never silently skipped).
            ToolError: ``MCP_DISCOVERY_LIMIT``, ``MCP_REPEATED_CURSOR``, ``MCP_INVALID_SCHEMA``.
        """
        names = [server] if server is not None else self.servers()
        clients = [(name, self._client(name)) for name in names]
        found: list[McpCapability] = []
        for name, client in clients:
            found.extend(self._discover_one(name, client, len(found)))
        return found

    def _discover_one(self, server: str, client: McpClient, seen: int) -> list[McpCapability]:
        found: list[McpCapability] = []
        cursors: set[str] = set()
        cursor: str | None = None
        for _ in range(self.max_pages):
            page = McpToolPage.model_validate(client.list_tools(cursor))
            for info in page.tools:
                found.append(self._capability(server, info))
                if seen + len(found) > self.max_capabilities:
                    raise _fail(
                        f"MCP server {server!r} lists more than {self.max_capabilities} "
                        "tools; raise max_capabilities",
                        server=server,
                        code="MCP_DISCOVERY_LIMIT",
                    )
            cursor = page.next_cursor
            if cursor is None:
                return found
            if cursor in cursors:
                raise _fail(
                    f"MCP server {server!r} repeated cursor {cursor[:40]!r}",
                    server=server,
                    code="MCP_REPEATED_CURSOR",
                )
            cursors.add(cursor)
        raise _fail(
            f"MCP server {server!r} has more than {self.max_pages} pages of tools; raise max_pages",
            server=server,
            code="MCP_DISCOVERY_LIMIT",
        )

    def _capability(self, server: str, info: McpToolInfo) -> McpCapability:
        schema = info.input_schema
        if not isinstance(schema, dict) or schema.get("type", "object") != "object":
            raise _fail(
                f"MCP tool {server}:{info.name} has no object input_schema",
                server=server,
                code="MCP_INVALID_SCHEMA",
            )
        check_json(schema, where="input_schema", tool=f"{server}:{info.name}")
        try:
            self._validators[(server, info.name)] = safe_validator(schema)
        except UnsafeSchemaError as exc:
            raise _fail(
                f"MCP tool {server}:{info.name}: {exc}"[:400],
                server=server,
                code="MCP_INVALID_SCHEMA",
            ) from None
        self._schemas[(server, info.name)] = schema
        return McpCapability(
            server=server, name=info.name, description=info.description, input_schema=schema
        )

    def invoke(self, server: str, name: str, arguments: Any, *, call_id: str) -> ToolResult:
        """Call tool ``name`` of ``server``; the result's ``source`` is ``"server:name"``.

        Raises:
            ToolError: ``INVALID_MCP_REQUEST`` (empty server/name/id, arguments not a JSON
                object), ``INVALID_ARGUMENTS`` (against the discovered schema),
                ``UNKNOWN_MCP_SERVER``, ``INVALID_RESULT``; all before the client is touched
                except the last.
            PermissionDenied: no ``mcp`` grant for ``server``.
        """
        for label, value in (("server", server), ("tool name", name), ("call id", call_id)):
            if not isinstance(value, str) or not value:
                raise _fail(f"an MCP invoke needs a nonempty {label}", server=str(server))
        if not isinstance(arguments, dict):
            raise _fail(
                f"arguments for {server}:{name} must be a JSON object, not "
                f"{type(arguments).__name__}",
                server=server,
            )
        check_json(arguments, where="arguments", tool=f"{server}:{name}")
        client = self._client(server)
        validator = self._validators.get((server, name))
        if validator is not None:
            from jsonschema.exceptions import best_match  # lazy, see registry.py

            error = best_match(validator.iter_errors(arguments))
            if error is not None:
                raise _fail(
                    f"invalid arguments for {server}:{name}: {error.message}"[:400],
                    server=server,
                    code="INVALID_ARGUMENTS",
                )
        raw = McpCallResult.model_validate(client.call_tool(name, arguments))
        return validate_result(
            _to_result(raw, f"{server}:{name}", call_id), tool=f"{server}:{name}"
        )

    def as_tools(self, server: str, *, prefix: str = "") -> list[RegisteredTool]:
        """Discover ``server`` and wrap each tool as a :class:`RegisteredTool` named
        ``prefix + tool`` (for a :class:`ToolRegistry` or a tree's bindings)."""
        tools = []
        for cap in self.discover(server):
            host = prefix + cap.name
            if not HOST_NAME.match(host):
                raise _fail(
                    f"MCP tool {cap.name!r} gives host name {host!r}, which is not "
                    "1-64 characters of [A-Za-z0-9_-]; choose another prefix",
                    server=server,
                )
            tools.append(
                RegisteredTool(
                    host,
                    cap.description,
                    cap.input_schema,
                    self._executor(server, cap.name),
                    effects=("mcp",),
                )
            )
        return tools

    def _executor(self, server: str, name: str) -> Any:
        def execute(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
            return self.invoke(server, name, arguments, call_id=context.call_id)

        return execute


def _to_result(raw: McpCallResult, source: str, call_id: str) -> ToolResult:
    common: dict[str, Any] = {"call_id": call_id, "source": source, "references": raw.references}
    if not raw.is_error:
        content = raw.content if raw.content is not None or raw.structured_content else ""
        return ToolResult(content=content, structured_content=raw.structured_content, **common)
    error = MCP_TOOL_ERROR
    if raw.error is not None:
        try:
            error = check_error(ResultError.model_validate(raw.error), tool=source)
        except (JdslError, ValueError):
            error = MCP_TOOL_ERROR
    return ToolResult(status="failed", error=error, **common)
