"""Decorators: Repeat, Invert, Optional, OneShot, Timeout (docs/design.md appendix A)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import Field

from jdsl.tree.base import Node
from jdsl.tree.scope import ScopedContext
from jdsl.tree.status import Status

if TYPE_CHECKING:
    from jdsl.tree.context import RunContext
    from jdsl.tree.nodes import AnyNode

__all__ = ["MAX_TIMEOUT_SECONDS", "Decorator", "Invert", "OneShot", "Optional", "Repeat", "Timeout"]


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
    """Flip the child's status (a child FAILURE is recovered: ``ctx.failure`` is cleared)."""

    kind: Literal["invert"] = "invert"

    def _tick(self, ctx: RunContext) -> Status:
        if self._child().tick(ctx):
            return ctx.fail(self, "its child succeeded (invert turns SUCCESS into FAILURE)")
        ctx.failure = None
        return Status.SUCCESS


class Optional(Decorator):
    """Run the child and succeed whatever it returned (py_trees' FailureIsSuccess)."""

    kind: Literal["optional"] = "optional"

    def _tick(self, ctx: RunContext) -> Status:
        if not self._child().tick(ctx):
            ctx.failure = None
        return Status.SUCCESS


class OneShot(Decorator):
    """Run the child at most once per run; later ticks replay its status (matters in loops).

    The status (and its ``ctx.failure``) is kept in ``ctx.state``, so a new run (a new
    RunContext) runs the child again.
    """

    kind: Literal["oneshot"] = "oneshot"

    def _tick(self, ctx: RunContext) -> Status:
        key = ("oneshot", id(self))
        done = ctx.state.get(key)
        if done is None:
            status = self._child().tick(ctx)
            done = ctx.state[key] = (status, None if status else ctx.failure)
        status, failure = done
        if not status:
            ctx.failure = failure
        return status  # type: ignore[no-any-return]


class Repeat(Decorator):
    """Do-while loop: up to ``max`` passes of the child.

    A child FAILURE ends the loop with FAILURE. After each pass ``until`` is ticked and its
    SUCCESS ends the loop with SUCCESS; ``until`` never satisfied -> FAILURE. Without
    ``until`` the child runs exactly ``max`` times, then SUCCESS. When ``until`` is never
    satisfied, ``ctx.failure`` is its last failure.
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
                ctx.failure = None
                return Status.SUCCESS
        if self.until is None:
            return Status.SUCCESS
        if ctx.failure is None:
            return ctx.fail(self, f"until did not succeed in {self.max} passes")
        return Status.FAILURE


MAX_TIMEOUT_SECONDS: Final = 365 * 24 * 3600.0
"""The longest ``seconds`` a timeout may declare (one year): ``1e999`` is refused, not run as
infinity (``threading.Event.wait`` cannot wait that long, and JSON cannot print it)."""


class Timeout(Decorator):
    """FAILURE when the child has not finished within ``seconds``.

    The child runs on a daemon worker thread, on a :class:`~jdsl.tree.scope.ScopedContext`.
    A child that overruns is abandoned, not killed (Python threads cannot be): from the moment
    the timeout fires, its blackboard writes, trace events and failure are discarded, its
    cancellation token reads cancelled, and its next tool, predicate or model call is not made.
    A tool call already in progress finishes in the background and its result is dropped, so
    side effects it has are the tool's to make idempotent. ``ctx.failure`` names the timeout.
    Exceptions from a child that finishes in time propagate.
    """

    kind: Literal["timeout"] = "timeout"
    seconds: float = Field(default=30.0, gt=0, le=MAX_TIMEOUT_SECONDS, allow_inf_nan=False)

    @property
    def label(self) -> str:
        return f"timeout({self.seconds}s)"

    def _tick(self, ctx: RunContext) -> Status:
        child = self._child()
        scope = ScopedContext(ctx)
        done = threading.Event()
        outcome: dict[str, Any] = {}

        def work() -> None:
            try:
                outcome["status"] = child.tick(scope)
            except BaseException as exc:  # noqa: BLE001 - handed to the ticking thread
                outcome["error"] = exc
            finally:
                done.set()

        worker = threading.Thread(target=work, name=f"jdsl-timeout-{self.label}", daemon=True)
        worker.start()
        try:
            finished = done.wait(self.seconds)
        except BaseException:  # e.g. KeyboardInterrupt while waiting: the run is over
            scope.abandon()
            raise
        if not finished:
            scope.abandon()
            if not done.is_set():  # it may have finished between the wait and the cut
                return ctx.fail(self, f"its child did not finish within {self.seconds}s")
        if "error" in outcome:
            raise outcome["error"]
        ctx.failure = scope.failure
        return outcome["status"]  # type: ignore[no-any-return]
