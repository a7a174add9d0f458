"""What the authoring combinators (:mod:`jdsl.dsl`) are given: refs, argument checks that
raise typed errors naming the builder, and positional arguments bound to parameter names."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from pydantic import ValidationError as PydanticValidationError

from jdsl.errors import AuthoringError, BindingError, SignatureError, ValidationError, preview
from jdsl.interaction.tools import tool_name
from jdsl.signature import Signature
from jdsl.tree import Node, Root
from jdsl.tree.base import name_argument

__all__ = [
    "Ref",
    "callable_and_name",
    "examples_argument",
    "keyword_args",
    "mapping_argument",
    "node_argument",
    "signature_text",
    "spec",
    "typed_builder",
]


@dataclass(frozen=True)
class Ref:
    """A placeholder for a blackboard value, resolved when the node ticks."""

    path: str

    def to_spec(self) -> dict[str, str]:
        return {"ref": self.path}


_P = ParamSpec("_P")
_N = TypeVar("_N")


def typed_builder(builder: Callable[_P, _N]) -> Callable[_P, _N]:
    """Report a node field pydantic refuses (``repeat(max=0)``, ``timeout(seconds=1e999)``) as
    :class:`jdsl.errors.ValidationError` naming the builder, the field and the value."""

    @functools.wraps(builder)
    def build(*args: _P.args, **kwargs: _P.kwargs) -> _N:
        try:
            built = builder(*args, **kwargs)
        except PydanticValidationError as exc:
            problems = [
                f"{builder.__name__}(): {'.'.join(str(p) for p in e['loc']) or 'value'}: "
                f"{e['msg']} (got {preview(e.get('input'))})"
                for e in exc.errors()
            ]
            raise ValidationError(problems) from None
        if isinstance(built, Node) and not isinstance(built, Root):
            _check_rules(built, builder.__name__.lower())
        return built

    return build


def _check_rules(node: Node, builder: str) -> None:
    """Refuse a node that breaks a rule of its kind that the IR and the behavior text hold
    (``id=""``, ``examples=[{"x": 1}]``, an ``input_sources`` or ``check`` path that is no
    path), as the text refuses its line: the node, not its children (each was checked when
    built), as a one-node IR dict. Two shapes the runtime gives a meaning stay buildable
    although the text has no form for them: ``seq()`` / ``sel()`` with no child (SUCCESS /
    FAILURE) and ``react(..., tools=[])`` (the model answers alone).

    Raises:
        ValidationError: naming the builder and each problem.
    """
    from jdsl.ir.nodes import NodeChecker
    from jdsl.ir.walk import CHILD_SLOTS

    if node.kind in ("sequence", "selector"):  # their one rule is the child count
        return
    slots = CHILD_SLOTS[node.kind]
    shallow = node.model_dump(mode="json", exclude_none=True, exclude=set(slots))
    for slot in slots:  # a placeholder per child: the rules count children, not read them
        value = getattr(node, slot)
        if value is not None:
            shallow[slot] = [{} for _ in value] if isinstance(value, list) else {}
    if node.kind == "react" and not shallow.get("tools"):
        shallow["tools"] = ["tool"]  # a react without tools runs (see above)
    problems = NodeChecker().node_problems(shallow, "")
    if problems:
        raise ValidationError([f"{builder}(): {problem}" for problem in problems])


def node_argument(value: Any, builder: str, argument: str = "child") -> Any:
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


def spec(value: Any) -> dict[str, Any]:
    return value.to_spec() if isinstance(value, Ref) else {"const": value}


def callable_and_name(
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


def keyword_args(
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
    if args and fn is None:
        raise BindingError(
            f"{name!r} is given by name, so positional arguments cannot be matched to "
            "parameters; pass them as keywords",
            name=name,
        )
    signature = _signature(fn)
    if signature is not None:  # a keyword the callable has no parameter for fails here too
        try:
            bound = signature.bind_partial(*args, **kwargs)
        except TypeError as exc:
            raise AuthoringError(
                f"arguments do not fit {name}{_bare(signature)}: {exc}; pass what its "
                "parameters take",
                builder=builder,
                argument="args",
            ) from None
    if args:
        if signature is None:
            raise AuthoringError(
                f"{name}: Python cannot read its parameters, so positional arguments cannot "
                "be matched to them; pass them as keywords",
                builder=builder,
                argument="args",
            )
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
    return {key: spec(value) for key, value in kwargs.items()}


def _signature(fn: Callable[..., Any] | None) -> inspect.Signature | None:
    """The signature the node's arguments are matched to, None without a callable or for one
    Python cannot describe (a builtin): those are matched when called."""
    if fn is None:
        return None
    try:
        return inspect.signature(getattr(fn, "fn", fn))
    except (TypeError, ValueError):
        return None


def _bare(signature: inspect.Signature) -> inspect.Signature:
    """``signature`` without annotations (``lookup(email, limit=3)``), as messages show it."""
    empty = inspect.Parameter.empty
    return signature.replace(
        parameters=[p.replace(annotation=empty) for p in signature.parameters.values()],
        return_annotation=empty,
    )


def mapping_argument(value: Any, argument: str) -> dict[str, Any]:
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


def examples_argument(examples: Any) -> list[dict[str, Any]]:
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
    return [mapping_argument(e, "examples[]") for e in examples]


def signature_text(signature: str | Signature) -> str:
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
