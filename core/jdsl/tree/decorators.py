"""Decorators: Repeat, Invert, Optional, OneShot, Timeout (reference jdsl-py §1.2)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from jdsl.tree.base import Node
from jdsl.tree.status import Status

if TYPE_CHECKING:
    from jdsl.tree.context import RunContext
    from jdsl.tree.nodes import AnyNode

__all__ = ["Decorator", "Invert", "OneShot", "Optional", "Repeat", "Timeout"]


class Decorator(Node):
    """A node with exactly one child (None only in an IR under construction)."""

    child: AnyNode | None = None

    def children_nodes(self) -> list[Node]:
        return [self.child] if self.child is not None else []

    def _child(self) -> Node:
        if self.child is None:
            raise ValueError(f"{self.label} has no child; give it one, e.g. {self.kind}(act(...))")
        return self.child


class Invert(Decorator):
    """Flip the child's status."""

    kind: Literal["invert"] = "invert"

    @property
    def label(self) -> str:
        return "invert"

    def _tick(self, ctx: RunContext) -> Status:
        return Status.FAILURE if self._child().tick(ctx) else Status.SUCCESS


class Optional(Decorator):
    """Run the child and succeed whatever it returned (py_trees' FailureIsSuccess)."""

    kind: Literal["optional"] = "optional"

    @property
    def label(self) -> str:
        return "optional"

    def _tick(self, ctx: RunContext) -> Status:
        self._child().tick(ctx)
        return Status.SUCCESS


class OneShot(Decorator):
    """Run the child at most once per run; later ticks replay its status (matters in loops).

    The status is kept in ``ctx.state``, so a new run (a new RunContext) runs the child again.
    """

    kind: Literal["oneshot"] = "oneshot"

    @property
    def label(self) -> str:
        return "oneshot"

    def _tick(self, ctx: RunContext) -> Status:
        key = ("oneshot", id(self))
        done = ctx.state.get(key)
        if done is None:
            done = ctx.state[key] = self._child().tick(ctx)
        return done  # type: ignore[no-any-return]


class Repeat(Decorator):
    """Do-while loop: up to ``max`` passes of the child.

    A child FAILURE ends the loop with FAILURE. After each pass ``until`` is ticked and its
    SUCCESS ends the loop with SUCCESS; ``until`` never satisfied -> FAILURE. Without
    ``until`` the child runs exactly ``max`` times, then SUCCESS.
    """

    kind: Literal["repeat"] = "repeat"
    until: AnyNode | None = None
    max: int = Field(default=3, ge=1, le=1000)

    def children_nodes(self) -> list[Node]:
        return [n for n in (self.child, self.until) if n is not None]

    @property
    def label(self) -> str:
        return f"repeat(max={self.max})"

    def _tick(self, ctx: RunContext) -> Status:
        child = self._child()
        for _ in range(self.max):
            if not child.tick(ctx):
                return Status.FAILURE
            if self.until is not None and self.until.tick(ctx):
                return Status.SUCCESS
        return Status.FAILURE if self.until is not None else Status.SUCCESS


class Timeout(Decorator):
    """FAILURE when the child has not finished within ``seconds``.

    The child runs on a worker thread. A child that overruns is abandoned, not killed (Python
    threads cannot be): it may keep running and writing in the background, so use this for
    idempotent work. Exceptions from the child propagate.
    """

    kind: Literal["timeout"] = "timeout"
    seconds: float = Field(default=30.0, gt=0)

    @property
    def label(self) -> str:
        return f"timeout({self.seconds}s)"

    def _tick(self, ctx: RunContext) -> Status:
        child = self._child()
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jdsl-timeout")
        future = pool.submit(child.tick, ctx)
        try:
            return future.result(timeout=self.seconds)
        except FutureTimeout:
            return Status.FAILURE
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
