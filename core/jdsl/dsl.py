"""Authoring combinators: the tree structure is the call structure (docs/design.md appendix A).

Example:
    >>> from jdsl.testing import ScriptedModel
    >>> def lookup(email: str) -> dict: return {"id": "U1"}
    >>> def list_orders(customer_id: str) -> list: return [{"id": "#W1"}, {"id": "#W2"}]
    >>> def get_order(order_id: str) -> dict: return {"id": order_id, "status": "pending"}
    >>> tree = root("cancel", system="You are a careful retail agent.").do(seq(
    ...     act(lookup, email=ref("email")) >> "customer",
    ...     act(list_orders, customer_id=ref("customer.id")) >> "orders",
    ...     predict("request, orders -> selected_index: int"),
    ...     store(act(get_order, order_id=ref("orders[$selected_index].id")), "order"),
    ... ))
    >>> ctx = tree.run(model=ScriptedModel("1"), email="a@x.com", request="cancel it")
    >>> ctx.blackboard["order"]
    {'id': '#W2', 'status': 'pending'}

Callables passed to ``act``, ``guard_call`` and ``react`` stay on their nodes until
``root(...).do(child)`` collects them into the root's bindings by name. Positional arguments
are bound to parameter names here, so the IR and traces carry keyword arguments only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, overload

from jdsl.authoring import (
    Ref,
    callable_and_name,
    examples_argument,
    keyword_args,
    mapping_argument,
    node_argument,
    signature_text,
    typed_builder,
)
from jdsl.errors import AuthoringError, ValidationError, preview
from jdsl.interaction.tools import tool
from jdsl.signature import Signature
from jdsl.tree import (
    Action,
    Check,
    ForEach,
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
    "for_each",
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


def ref(path: str) -> Ref:
    """Refer to a blackboard key or restricted path: ``ref("orders[$selected_index].id")``.

    A missing ref raises :class:`jdsl.errors.RefError` at tick time.
    """
    from jdsl.expr import parse_path

    parse_path(path)
    return Ref(path)


@typed_builder
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
    callable_, name = callable_and_name(fn, "act", "fn")
    node = Action(tool=name, args=keyword_args(callable_, name, args, kwargs, "act"), id=id)
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


@typed_builder
def seq(*children: Node, context: str | None = None, id: str | None = None) -> Sequence:
    """Behavior-tree AND: children in order until one fails."""
    nodes = [node_argument(c, "seq", "children[]") for c in children]
    return Sequence(children=nodes, context=context, id=id)


@typed_builder
def sel(*children: Node, context: str | None = None, id: str | None = None) -> Selector:
    """Behavior-tree OR: the first child that succeeds wins."""
    nodes = [node_argument(c, "sel", "children[]") for c in children]
    return Selector(children=nodes, context=context, id=id)


@typed_builder
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
        signature=signature_text(signature),
        instructions=instructions,
        examples=None if examples is None else examples_argument(examples),
        input_sources=None
        if input_sources is None
        else mapping_argument(input_sources, "input_sources"),
        context=context,
        id=id,
    )


@typed_builder
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
    text = signature_text(signature)
    if isinstance(tools, str | Mapping) or not isinstance(tools, Iterable):
        raise AuthoringError(
            f"react(): tools must be a list of callables or tool names, got {preview(tools)}; "
            "write tools=[search] even for one tool",
            builder="react",
            argument="tools",
        )
    pairs = [callable_and_name(t, "react", "tools[]") for t in tools]
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


@overload
def check(key: str, equals: Any, *, context: str | None = None, id: str | None = None) -> Check: ...


@overload
def check(
    key: Node,
    equals: Any = ...,
    *,
    tools: Any = None,
    predicates: Any = None,
    inputs: Any = None,
) -> CheckReport: ...


def check(
    key: str | Node,
    equals: Any = _NOTHING,
    *,
    context: str | None = None,
    id: str | None = None,
    tools: Any = None,
    predicates: Any = None,
    inputs: Any = None,
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
    return typed_builder(Check)(key=key, equals=equals, context=context, id=id)


@typed_builder
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
    from jdsl.expr import validate_expr

    problems = validate_expr(expression)
    if problems:
        raise ValidationError(problems)
    return Guard(expression=dict(expression), context=context, id=id)


@typed_builder
def guard_call(
    predicate: Callable[..., Any] | str,
    /,
    *args: Any,
    context: str | None = None,
    id: str | None = None,
    **kwargs: Any,
) -> GuardCall:
    """SUCCESS iff the trusted ``predicate`` returns truthy for the resolved arguments."""
    callable_, name = callable_and_name(predicate, "guard_call", "predicate")
    node = GuardCall(
        predicate=name,
        args=keyword_args(callable_, name, args, kwargs, "guard_call"),
        context=context,
        id=id,
    )
    node._fn = callable_
    return node


@typed_builder
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
        child=node_argument(child, "repeat"),
        until=None if until is None else node_argument(until, "repeat", "until"),
        max=max,
        context=context,
        id=id,
    )


@typed_builder
def for_each(
    item: str,
    items: str | Ref,
    child: Node,
    *,
    collect: str | None = None,
    store: str | None = None,
    max: int = 1000,
    context: str | None = None,
    id: str | None = None,
) -> ForEach:
    """Run ``child`` once per element of the list at ``items``, the element written to ``item``.

    ``for_each("order_id", "user.orders", act(get_order, id=ref("order_id")) >> "order",
    collect="order", store="orders")`` gathers each pass's ``order`` into ``orders``. No
    element -> SUCCESS; a missing path, a non-list or more than ``max`` elements -> FAILURE.

    Raises:
        AuthoringError: ``item`` or ``items`` is not a non-empty str, or ``child`` not a node.
        ValidationError: ``items`` is not a path, ``item`` not a name, ``collect`` without
            ``store`` (or the reverse), ``max`` outside 1..1000.
    """
    path = items.path if isinstance(items, Ref) else items
    return ForEach(
        item=name_argument(item, "for_each", "item", "a blackboard name such as 'order_id'"),
        items=name_argument(path, "for_each", "items", "a list path such as 'user.orders'"),
        child=node_argument(child, "for_each"),
        collect=collect,
        store=store,
        max=max,
        context=context,
        id=id,
    )


@typed_builder
def invert(child: Node, *, context: str | None = None, id: str | None = None) -> Invert:
    """Flip the child's status."""
    return Invert(child=node_argument(child, "invert"), context=context, id=id)


@typed_builder
def optional(child: Node, *, context: str | None = None, id: str | None = None) -> Optional:
    """Run the child; always SUCCESS."""
    return Optional(child=node_argument(child, "optional"), context=context, id=id)


@typed_builder
def timeout(
    child: Node, *, seconds: float = 30.0, context: str | None = None, id: str | None = None
) -> Timeout:
    """FAILURE when the child has not finished within ``seconds``.

    The overrunning child is abandoned: it may finish its current tool call in the background,
    but its later blackboard writes and trace events are dropped and it makes no further tool
    or model calls (see :class:`jdsl.tree.Timeout`).
    """
    return Timeout(child=node_argument(child, "timeout"), seconds=seconds, context=context, id=id)


@typed_builder
def oneshot(child: Node, *, context: str | None = None, id: str | None = None) -> OneShot:
    """Run the child at most once per run; later ticks replay its status."""
    return OneShot(child=node_argument(child, "oneshot"), context=context, id=id)


@typed_builder
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
