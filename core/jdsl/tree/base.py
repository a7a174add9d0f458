"""The node base class: fields every node has, ``tick`` (tracing + scoped context), labels."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, PrivateAttr

from jdsl.errors import AuthoringError, preview
from jdsl.tree.status import Status

if TYPE_CHECKING:
    from jdsl.tree.context import RunContext
    from jdsl.tree.node_events import NodeEvents

__all__ = ["Node", "name_argument"]

_NOTED = "__jdsl_node__"


def name_argument(value: Any, builder: str, argument: str, expected: str) -> str:
    """``value`` when it is a non-empty str.

    Raises:
        AuthoringError: naming ``builder``, ``argument`` and ``expected`` (what to pass).
    """
    if isinstance(value, str) and value:
        return value
    raise AuthoringError(
        f"{builder}(): {argument} must be {expected}, got {preview(value)}",
        builder=builder,
        argument=argument,
    )


class Node(BaseModel):
    """A behavior tree node; the pydantic model is the node's Behavior IR.

    Attributes:
        kind: the discriminator (``"action"``, ``"sequence"``, ...).
        id: optional author id, unique in a tree; stable identity for compiled artifacts.
        context: system-prompt text pushed on the ContextWindow while this subtree runs (a
            guard, which asks no model, gives it as the words of its failure).

    Subclasses implement ``_tick(ctx) -> Status``; :meth:`tick` is never overridden.
    """

    model_config = ConfigDict(extra="forbid", protected_namespaces=(), validate_assignment=False)

    kind: str
    id: str | None = None
    context: str | None = None

    _runtime_id: str | None = PrivateAttr(default=None)
    leaf: ClassVar[bool] = False

    # -- structure -------------------------------------------------------------------------
    def children_nodes(self) -> list[Node]:
        """Traversal children, in order (a repeat: child, then until)."""
        return []

    def walk(self) -> Iterator[Node]:
        """This node and every node under it, pre-order, left to right."""
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children_nodes()))

    @property
    def effective_id(self) -> str | None:
        """The author id, else the structural id a run assigned (None before any run)."""
        if self.id:
            return self.id
        private = self.__pydantic_private__  # direct: pydantic's __getattr__ is slow
        return private.get("_runtime_id") if private else None

    @property
    def label(self) -> str:
        """A short human label, e.g. ``act(lookup) -> customer`` (docs/design.md appendix A)."""
        return self.kind

    # -- running ---------------------------------------------------------------------------
    def tick(self, ctx: RunContext) -> Status:
        """Run this node once: push ``context``, call ``_tick``, pop; trace when tracing.

        An exception raised inside gets a PEP 678 note naming the innermost node, then
        propagates unchanged.
        """
        if ctx.tracing:
            return self._traced_tick(ctx)
        if self.context is None:
            try:
                return self._tick(ctx)
            except BaseException as exc:
                self._note(exc, ctx)
                raise
        ctx.window.push(self.context)
        try:
            return self._tick(ctx)
        except BaseException as exc:
            self._note(exc, ctx)
            raise
        finally:
            ctx.window.pop()

    def _traced_tick(self, ctx: RunContext) -> Status:
        events = ctx.node_events.get(id(self)) or ctx.events_of(self)
        enter = ctx.trace("node.enter", events.enter)
        if self.context is not None:
            ctx.window.push(self.context)
        try:
            status = self._traced_body(ctx, events)
        except BaseException as exc:
            self._note(exc, ctx)
            ended = "cancelled" if isinstance(exc, KeyboardInterrupt) else "error"
            ctx.trace("node.exit", events.exit(ended), enter)
            raise
        finally:
            if self.context is not None:
                ctx.window.pop()
        ctx.trace(
            "node.exit", events.exits.get(status._value_) or events.exit(status._value_), enter
        )
        return status

    def _traced_body(self, ctx: RunContext, events: NodeEvents) -> Status:
        """What a traced tick runs between ``node.enter`` and ``node.exit``: ``_tick``, or a
        leaf's own traced path given the node's :class:`~jdsl.tree.node_events.NodeEvents`."""
        return self._tick(ctx)

    def _note(self, exc: BaseException, ctx: RunContext) -> None:
        """At the innermost node only: a PEP 678 note naming it, and ``ctx.failure``."""
        if isinstance(exc, Exception) and not getattr(exc, _NOTED, False):
            try:
                setattr(exc, _NOTED, True)
            except AttributeError:  # pragma: no cover - exceptions with __slots__
                return
            where = self.effective_id or self.kind
            exc.add_note(f"jdsl: raised in node {where!r} ({self.label})")
            ctx.fail(self, f"raised {type(exc).__name__}: {exc}")

    def _tick(self, ctx: RunContext) -> Status:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement _tick")

    def to_ir(self) -> dict[str, Any]:
        """This node's IR dict (``model_dump(mode="json", exclude_none=True)``)."""
        return self.model_dump(mode="json", exclude_none=True)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.label}>"
