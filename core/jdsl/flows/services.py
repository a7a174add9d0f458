"""Services: what the flows and the tree share for one application (docs/design.md §7).

Holds the model providers, the tool registry, the MCP registry, the sandbox, the output sink and
a concurrency limit. Each Services is its own instance: nothing is global, so two notebooks (or
two tests) can run side by side with different grants.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from typing import Any

from jdsl.errors import BindingError
from jdsl.interaction.mcp import McpRegistry
from jdsl.interaction.output import OutputSink
from jdsl.interaction.registry import ToolRegistry
from jdsl.interaction.sandbox import Sandbox
from jdsl.settings import Settings

__all__ = ["Services"]


class Services:
    """Shared services for flows and trees.

    Args:
        sandbox: the permissions (default: deny everything).
        tools: the tool registry (default: an empty one behind ``sandbox``).
        mcp: the MCP registry, or None when the application uses no MCP.
        output: where final outputs are delivered, or None.
        providers: named models (``{"default": model}``), anything with ``converse``.
        settings: behaviour settings (budgets and limits).
        concurrency: the most tool / MCP calls that may run at once (None: unlimited;
            default: ``settings.concurrency``).

    Example:
        >>> services = Services(sandbox=Sandbox(grants={"tool": ["*"]}), concurrency=4)
        >>> with services.slot():
        ...     pass
    """

    def __init__(
        self,
        *,
        sandbox: Sandbox | None = None,
        tools: ToolRegistry | None = None,
        mcp: McpRegistry | None = None,
        output: OutputSink | None = None,
        providers: Mapping[str, Any] | None = None,
        settings: Settings | None = None,
        concurrency: int | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.sandbox = sandbox or Sandbox()
        self.tools = tools if tools is not None else ToolRegistry(sandbox=self.sandbox)
        self.mcp = mcp
        self.output = output
        self.providers = dict(providers or {})
        limit = concurrency if concurrency is not None else self.settings.concurrency
        if limit is not None and limit < 1:
            raise ValueError(f"concurrency must be a positive integer, not {limit}")
        self.concurrency = limit
        self._slots = threading.BoundedSemaphore(limit) if limit else None

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one of the ``concurrency`` slots while the block runs (no-op when unlimited)."""
        if self._slots is None:
            yield
            return
        with self._slots:
            yield

    def provider(self, name: str | None = None) -> Any:
        """The model named ``name``; with no name, the only one registered.

        Raises:
            BindingError: no such provider, or no name given while 0 or several are registered.
        """
        names = sorted(self.providers)
        if name is not None and name not in self.providers:
            raise BindingError(
                f"no provider {name!r}; registered: {names}",
                name=name,
                kind="model",
                available=names,
            )
        if name is None and len(names) != 1:
            raise BindingError(
                f"name a provider: {len(names)} are registered {names}",
                kind="model",
                available=names,
            )
        if name is not None:
            return self.providers[name]
        return next(iter(self.providers.values()))
