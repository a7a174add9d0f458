"""Composites: Sequence (AND) and Selector (OR)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from jdsl.tree.base import Node
from jdsl.tree.status import Status

if TYPE_CHECKING:
    from jdsl.tree.context import RunContext
    from jdsl.tree.nodes import AnyNode

__all__ = ["Selector", "Sequence"]

_SUCCESS = Status.SUCCESS
_FAILURE = Status.FAILURE


class _Composite(Node):
    """A node with an ordered list of children (Sequence, Selector)."""

    children: list[AnyNode] = Field(default_factory=list)

    def children_nodes(self) -> list[Node]:
        return list(self.children)


class Sequence(_Composite):
    """Behavior-tree AND: tick children in order; FAILURE at the first failure, else SUCCESS.

    A failure after the first child succeeded marks the run's failure as *under way*
    (``ctx.under_way``): a selector keeps it over a later alternative's. An empty sequence
    succeeds.
    """

    kind: Literal["sequence"] = "sequence"

    @property
    def label(self) -> str:
        return "seq"

    def _tick(self, ctx: RunContext) -> Status:
        for i, child in enumerate(self.children):
            if child.tick(ctx) is _FAILURE:
                ctx.under_way = ctx.under_way or i > 0
                return _FAILURE
        return _SUCCESS


class Selector(_Composite):
    """Behavior-tree OR: the first child that succeeds wins; FAILURE when none does.

    A child that succeeds recovers the failures before it (``ctx.failure`` is cleared); when
    none does, ``ctx.failure`` is that of the last child that was under way (a sequence that
    failed after its first child succeeded: the alternative its first child selected), else
    the last child's. An empty selector fails.
    """

    kind: Literal["selector"] = "selector"

    @property
    def label(self) -> str:
        return "sel"

    def _tick(self, ctx: RunContext) -> Status:
        kept = None
        for child in self.children:
            ctx.under_way = False
            if child.tick(ctx) is _SUCCESS:
                ctx.failure = None
                return _SUCCESS
            if ctx.under_way:
                kept = ctx.failure
        if kept is not None:
            ctx.failure, ctx.under_way = kept, True
        return _FAILURE if self.children else ctx.fail(self, "the selector has no children")
