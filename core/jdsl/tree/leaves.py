"""Deterministic leaves: Action (call a tool), Check, Guard and GuardCall (conditions)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import Field, PrivateAttr, field_validator

from jdsl.errors import JdslError, ToolError, ValidationError
from jdsl.expr import (
    MAX_EXPRESSION_DEPTH,
    MISSING,
    describe,
    evaluate,
    preview,
    resolve_path,
)
from jdsl.trace.shared import Filled
from jdsl.trace.values import jsonable
from jdsl.tree.base import Node, name_argument
from jdsl.tree.context import unbound_error
from jdsl.tree.scope import Abandoned
from jdsl.tree.status import Status

if TYPE_CHECKING:
    from jdsl.tree.context import RunContext
    from jdsl.tree.node_events import NodeEvents

__all__ = [
    "RETURNED_FAILURE",
    "Action",
    "Check",
    "Guard",
    "GuardCall",
    "lenient_equal",
    "resolve_args",
    "typed_equal",
]

RETURNED_FAILURE = "Status.FAILURE"
"""``error_type`` of the ``tool.call.failed`` event of a tool that returned ``Status.FAILURE``."""

ArgSpec = dict[str, Any]
"""``{"ref": path}`` or ``{"const": value}``."""


def resolve_args(args: dict[str, ArgSpec], ctx: RunContext, node: Node) -> dict[str, Any]:
    """Resolve ``{"ref": path}`` / ``{"const": value}`` argument specs to keyword arguments."""
    kwargs: dict[str, Any] = {}
    for name, spec in args.items():
        kwargs[name] = ctx.read(spec["ref"], node) if "ref" in spec else spec.get("const")
    return kwargs


class _Bound(Node):
    """A leaf calling a callable bound by name (the run's bindings first, then its own)."""

    _fn: Callable[..., Any] | None = PrivateAttr(default=None)

    def _bound(self, ctx: RunContext, kind: str, name: str) -> Callable[..., Any]:
        if ctx.abandoned:
            raise Abandoned(f"{self.label} is not called: its timeout fired")
        table = ctx.bindings.tools if kind == "tool" else ctx.bindings.predicates
        fn = table.get(name) or self._fn
        if fn is None:
            raise unbound_error(kind, name, table)
        return fn

    def _note_arguments(
        self, exc: TypeError, fn: Callable[..., Any], kwargs: dict[str, Any]
    ) -> None:
        """Add a PEP 678 note when ``kwargs`` do not fit ``fn``'s parameters (not otherwise)."""
        try:
            signature = inspect.signature(getattr(fn, "fn", fn))
            signature.bind(**kwargs)
        except TypeError:
            name = getattr(self, "tool", None) or getattr(self, "predicate", "?")
            given = ", ".join(f"{key}=..." for key in kwargs)
            empty = inspect.Parameter.empty
            bare = signature.replace(
                parameters=[p.replace(annotation=empty) for p in signature.parameters.values()],
                return_annotation=empty,
            )
            exc.add_note(
                f"jdsl: {self.label} called {name}({given}) but its parameters are "
                f"{name}{bare}; make the node's argument names match them"
            )
        except ValueError:  # no signature to compare against (a builtin)
            return


class Action(_Bound):
    """Call a tool with resolved arguments.

    Return rules (seed): an exception is traced as ``tool.call.failed`` and re-raised (a
    ``TypeError`` from arguments that do not fit the tool gets a note naming its parameters);
    a returned :class:`Status` is the node's status (FAILURE sets ``ctx.failure`` and is traced
    as ``tool.call.failed`` with ``error_type`` ``"Status.FAILURE"``); any other value succeeds
    and is written under ``store`` when set.

    With ``on_error="fail"`` (what the compiler writes where recorded evidence shows a
    recovery) an exception the tool raises is traced the same way and becomes the node's
    FAILURE, which a parent selector recovers from. jdsl's own errors (an unbound name, a
    missing ref, a denied permission) still propagate; a :class:`~jdsl.errors.ToolError` is a
    tool's failure and does not.

    Attributes:
        tool: the bound tool name.
        args: ``{param: {"ref": path} | {"const": value}}`` (keyword arguments only).
        store: the blackboard key for the result, or None.
        on_error: None (an exception propagates, the seed's rule) or ``"fail"``.
    """

    kind: Literal["action"] = "action"
    tool: str
    args: dict[str, ArgSpec] = Field(default_factory=dict)
    store: str | None = None
    on_error: Literal["fail"] | None = None

    leaf = True

    def __rshift__(self, key: str) -> Action:
        """``act(...) >> "key"`` stores the result under ``key`` (same as ``store``).

        Raises:
            AuthoringError: ``key`` is not a non-empty str.
        """
        self.store = name_argument(key, "store", "key", "a blackboard key, a non-empty str")
        return self

    @property
    def label(self) -> str:
        return f"act({self.tool})" + (f" -> {self.store}" if self.store else "")

    def _traced_body(self, ctx: RunContext, events: NodeEvents) -> Status:
        return self._tick(ctx, events)

    def _tick(self, ctx: RunContext, events: NodeEvents | None = None) -> Status:
        """The one tick body; with ``events`` (traced) it records ``tool.call.started`` and
        ``.completed`` / ``.failed`` around the call."""
        if events is None and ctx.tracing:
            events = ctx.events_of(self)
        fn = self._bound(ctx, "tool", self.tool)
        kwargs = resolve_args(self.args, ctx, self) if self.args else {}
        started = None if events is None else self._trace_started(ctx, events, kwargs)
        try:
            result = fn(**kwargs)
        except Exception as exc:
            if isinstance(exc, TypeError):
                self._note_arguments(exc, fn, kwargs)
            if events is not None:
                self._trace_raised(ctx, events, exc, started)
            if not self._recovers(exc):
                raise
            return self._raised(ctx, exc)
        if events is not None:
            self._trace_result(ctx, events, result, started)
        return self._outcome(ctx, result)

    def _recovers(self, exc: Exception) -> bool:
        """Whether ``on_error="fail"`` turns ``exc`` into FAILURE (a tool's own failure)."""
        return self.on_error == "fail" and (isinstance(exc, ToolError)
                                            or not isinstance(exc, JdslError))  # fmt: skip

    def _raised(self, ctx: RunContext, exc: Exception) -> Status:
        return ctx.fail(self, f"tool {self.tool} raised {type(exc).__name__}: {exc}")

    def _outcome(self, ctx: RunContext, result: Any) -> Status:
        """The return rules: a Status is the node's status; anything else succeeds (stored)."""
        if type(result) is Status:  # an Enum with members has no subclasses
            if result is Status.FAILURE:
                return ctx.fail(self, f"tool {self.tool} returned Status.FAILURE")
            return result
        if self.store is not None:
            ctx.write(self.store, result, self)
        return Status.SUCCESS

    def _trace_started(
        self, ctx: RunContext, events: NodeEvents, kwargs: dict[str, Any]
    ) -> int | None:
        calling = (events.tool or events.tool_call(self.tool, self.store))[0]
        return ctx.trace(
            "tool.call.started", Filled(calling, jsonable(kwargs)) if kwargs else calling.empty
        )

    def _trace_raised(
        self, ctx: RunContext, events: NodeEvents, exc: Exception, started: int | None
    ) -> None:
        ctx.trace("tool.call.failed", {
            "node_id": events.node_id, "store": self.store,
            "tool": {"host_name": self.tool, "logical_id": None},
            "error": str(exc), "error_type": type(exc).__name__,
        }, started)  # fmt: skip

    def _trace_result(
        self, ctx: RunContext, events: NodeEvents, result: Any, started: int | None
    ) -> None:
        if result is Status.FAILURE:
            node_id, store, name = events.node_id, self.store, self.tool
            returned = events.constant("tool.call.failed", lambda: {
                "node_id": node_id, "store": store, "tool": {"host_name": name, "logical_id": None},
                "error": f"{name} returned Status.FAILURE", "error_type": RETURNED_FAILURE,
                "result": Status.FAILURE.value,
            })  # fmt: skip
            ctx.trace("tool.call.failed", returned, started)
            return
        completed = (events.tool or events.tool_call(self.tool, self.store))[1]
        ctx.trace(
            "tool.call.completed",
            completed.empty if result is None else Filled(completed, jsonable(result)),
            started,
        )


def lenient_equal(value: Any, expected: Any) -> bool:
    """Check's comparison: strings match after strip, punctuation strip, strip, casefold.

    Non-strings compare with ``==`` (so ``2 != "2"``), except that a bool never equals a
    number, at any depth of lists and dicts (``True != 1``, ``[0] != [False]``), as in lineage.
    Reference docs/design.md appendix A / Appendix A.
    """
    if isinstance(value, str) and isinstance(expected, str):
        return _norm(value) == _norm(expected)
    return typed_equal(value, expected)


def typed_equal(a: Any, b: Any) -> bool:
    """``a == b`` at any depth, except that a bool never equals a number (``True != 1``,
    ``[0] != [False]``); ints equal equal floats. Also how replay and held-out validation
    compare recorded values."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(map(typed_equal, a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(typed_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _norm(text: str) -> str:
    return text.strip().strip(".!?,;:\"'").strip().casefold()


def _shown(value: Any) -> str:
    """``repr(value)``, or its :func:`~jdsl.errors.preview` when Python cannot make the repr
    (an int of over 4,300 digits, a structure nested too deep)."""
    try:
        return repr(value)
    except (ValueError, RecursionError):
        return preview(value)


class Check(Node):
    """SUCCESS iff the blackboard value at ``key`` matches ``equals`` (:func:`lenient_equal`).

    A missing key reads as None.
    """

    kind: Literal["check"] = "check"
    key: str
    equals: Any = None

    leaf = True

    @property
    def label(self) -> str:
        return f"check({self.key} == {_shown(self.equals)})"

    def _tick(self, ctx: RunContext) -> Status:
        board = ctx.blackboard
        value = board.get(self.key)
        if self.key not in board:
            found = resolve_path(self.key, board)
            value = None if found is MISSING else found
        result = lenient_equal(value, self.equals)
        if not result:
            shown = f"{self.key} = {preview(value)}" if value is not None else f"{self.key} is None"
            ctx.fail(self, f"check {self.key} == {_shown(self.equals)} was false ({shown})")
        if ctx.tracing:
            ctx.trace(
                "guard.evaluated",
                {
                    "node_id": ctx.names(self)[0],
                    "type": "check",
                    "expression": {"eq": [{"ref": self.key}, {"const": jsonable(self.equals)}]},
                    "result": result,
                    "values": {self.key: jsonable(value)},
                },
            )
        return Status.SUCCESS if result else Status.FAILURE


MAX_VALUE_NESTING: Final = 256
"""The deepest nesting of lists and objects in an expression's constants (as in an IR)."""


def _check_nesting(expr: Any) -> None:
    """Refuse an expression nested deeper than :data:`jdsl.expr.MAX_EXPRESSION_DEPTH` levels of
    and/or/not, or with constants nested deeper than :data:`MAX_VALUE_NESTING`. Iterative, so
    any depth is reported, not a RecursionError; every recursive pass over an expression
    (evaluating, describing, tracing it) may run after this check.

    Raises:
        ValidationError: too deep (names the limit).
    """
    # (value, and/or/not depth, nesting, whether it stands where an expression goes)
    stack: list[tuple[Any, int, int, bool]] = [(expr, 0, 0, True)]
    while stack:
        node, depth, nesting, is_expr = stack.pop()
        if nesting > MAX_VALUE_NESTING:
            raise ValidationError(
                [f"the expression nests deeper than {MAX_VALUE_NESTING} lists or objects"]
            )
        op = next(iter(node)) if isinstance(node, Mapping) and len(node) == 1 else None
        logical = is_expr and op in ("and", "or", "not")
        if logical and depth >= MAX_EXPRESSION_DEPTH:
            limit = MAX_EXPRESSION_DEPTH
            raise ValidationError(
                [f"the expression nests deeper than {limit} levels of and/or/not"]
            )
        if isinstance(node, Mapping):
            for value in node.values():
                if logical and op != "not" and isinstance(value, list):
                    stack.extend((item, depth + 1, nesting + 2, True) for item in value)
                else:
                    stack.append((value, depth + logical, nesting + 1, logical))
        elif isinstance(node, list | tuple):
            stack.extend((v, depth, nesting + 1, False) for v in node)


class Guard(Node):
    """SUCCESS iff the IR expression (:mod:`jdsl.expr`) is true over the blackboard."""

    kind: Literal["guard"] = "guard"
    expression: dict[str, Any]

    leaf = True

    @field_validator("expression")
    @classmethod
    def _bounded(cls, expression: dict[str, Any]) -> dict[str, Any]:
        """Too deep an expression is a ValidationError here (raised as is: not a ValueError),
        not a RecursionError when a run, a check or a trace walks it."""
        _check_nesting(expression)
        return expression

    @property
    def label(self) -> str:
        first = next(iter(self.expression), "?") if isinstance(self.expression, dict) else "?"
        return f"guard({first})"

    def _tick(self, ctx: RunContext) -> Status:
        if not ctx.tracing:
            if evaluate(self.expression, ctx.blackboard):
                return Status.SUCCESS
            values: dict[str, Any] = {}
            evaluate(self.expression, ctx.blackboard, values)  # again, for the reason
            return self._false(ctx, values)
        values = {}
        result = evaluate(self.expression, ctx.blackboard, values)
        ctx.trace(
            "guard.evaluated",
            {
                "node_id": ctx.names(self)[0],
                "type": "guard",
                "expression": jsonable(self.expression),
                "result": jsonable(result),
                "values": jsonable(values),
            },
        )
        return Status.SUCCESS if result else self._false(ctx, values)

    def _false(self, ctx: RunContext, values: dict[str, Any]) -> Status:
        """FAILURE with the reason: the test and what it read; a guard's ``context`` (text a
        guard, which asks no model, has no other use for) says why in words, after the test or,
        for a constant (``guard false``, whose "was false" says nothing), instead of it."""
        read = ", ".join(f"{path} = {preview(value)}" for path, value in values.items())
        test = f"guard {describe(self.expression)}"
        if self.context and "const" in self.expression:
            return ctx.fail(self, f"{test}: {self.context}")
        reason = f"{test} was false" + (f" ({read})" if read else "")
        return ctx.fail(self, f"{reason}: {self.context}" if self.context else reason)


class GuardCall(_Bound):
    """Call a trusted predicate with resolved arguments; SUCCESS iff it returns truthy.

    Exceptions from the predicate propagate, like a tool's (a ``TypeError`` from arguments
    that do not fit gets a note naming its parameters).
    """

    kind: Literal["guard_call"] = "guard_call"
    predicate: str
    args: dict[str, ArgSpec] = Field(default_factory=dict)

    leaf = True

    @property
    def label(self) -> str:
        return f"guard_call({self.predicate})"

    def _tick(self, ctx: RunContext) -> Status:
        fn = self._bound(ctx, "predicate", self.predicate)
        kwargs = resolve_args(self.args, ctx, self) if self.args else {}
        try:
            returned = fn(**kwargs)
        except TypeError as exc:
            self._note_arguments(exc, fn, kwargs)
            raise
        result = bool(returned)
        if ctx.tracing:
            refs = {spec["ref"]: kwargs[name] for name, spec in self.args.items() if "ref" in spec}
            ctx.trace(
                "guard.evaluated",
                {
                    "node_id": ctx.names(self)[0],
                    "type": "guard_call",
                    "expression": {"call": self.predicate, "args": jsonable(self.args)},
                    "result": result,
                    "values": jsonable(refs),
                },
            )
        if result:
            return Status.SUCCESS
        shown = ", ".join(f"{name}={preview(value)}" for name, value in kwargs.items())
        return ctx.fail(self, f"guard_call {self.predicate}({shown}) returned {preview(returned)}")
