"""Adapter for the official ``mcp`` SDK (the ``mcp`` extra): a synchronous :class:`McpClient`.

The SDK is async. jdsl core is synchronous, so the SDK session lives on one background
event-loop thread (:class:`LoopThread`) and each call waits for its result there. This works
inside Jupyter, whose own loop is already running in the main thread.

Example:
    >>> with connect_stdio("python", ["server.py"]) as conn:       # doctest: +SKIP
    ...     mcp = McpRegistry({"files": conn.client}, sandbox=Sandbox(grants={"mcp": ["files"]}))
    ...     mcp.discover("files")
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine, Mapping, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from typing import IO, Any, TextIO, TypeVar, cast

from jdsl.errors import MissingDependencyError, ToolError
from jdsl.interaction.mcp import McpCallResult, McpToolInfo, McpToolPage
from jdsl.interaction.results import Reference

__all__ = ["LoopThread", "SdkMcpClient", "StdioConnection", "connect_stdio"]

T = TypeVar("T")


class LoopThread:
    """An asyncio event loop running forever on one daemon thread."""

    def __init__(self, name: str = "jdsl-mcp-loop") -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout_s: float | None = None) -> T:
        """Run ``coro`` on the loop thread and wait for its result.

        Raises:
            ToolError: ``MCP_TIMEOUT`` when it takes longer than ``timeout_s`` (it is cancelled).
        """
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout_s)
        except FutureTimeout:
            future.cancel()
            raise ToolError(
                f"MCP call took longer than {timeout_s} s", code="MCP_TIMEOUT"
            ) from None

    def close(self) -> None:
        """Stop the loop and join the thread."""
        if self._loop.is_closed():
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()


def _content(parts: Sequence[Any]) -> tuple[Any, tuple[Reference, ...]]:
    refs = tuple(
        Reference(uri=str(p.uri), title=getattr(p, "name", None))
        for p in parts
        if getattr(p, "type", "") == "resource_link"
    )
    others = [p for p in parts if getattr(p, "type", "") != "resource_link"]
    if all(getattr(p, "type", "") == "text" for p in others):
        return ("\n".join(p.text for p in others) if others else None), refs
    return [p.model_dump(mode="json", exclude_none=True) for p in others], refs


class SdkMcpClient:
    """An :class:`jdsl.interaction.McpClient` over an SDK ``ClientSession``.

    Args:
        session: an initialized ``mcp.ClientSession`` bound to ``loop``'s event loop.
        loop: the thread running that loop.
        timeout_s: per-request limit, seconds.
    """

    def __init__(self, session: Any, loop: LoopThread, *, timeout_s: float = 30.0) -> None:
        self._session = session
        self._loop = loop
        self.timeout_s = timeout_s

    def list_tools(self, cursor: str | None = None) -> McpToolPage:
        from mcp.types import PaginatedRequestParams

        params = PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        page = self._loop.run(self._session.list_tools(params=params), self.timeout_s)
        tools = tuple(
            McpToolInfo(name=t.name, description=t.description or "", input_schema=t.inputSchema)
            for t in page.tools
        )
        return McpToolPage(tools=tools, next_cursor=page.nextCursor)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> McpCallResult:
        result = self._loop.run(self._session.call_tool(name, arguments), self.timeout_s)
        content, refs = _content(result.content)
        return McpCallResult(
            content=content,
            structured_content=result.structuredContent,
            references=refs,
            is_error=bool(result.isError),
        )


class StdioConnection:
    """An MCP server started as a child process and spoken to over stdio.

    Use as a context manager, or call :meth:`close`. ``client`` is the :class:`SdkMcpClient`.
    """

    def __init__(
        self, params: Any, *, loop: LoopThread | None, timeout_s: float, errlog: IO[str] | None
    ) -> None:
        self._owns_loop = loop is None
        self._loop = loop or LoopThread()
        self._errlog = errlog or open(os.devnull, "w")  # noqa: SIM115 - closed in close()
        self._owns_errlog = errlog is None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Future[None] | None = None
        try:
            session = self._loop.run(self._open(params), timeout_s)
        except BaseException:
            self.close()
            raise
        self.client = SdkMcpClient(session, self._loop, timeout_s=timeout_s)

    async def _open(self, params: Any) -> Any:
        self._stop = asyncio.Event()
        started: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._task = asyncio.ensure_future(self._hold(params, started))
        return await started

    async def _hold(self, params: Any, started: asyncio.Future[Any]) -> None:
        from mcp import ClientSession
        from mcp.client.stdio import stdio_client

        assert self._stop is not None
        try:
            async with stdio_client(params, errlog=cast(TextIO, self._errlog)) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    started.set_result(session)
                    await self._stop.wait()
        except BaseException as exc:
            if not started.done():
                started.set_exception(exc)
            elif not isinstance(exc, asyncio.CancelledError):
                raise

    async def _shutdown(self) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._task is not None:
            await asyncio.wait({self._task}, timeout=10)

    def close(self) -> None:
        """Stop the session and the server process (and the loop thread if it owns it)."""
        try:
            self._loop.run(self._shutdown(), 15)
        finally:
            if self._owns_loop:
                self._loop.close()
            if self._owns_errlog:
                self._errlog.close()

    def __enter__(self) -> StdioConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect_stdio(
    command: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    loop: LoopThread | None = None,
    timeout_s: float = 30.0,
    errlog: IO[str] | None = None,
) -> StdioConnection:
    """Start an MCP server process and open an initialized session to it.

    Args:
        command, args: the server process (no shell).
        env: its environment (None: the SDK's safe default subset).
        cwd: its working directory.
        loop: a shared :class:`LoopThread` (default: a new one owned by the connection).
        timeout_s: limit for startup and for each request, seconds.
        errlog: where the server's stderr goes (default: discarded).

    Raises:
        MissingDependencyError: the ``mcp`` extra is not installed.
        ToolError: ``MCP_TIMEOUT`` when the server does not start in time.
    """
    try:
        from mcp.client.stdio import StdioServerParameters
    except ImportError as exc:
        raise MissingDependencyError("mcp", "mcp") from exc
    params = StdioServerParameters(
        command=command, args=list(args), env=dict(env) if env is not None else None, cwd=cwd
    )
    return StdioConnection(params, loop=loop, timeout_s=timeout_s, errlog=errlog)
