"""A child-scoped view of a run, for a subtree that may be abandoned (``timeout``).

Python threads cannot be killed, so a ``timeout`` that gives up on its child leaves it running
on its worker thread. The child runs on a :class:`ScopedContext`: the same blackboard, bindings,
model and trace as the run, but every write, read record, trace event and failure goes through
a gate. Once :meth:`ScopedContext.abandon` returns, nothing the child does reaches the run any
more: its blackboard writes and trace events are dropped, its cancellation token reads
``cancelled`` (a React loop stops at its next check), and its next tool, predicate or model call
raises :class:`Abandoned` on the worker thread instead of running (tools already running finish
in the background; their results are discarded).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from jdsl.interaction.cancel import is_cancelled
from jdsl.tree.context import ContextWindow, RunContext, lookup

if TYPE_CHECKING:
    from jdsl.trace.events import TraceEvent
    from jdsl.tree.base import Node

__all__ = ["Abandoned", "ScopedContext"]


class Abandoned(Exception):
    """Raised on an abandoned subtree's thread to stop it at its next tool or model call.

    Never reaches the run: the ``timeout`` that abandoned the subtree has already returned.
    """


class _ScopeCancel:
    """The scope's cancellation token: cancelled when abandoned or when the run is."""

    def __init__(self, scope: ScopedContext, outer: Any) -> None:
        self.scope = scope
        self.outer = outer

    @property
    def cancelled(self) -> bool:
        return self.scope.abandoned or is_cancelled(self.outer)


class ScopedContext(RunContext):
    """The context of a subtree run on another thread; :meth:`abandon` cuts it off.

    Shares the parent's blackboard, state, bindings, model and trace; has its own
    ContextWindow (a copy: pushes and pops on the worker thread do not touch the parent's)
    and its own :attr:`failure` (the ``timeout`` copies it back when the child finishes).

    Args:
        parent: the context the subtree would have run on (itself possibly scoped).
    """

    def __init__(self, parent: RunContext) -> None:  # noqa: D107 - a view, not a new run
        self.__dict__.update(parent.__dict__)
        self.parent = parent
        self.window = ContextWindow(parent.window.fragments)
        self.failure = None
        self.cancel = _ScopeCancel(self, parent.cancel)
        self._gate = threading.RLock()
        self._cut = False
        outer_trace = parent.trace

        def trace(kind: str, payload: Any, parent: Any = None, actor: Any = None) -> int | None:
            with self._gate:
                if self.abandoned:
                    return None
                return outer_trace(kind, payload, parent, actor)

        self.trace = trace

    @property
    def abandoned(self) -> bool:  # type: ignore[override]
        """True once this scope or an enclosing one was abandoned."""
        return self._cut or self.parent.abandoned

    def abandon(self) -> None:
        """Cut the subtree off; waits for a write or event in progress, drops all later ones."""
        with self._gate:
            self._cut = True

    def check(self) -> None:
        """Raise :class:`Abandoned` when the subtree was abandoned (before an outside call)."""
        if self.abandoned:
            raise Abandoned("the timeout around this subtree fired; its run goes on without it")

    def emit(
        self,
        kind: str,
        payload: Any = None,
        *,
        actor: str | None = None,
        parent_event_id: str | None = None,
    ) -> TraceEvent | None:
        """The parent's :meth:`RunContext.emit`, or None once abandoned."""
        with self._gate:
            if self.abandoned:
                return None
            return self.parent.emit(kind, payload, actor=actor, parent_event_id=parent_event_id)

    def read(self, path: str, node: Node) -> Any:
        """The parent's :meth:`RunContext.read`; once abandoned, the value without a record."""
        with self._gate:
            if self.abandoned:
                return lookup(path, self.blackboard, node)
            return self.parent.read(path, node)

    def write(
        self,
        key: str,
        value: Any,
        node: Node,
        *,
        source: str | None = None,
        index: int | None = None,
    ) -> None:
        """The parent's :meth:`RunContext.write`; dropped once abandoned."""
        with self._gate:
            if not self.abandoned:
                self.parent.write(key, value, node, source=source, index=index)

    def require_model(self) -> Any:
        """The run's model (raises :class:`Abandoned` once abandoned)."""
        self.check()
        return super().require_model()
