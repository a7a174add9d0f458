"""Authoring combinators: the tree structure is the call structure (reference jdsl-py §1.2).

Example:
    >>> tree = root("cancel", system="You are a careful retail agent.").do(seq(
    ...     act(lookup, email=ref("email")) >> "customer",
    ...     act(list_orders, customer_id=ref("customer.id")) >> "orders",
    ...     predict("request, orders -> selected_index: int"),
    ...     store(act(get_order, order_id=ref("orders[$selected_index].id")), "order"),
    ... ))
    >>> ctx = tree.run(model=ScriptedModel("1"), email="a@x.com", request="cancel it")

Callables passed to ``act``, ``guard_call`` and ``react`` stay on their nodes until
``root(...).do(child)`` collects them into the root's bindings by name. Positional arguments
are bound to parameter names here, so the IR and traces carry keyword arguments only.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar, overload

from pydantic import ValidationError as PydanticValidationError

from jdsl.errors import AuthoringError, BindingError, SignatureError, ValidationError, preview
from jdsl.interaction.tools import tool, tool_name
from jdsl.signature import Signature
from jdsl.tree import (
    Action,
    Check,
    Guard,
    GuardCall,
    Invert,
    Node,
    OneShot,
    Optional,
    Predict,
    React,
    Repeat,
    Root,
    Selector,
    Sequence,
    Timeout,
)
from jdsl.tree.base import name_argument
from jdsl.tree.check import CheckReport, check_tree

_NOTHING: Any = object()
"""Marks ``check(key)`` called without ``equals``."""

__all__ = [
    "Ref",
    "act",
    "check",
    "guard",
    "guard_call",
    "invert",
    "oneshot",
    "optional",
    "predict",
    "react",
    "ref",
    "repeat",
    "root",
    "sel",
    "seq",
    "store",
    "timeout",
    "tool",
]


@dataclass(frozen=True)
class Ref:
    """A placeholder for a blackboard value, resolved when the node ticks."""

    path: str

    def to_spec(self) -> dict[str, str]:
        return {"ref": self.path}


_P = ParamSpec("_P")
_N = TypeVar("_N")


def _typed(builder: Callable[_P, _N]) -> Callable[_P, _N]:
    """Report a node field pydantic refuses (``repeat(max=0)``, ``timeout(seconds=1e999)``) as
    :class:`jdsl.errors.ValidationError` naming the builder, the field and the value."""

    @functools.wraps(builder)
    def build(*args: _P.args, **kwargs: _P.kwargs) -> _N:
        try:
            return builder(*args, **kwargs)
        except PydanticValidationError as exc:
            problems = [
                f"{builder.__name__}(): {'.'.join(str(p) for p in e['loc']) or 'value'}: "
                f"{e['msg']} (got {preview(e.get('input'))})"
                for e in exc.errors()
            ]
            raise ValidationError(problems) from None

    return build


def ref(path: str) -> Ref:
    """Refer to a blackboard key or restricted path: ``ref("orders[$selected_index].id")``.

    A missing ref raises :class:`jdsl.errors.RefError` at tick time.
    """
    from jdsl.expr import parse_path

    parse_path(path)
    return Ref(path)


def _node(value: Any, builder: str, argument: str = "child") -> Any:
    """Check a combinator argument is a node (typed Any: the node union is pydantic's).

    Raises:
        AuthoringError: ``value`` is not a node, or is a root (a root is never a child).
    """
    if not isinstance(value, Node) or isinstance(value, Root):
        fix = ("a root is only ever the outermost node" if isinstance(value, Root)
               else "wrap a callable in act(...)")  # fmt: skip
        raise AuthoringError(
            f"{builder}(): {argument} must be a node such as act(...) or seq(...), got "
            f"{'a root' if isinstance(value, Root) else preview(value)}; {fix}",
            builder=builder,
            argument=argument,
        )
    return value


def _spec(value: Any) -> dict[str, Any]:
    return value.to_spec() if isinstance(value, Ref) else {"const": value}


def _callable_and_name(
    fn: Callable[..., Any] | str, builder: str, argument: str
) -> tuple[Callable[..., Any] | None, str]:
    """``(callable or None, bound name)`` for a callable or a name to bind later.

    Raises:
        AuthoringError: ``fn`` is neither a callable nor a non-empty str.
    """
    if isinstance(fn, str) or not callable(fn):
        expected = "a callable or the non-empty name (str) of one bound later"
        return None, name_argument(fn, builder, argument, expected)
    return fn, tool_name(fn)


def _keyword_args(
    fn: Callable[..., Any] | None,
    name: str,
    args: tuple[Any, ...],
    kwargs: Mapping[str, Any],
    builder: str,
) -> dict[str, dict[str, Any]]:
    """Bind positional arguments to parameter names; return ``{name: ref/const spec}``.

    Raises:
        BindingError: positional arguments for a callable given by name.
        AuthoringError: arguments that do not fit the callable's parameters (``builder``
            is ``"act"`` or ``"guard_call"``).
    """
    if args:
        if fn is None:
            raise BindingError(
                f"{name!r} is given by name, so positional arguments cannot be matched to "
                "parameters; pass them as keywords",
                name=name,
            )
        target = getattr(fn, "fn", fn)
        signature = inspect.signature(target)
        try:
            bound = signature.bind_partial(*args, **kwargs)
        except TypeError as exc:
            raise AuthoringError(
                f"arguments do not fit {name}{signature}: {exc}; pass what its parameters take",
                builder=builder,
                argument="args",
            ) from None
        named: dict[str, Any] = {}
        for pname, value in bound.arguments.items():
            kind = signature.parameters[pname].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                raise AuthoringError(
                    f"{name}: positional arguments cannot fill *{pname}; use keywords",
                    builder=builder,
                    argument=pname,
                )
            if kind is inspect.Parameter.VAR_KEYWORD:
                named.update(value)
            else:
                named[pname] = value
        kwargs = named
    return {key: _spec(value) for key, value in kwargs.items()}


@_typed
def act(
    fn: Callable[..., Any] | str, /, *args: Any, id: str | None = None, **kwargs: Any
) -> Action:
    """An action calling ``fn`` with arguments (``ref(...)`` values are read at tick time).

    Args:
        fn: a callable (``@tool`` or plain; bound by :func:`tool_name`) or a tool name to bind
            later.
        *args, **kwargs: the arguments; positional ones are bound to parameter names now.
        id: the node's author id.

    Store the result with ``store(act(...), "key")`` or ``act(...) >> "key"``.

    Raises:
        AuthoringError: ``fn`` is neither a callable nor a non-empty name, or the arguments
            do not fit its parameters.
        ValidationError: ``id`` is not a str.
    """
    callable_, name = _callable_and_name(fn, "act", "fn")
    node = Action(tool=name, args=_keyword_args(callable_, name, args, kwargs, "act"), id=id)
    node._fn = callable_
    return node


def store(node: Action, key: str) -> Action:
    """Write the action's result under ``key``; returns the same node.

    Raises:
        AuthoringError: ``node`` is not an ``act(...)`` node, or ``key`` is not a non-empty str.
    """
    if not isinstance(node, Action):
        raise AuthoringError(
            f"store() takes an act(...) node, got {type(node).__name__}; a predict or react "
            "writes the output fields its signature names",
            builder="store",
            argument="node",
        )
    return node >> key


@_typed
def seq(*children: Node, context: str | None = None, id: str | None = None) -> Sequence:
    """Behavior-tree AND: children in order until one fails."""
    nodes = [_node(c, "seq", "children[]") for c in children]
    return Sequence(children=nodes, context=context, id=id)


@_typed
def sel(*children: Node, context: str | None = None, id: str | None = None) -> Selector:
    """Behavior-tree OR: the first child that succeeds wins."""
    nodes = [_node(c, "sel", "children[]") for c in children]
    return Selector(children=nodes, context=context, id=id)


@_typed
def predict(
    signature: str | Signature,
    *,
    instructions: str | None = None,
    examples: Iterable[Mapping[str, Any]] | None = None,
    input_sources: Mapping[str, str] | None = None,
    context: str | None = None,
    id: str | None = None,
) -> Predict:
    """One typed model call: ``predict("request, orders -> selected_index: int")``.

    Raises:
        SignatureError: a malformed signature (no ``->``, a bad name or an unknown type).
    """
    return Predict(
        signature=_signature(signature),
        instructions=instructions,
        examples=None if examples is None else _examples(examples),
        input_sources=None if input_sources is None else _mapping(input_sources, "input_sources"),
        context=context,
        id=id,
    )


@_typed
def react(
    signature: str | Signature,
    *,
    tools: Iterable[Callable[..., Any] | str],
    instructions: str | None = None,
    max_steps: int = 6,
    context: str | None = None,
    id: str | None = None,
) -> React:
    """A model-driven tool loop: ``react("q -> answer", tools=[search])``.

    Any signature works: with several outputs (``"ticket -> category, urgency: int"``) the
    final answer is one JSON object holding every output, validated as a predict's.

    Raises:
        SignatureError: a malformed signature.
    """
    text = _signature(signature)
    if isinstance(tools, str | Mapping) or not isinstance(tools, Iterable):
        raise AuthoringError(
            f"react(): tools must be a list of callables or tool names, got {preview(tools)}; "
            "write tools=[search] even for one tool",
            builder="react",
            argument="tools",
        )
    pairs = [_callable_and_name(t, "react", "tools[]") for t in tools]
    node = React(
        signature=text,
        tools=[name for _, name in pairs],
        instructions=instructions,
        max_steps=max_steps,
        context=context,
        id=id,
    )
    node._fns = {name: fn for fn, name in pairs if fn is not None}
    return node


def _mapping(value: Any, argument: str) -> dict[str, Any]:
    """``dict(value)`` of a mapping.

    Raises:
        AuthoringError: ``value`` is not a mapping.
    """
    if not isinstance(value, Mapping):
        raise AuthoringError(
            f"predict(): {argument} must be a mapping (dict), got {preview(value)}",
            builder="predict",
            argument=argument,
        )
    return dict(value)


def _examples(examples: Any) -> list[dict[str, Any]]:
    """The examples as dicts.

    Raises:
        AuthoringError: not a list of mappings (one dict of fields per example).
    """
    if isinstance(examples, str | Mapping) or not isinstance(examples, Iterable):
        raise AuthoringError(
            f"predict(): examples must be a list of dicts (one per example), got "
            f"{preview(examples)}",
            builder="predict",
            argument="examples",
        )
    return [_mapping(e, "examples[]") for e in examples]


def _signature(signature: str | Signature) -> str:
    """The signature's text, parsed first so a bad one raises SignatureError, not pydantic's."""
    if isinstance(signature, Signature):
        return str(signature)
    if not isinstance(signature, str):
        raise SignatureError(
            f'a signature is a str such as "question -> answer", got {type(signature).__name__}',
            signature=repr(signature),
        )
    Signature.parse(signature)
    return signature


@overload
def check(key: str, equals: Any, *, context: str | None = None, id: str | None = None) -> Check: ...


@overload
def check(
    key: Node, equals: Any = ..., *, tools: Any = None, predicates: Any = None,
    inputs: Any = None,
) -> CheckReport: ...


def check(
    key: str | Node, equals: Any = _NOTHING, *, context: str | None = None, id: str | None = None,
    tools: Any = None, predicates: Any = None, inputs: Any = None,
) -> Check | CheckReport:
    """Two uses, told apart by the first argument.

    ``check(key, equals)``: a Check leaf, SUCCESS iff ``blackboard[key]`` matches ``equals``
    (strings compared leniently). ``check(tree)``: the static check of a tree (a
    :class:`~jdsl.tree.check.CheckReport`; see :meth:`jdsl.tree.Root.check`), with optional
    ``tools``/``predicates`` (bindings, as for ``run``) and ``inputs`` (run input keys).

    Raises:
        AuthoringError: ``check(key)`` without ``equals``, or ``key`` neither a node nor a
            non-empty str.
        ValidationError: ``context`` or ``id`` refused (not a str).
    """
    if isinstance(key, Node):
        if isinstance(key, Root):
            return key.check(tools=tools, predicates=predicates, inputs=inputs)
        return check_tree(key, inputs=inputs)
    name_argument(key, "check", "key", "a blackboard key (non-empty str) or a tree to check")
    if equals is _NOTHING:
        raise AuthoringError(
            "check(key, equals) needs the value to compare with; check(tree) takes a node",
            builder="check",
            argument="equals",
        )
    return _typed(Check)(key=key, equals=equals, context=context, id=id)


@_typed
def guard(
    expression: Mapping[str, Any] | str, *, context: str | None = None, id: str | None = None
) -> Guard:
    """SUCCESS iff the expression holds: an IR dict or its text (``'orders[$i].status == "x"'``).

    Raises:
        ValidationError: a malformed expression.
    """
    if isinstance(expression, str):
        from jdsl.text import parse_expression

        expression = parse_expression(expression)
    from jdsl.errors import ValidationError
    from jdsl.expr import validate_expr

    problems = validate_expr(expression)
    if problems:
        raise ValidationError(problems)
    return Guard(expression=dict(expression), context=context, id=id)


@_typed
def guard_call(
    predicate: Callable[..., Any] | str,
    /,
    *args: Any,
    context: str | None = None,
    id: str | None = None,
    **kwargs: Any,
) -> GuardCall:
    """SUCCESS iff the trusted ``predicate`` returns truthy for the resolved arguments."""
    callable_, name = _callable_and_name(predicate, "guard_call", "predicate")
    node = GuardCall(
        predicate=name,
        args=_keyword_args(callable_, name, args, kwargs, "guard_call"),
        context=context,
        id=id,
    )
    node._fn = callable_
    return node


@_typed
def repeat(
    child: Node,
    *,
    until: Node | None = None,
    max: int = 3,
    context: str | None = None,
    id: str | None = None,
) -> Repeat:
    """Do-while: up to ``max`` passes; stop with SUCCESS when ``until`` succeeds."""
    return Repeat(
        child=_node(child, "repeat"),
        until=None if until is None else _node(until, "repeat", "until"),
        max=max,
        context=context,
        id=id,
    )


@_typed
def invert(child: Node, *, context: str | None = None, id: str | None = None) -> Invert:
    """Flip the child's status."""
    return Invert(child=_node(child, "invert"), context=context, id=id)


@_typed
def optional(child: Node, *, context: str | None = None, id: str | None = None) -> Optional:
    """Run the child; always SUCCESS."""
    return Optional(child=_node(child, "optional"), context=context, id=id)


@_typed
def timeout(
    child: Node, *, seconds: float = 30.0, context: str | None = None, id: str | None = None
) -> Timeout:
    """FAILURE when the child has not finished within ``seconds``.

    The overrunning child is abandoned: it may finish its current tool call in the background,
    but its later blackboard writes and trace events are dropped and it makes no further tool
    or model calls (see :class:`jdsl.tree.Timeout`).
    """
    return Timeout(child=_node(child, "timeout"), seconds=seconds, context=context, id=id)


@_typed
def oneshot(child: Node, *, context: str | None = None, id: str | None = None) -> OneShot:
    """Run the child at most once per run; later ticks replay its status."""
    return OneShot(child=_node(child, "oneshot"), context=context, id=id)


@_typed
def root(name: str, *, system: str | None = None, model: str | None = None) -> Root:
    """A tree's entry point; chain ``.model(model_id)`` and ``.do(child)``.

    Raises:
        AuthoringError: ``name`` or ``model`` is an empty str.
        ValidationError: ``name``, ``system`` or ``model`` is not a str.
    """
    if name == "":
        name_argument(name, "root", "name", "the skill's name, a non-empty str such as 'cancel'")
    if model == "":
        name_argument(model, "root", "model", "a model id, a non-empty str")
    return Root(name=name, system=system, model_id=model)
