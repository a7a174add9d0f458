"""Restricted paths and the guard expression language, over a blackboard (docs/design.md §2).

Paths name a value on the blackboard without running code::

    customer                     a top-level key (a key containing dots is found whole first)
    customer.id                  a dict key
    orders[0].id                 a list index (negative indexes count from the end)
    orders[$selected_index].id   index by the value of the top-level key ``selected_index``
    items["sku-1"]               a quoted dict key
    order.items[*].item_id       every element: the rest of the path maps over the list
    order.items[$item_indexes].item_id   a selection: ``item_indexes`` holds a list of indexes

A digit string (at most :data:`MAX_INDEX_DIGITS` digits) indexes a list; a bool never does. An
attribute step reads only a declared field of a pydantic model or a dataclass, never a method,
a property or ``__dict__``, so a path cannot run code or reach the interpreter's globals.
``[*]`` and a ``$name`` whose value is a list of indexes make a *list path*: the rest of the
path is resolved for each selected element, in order, and the value is the list of results
(``MISSING`` when any element lacks it, or an index is out of range; ``[*]`` of an empty list is
``[]``). This is how a list argument of a tool call is built element by element.
An absent step yields :data:`MISSING`, so ``exists`` tells "absent" from "stored None".

IR expressions are JSON objects with exactly one operator key::

    {"exists": "path"} or {"exists": {"ref": "path"}}
    {"eq" | "neq" | "lt" | "lte" | "gt" | "gte" | "in" | "prefix_of": [operand, operand]}
    {"and" | "or": [expression, ...]}        short-circuit
    {"not": expression}
    {"const": true} or {"const": false}      a literal: always true / false

Operands are ``{"ref": path}`` (absent -> None), ``{"const": value}`` or a bare JSON literal.
A comparison that raises ``TypeError`` (``"a" < 1``) is False. ``a prefix_of b``: two lists, ``a``
the start of ``b`` (``xs[$k] prefix_of xs``: ``k`` is 0, 1, ... in range). Text form:
:mod:`jdsl.text.expression`."""

from __future__ import annotations

import dataclasses
import json
import operator
import re
from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache
from typing import Any, Final

from pydantic import BaseModel

from jdsl.errors import ValidationError, preview

__all__ = [
    "MAX_EXPRESSION_DEPTH",
    "MAX_INDEX_DIGITS",
    "MISSING",
    "OPERATORS",
    "Step",
    "describe",
    "evaluate",
    "expression_paths",
    "is_list_path",
    "missing_step",
    "parse_path",
    "preview",
    "resolve_path",
    "validate_expr",
]


class _Missing:
    """The type of :data:`MISSING`: falsy, one instance, readable repr."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()
"""Returned by :func:`resolve_path` when a step of the path is absent."""

Step = tuple[str, Any]
"""One path step: ``("key", name)``, ``("index", int)``, ``("var", blackboard_key)`` or
``("all", None)`` (``[*]``)."""

MAX_EXPRESSION_DEPTH: Final = 32
"""The deepest nesting of ``and`` / ``or`` / ``not`` an expression may have."""

MAX_INDEX_DIGITS: Final = 18
"""The most digits a list index may have (any list index fits in 18 digits)."""

_INDEX = re.compile(rf"\s*-?\d{{1,{MAX_INDEX_DIGITS}}}\s*")
_TOKEN = re.compile(r"\[[^\]]*\]|[^.\[\]]+|\.")
_COMPARE = {"eq": operator.eq, "neq": operator.ne, "lt": operator.lt, "lte": operator.le,
            "gt": operator.gt, "gte": operator.ge, "in": lambda a, b: a in b,
            "prefix_of": lambda a, b: type(a) is type(b) is list and b[: len(a)] == a}  # fmt: skip
OPERATORS: Final = frozenset({"exists", "and", "or", "not", "const", *_COMPARE})
"""Every IR expression operator."""


def parse_path(path: str) -> tuple[Step, ...]:
    """Split a path into steps.

    Args:
        path: e.g. ``"orders[$selected_index].id"``.

    Returns:
        The steps, e.g. ``(("key", "orders"), ("var", "selected_index"), ("key", "id"))``.

    Raises:
        ValidationError: an empty path, an empty segment (``a..b``), an unclosed or empty
            bracket, or a path that does not start with a key.
    """
    if not isinstance(path, str) or not path.strip():
        raise ValidationError([f"a path must be a non-empty string, got {preview(path)}"])
    return _parse_path(path)


@lru_cache(maxsize=1024)
def _parse_path(path: str) -> tuple[Step, ...]:
    tokens = _TOKEN.findall(path)
    if "".join(tokens) != path:
        raise ValidationError([f"malformed path {path!r}: unbalanced brackets"])
    steps: list[Step] = []
    expect_name = False
    for token in tokens:
        if token == ".":
            if expect_name or not steps:
                raise ValidationError([f"malformed path {path!r}: empty segment around '.'"])
            expect_name = True
        elif token.startswith("["):
            if expect_name or not steps:
                raise ValidationError([f"malformed path {path!r}: '[' must follow a key"])
            steps.append(_bracket(token[1:-1].strip(), path))
        else:
            if steps and not expect_name:
                raise ValidationError([f"malformed path {path!r}: missing '.' before {token!r}"])
            steps.append(("key", token.strip()))
            expect_name = False
    if expect_name:
        raise ValidationError([f"malformed path {path!r}: ends with '.'"])
    return tuple(steps)


def _bracket(inner: str, path: str) -> Step:
    if not inner:
        raise ValidationError([f"malformed path {path!r}: empty brackets []"])
    if inner == "*":
        return ("all", None)
    if inner.startswith("$"):
        if len(inner) == 1:
            raise ValidationError([f"malformed path {path!r}: '$' needs a blackboard key"])
        return ("var", inner[1:])
    if re.fullmatch(r"-?\d+", inner):
        if not _INDEX.fullmatch(inner):
            raise ValidationError(
                [f"malformed path {preview(path)}: an index has at most {MAX_INDEX_DIGITS} digits"]
            )
        return ("index", int(inner))
    if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
        return ("key", inner[1:-1])
    return ("key", inner)


def resolve_path(path: str, data: Mapping[str, Any]) -> Any:
    """The value at ``path`` in ``data``, or :data:`MISSING`.

    The whole path is tried as a top-level key first, so keys containing dots still work.

    Raises:
        ValidationError: a malformed path.

    Example:
        >>> resolve_path("orders[$i].id", {"orders": [{"id": "a"}, {"id": "b"}], "i": "1"})
        'b'
    """
    if isinstance(path, str) and path in data:
        return data[path]
    return _resolve(parse_path(path), data, data)


def is_list_path(path: str) -> bool:
    """Whether ``path`` has a ``[*]`` step (a ``[$name]`` is a list path only when ``name``
    holds a list, which only the blackboard tells).

    >>> is_list_path("order.items[*].item_id"), is_list_path("orders[$i].id")
    (True, False)
    """
    return any(kind == "all" for kind, _ in parse_path(path))


def _resolve(steps: Sequence[Step], value: Any, data: Mapping[str, Any]) -> Any:
    for n, (kind, arg) in enumerate(steps):
        if kind == "var":
            arg = data.get(arg, MISSING)
            if arg is MISSING:
                return MISSING
            if isinstance(arg, list):  # a selection of indexes: map the rest over them
                return _fan_out(value, arg, steps[n + 1 :], data)
        elif kind == "all":
            if not isinstance(value, list):
                return MISSING
            return _fan_out(value, list(range(len(value))), steps[n + 1 :], data)
        value = _step(value, arg)
        if value is MISSING:
            return MISSING
    return value


def _fan_out(value: Any, indexes: list[Any], rest: Sequence[Step], data: Mapping[str, Any]) -> Any:
    if not isinstance(value, list):
        return MISSING
    found = []
    for index in indexes:
        if isinstance(index, bool) or not isinstance(index, int | str):
            return MISSING
        item = _step(value, index)
        item = MISSING if item is MISSING else _resolve(rest, item, data)
        if item is MISSING:
            return MISSING
        found.append(item)
    return found


def _step(value: Any, key: Any) -> Any:
    if isinstance(value, Mapping):
        if isinstance(key, str | int) and key in value:  # a list or dict ($key) is no key
            return value[key]
        text = _key_text(key)
        return value[text] if text is not None and text in value else MISSING
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        if isinstance(key, bool):
            return MISSING
        if isinstance(key, str) and _INDEX.fullmatch(key):
            key = int(key)
        if isinstance(key, int) and -len(value) <= key < len(value):
            return value[key]
        return MISSING
    if isinstance(key, str) and key in _declared_fields(value):
        return getattr(value, key)  # pydantic models and dataclasses stored on the blackboard
    return MISSING


def _key_text(key: Any) -> str | None:
    """``key`` as a dict key text: a string, or an int of at most MAX_INDEX_DIGITS digits."""
    if isinstance(key, int) and not isinstance(key, bool) and abs(key) < 10**MAX_INDEX_DIGITS:
        return str(key)
    return key if isinstance(key, str) else None


def _declared_fields(value: Any) -> Collection[str]:
    """The field names a path may read on ``value``: a pydantic model's or a dataclass's."""
    if isinstance(value, BaseModel):
        return type(value).model_fields
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return frozenset(f.name for f in dataclasses.fields(value))
    return frozenset()


def missing_step(path: str, data: Mapping[str, Any]) -> str:
    """Describe the first absent step of ``path`` (for error messages).

    Returns:
        e.g. ``"'selected_index' is not on the blackboard"`` or ``"orders has no [5]"``.
    """
    steps = parse_path(path)
    value: Any = data
    walked = ""
    for kind, arg in steps:
        if kind == "var":
            if arg not in data:
                return f"{arg!r} (used as [${arg}]) is not on the blackboard"
            arg = data[arg]
        if kind == "all" or isinstance(arg, list):
            shown = "[*]" if kind == "all" else f"[{arg!r}]"
            return f"{walked or path!r}: an element of {shown} lacks the rest of {path!r}"
        nxt = _step(value, arg)
        if nxt is MISSING:
            if not walked:
                return f"{arg!r} is not on the blackboard"
            shown = f"[{arg!r}]" if not isinstance(arg, str) or kind != "key" else f".{arg}"
            return f"{walked} has no {shown} (it is {preview(value)})"
        walked = f"{walked}[{arg!r}]" if kind != "key" else (f"{walked}.{arg}" if walked else arg)
        value = nxt
    return f"{path!r} is absent"


# -- expressions ----------------------------------------------------------------------------


def evaluate(
    expr: Mapping[str, Any],
    data: Mapping[str, Any],
    reads: dict[str, Any] | None = None,
    *,
    _depth: int = 0,
) -> bool:
    """Evaluate an IR expression over ``data``.

    Args:
        expr: the expression dict.
        data: the blackboard (any mapping).
        reads: when given, every path read is recorded in it (``{path: value}``, absent -> None).

    Returns:
        The truth value.

    Raises:
        ValidationError: a malformed expression (see :func:`validate_expr`), one nested
            deeper than :data:`MAX_EXPRESSION_DEPTH` included.

    Example:
        >>> evaluate({"eq": [{"ref": "a.b"}, {"const": 1}]}, {"a": {"b": 1}})
        True
    """
    op, arg = _single_operator(expr)
    if op in ("and", "or", "not"):
        _check_depth(_depth)
        deeper = _depth + 1
        if op == "not":
            return not evaluate(arg, data, reads, _depth=deeper)
        results = (evaluate(item, data, reads, _depth=deeper) for item in _items(arg, op))
        return all(results) if op == "and" else any(results)
    if op == "const":
        return bool(arg)
    if op == "exists":
        path = _exists_path(arg)
        value = resolve_path(path, data)
        if reads is not None:
            reads[path] = None if value is MISSING else value
        return value is not MISSING
    left, right = _pair(arg, op)
    try:
        return bool(_COMPARE[op](_operand(left, data, reads), _operand(right, data, reads)))
    except TypeError:
        return False


_SYMBOL_TEXT = {"eq": "==", "neq": "!=", "lt": "<", "lte": "<=", "gt": ">", "gte": ">=", "in": "in"}


def describe(expr: Any) -> str:
    """A one-line reading of an IR expression for messages: ``order.status == "pending"``.

    Refs print as their path, constants as JSON; ``and`` / ``or`` items that are themselves
    ``and`` / ``or`` are parenthesized. For the behavior-text printer (minimal parentheses,
    round-trips) see ``jdsl.text.format_expression``. A malformed part prints as its repr.

    Example:
        >>> describe({"and": [{"exists": "o"}, {"eq": [{"ref": "o.s"}, {"const": "x"}]}]})
        'exists(o) and o.s == "x"'
    """
    try:
        op, arg = _single_operator(expr)
        if op in ("and", "or"):
            return f" {op} ".join(_describe_child(item) for item in _items(arg, op))
        if op == "not":
            return f"not ({describe(arg)})"
        if op in ("exists", "const"):
            return f"exists({_exists_path(arg)})" if op == "exists" else json.dumps(arg)
        left, right = _pair(arg, op)
    except ValidationError:
        return repr(expr)
    return f"{_describe_operand(left)} {_SYMBOL_TEXT.get(op, op)} {_describe_operand(right)}"


def _describe_child(item: Any) -> str:
    text = describe(item)
    nested = isinstance(item, Mapping) and len(item) == 1 and next(iter(item)) in ("and", "or")
    return f"({text})" if nested else text


def _describe_operand(operand: Any) -> str:
    if isinstance(operand, Mapping) and set(operand) == {"ref"}:
        return str(operand["ref"])
    if isinstance(operand, Mapping) and set(operand) == {"const"}:
        operand = operand["const"]
    return json.dumps(operand, ensure_ascii=False, sort_keys=True, default=repr)


def _check_depth(depth: int) -> None:
    if depth >= MAX_EXPRESSION_DEPTH:
        raise ValidationError(
            [f"the expression nests deeper than {MAX_EXPRESSION_DEPTH} levels of and/or/not"]
        )


def _single_operator(expr: Any) -> tuple[str, Any]:
    if not isinstance(expr, Mapping) or len(expr) != 1:
        raise ValidationError(
            [f"an expression is an object with one operator key, got {preview(expr)}"]
        )
    ((op, arg),) = expr.items()
    if op not in OPERATORS:
        raise ValidationError([f"unknown operator {preview(op)}; use one of {sorted(OPERATORS)}"])
    if op == "const" and not isinstance(arg, bool):
        raise ValidationError([f"'const' is true or false, got {preview(arg)}; compare with =="])
    return op, arg


def _items(arg: Any, op: str) -> list[Any]:
    if not isinstance(arg, list) or not arg:
        raise ValidationError([f"{op!r} takes a non-empty list of expressions, got {preview(arg)}"])
    return arg


def _pair(arg: Any, op: str) -> tuple[Any, Any]:
    if not isinstance(arg, list) or len(arg) != 2:
        raise ValidationError([f"{op!r} takes a list of two operands, got {preview(arg)}"])
    return arg[0], arg[1]


def _exists_path(arg: Any) -> str:
    if isinstance(arg, Mapping) and set(arg) == {"ref"}:
        arg = arg["ref"]
    if not isinstance(arg, str) or not arg:
        raise ValidationError([f"'exists' takes a path or {{'ref': path}}, got {preview(arg)}"])
    return arg


def _operand(operand: Any, data: Mapping[str, Any], reads: dict[str, Any] | None) -> Any:
    if isinstance(operand, Mapping):
        if set(operand) == {"ref"}:
            value = resolve_path(operand["ref"], data)
            value = None if value is MISSING else value
            if reads is not None:
                reads[operand["ref"]] = value
            return value
        if set(operand) == {"const"}:
            return operand["const"]
    return operand


def validate_expr(expr: Any, where: str = "expression", *, _depth: int = 0) -> list[str]:
    """Every problem of an IR expression (bad operator, arity, path or depth); [] if fine."""
    try:
        op, arg = _single_operator(expr)
        if op in ("and", "or", "not"):
            _check_depth(_depth)
    except ValidationError as exc:
        return [f"{where}: {p}" for p in exc.problems]
    deeper = _depth + 1
    try:
        if op in ("and", "or"):
            items = _items(arg, op)
            return [
                p
                for i, item in enumerate(items)
                for p in validate_expr(item, f"{where}.{op}[{i}]", _depth=deeper)
            ]
        if op == "not":
            return validate_expr(arg, f"{where}.not", _depth=deeper)
        if op == "exists":
            parse_path(_exists_path(arg))
        if op in ("exists", "const"):  # a const's true / false was checked by _single_operator
            return []
        problems: list[str] = []
        for operand in _pair(arg, op):
            if isinstance(operand, Mapping) and "ref" in operand:
                if set(operand) != {"ref"}:
                    problems.append(f"{where}.{op}: a ref operand is {{'ref': path}} only")
                else:
                    parse_path(operand["ref"])
            elif isinstance(operand, Mapping) and set(operand) != {"const"}:
                problems.append(f"{where}.{op}: operand {preview(operand)} is not a ref or const")
        return problems
    except ValidationError as exc:
        return [f"{where}: {p}" for p in exc.problems]


def expression_paths(expr: Any) -> list[str]:
    """The paths an expression reads, in order of first appearance, without repeats (a dict
    keeps them: a list's ``in`` made 20,000 ``exists`` terms take 21 s)."""
    found: dict[str, None] = {}

    def visit(node: Any, op: str | None = None) -> None:
        if not isinstance(node, Mapping):
            if isinstance(node, list):
                for item in node:
                    visit(item, op)
            return
        if set(node) == {"ref"} and isinstance(node["ref"], str):
            found.setdefault(node["ref"])
            return
        if set(node) == {"const"}:
            return
        for key, value in node.items():
            if key == "exists" and isinstance(value, str):
                found.setdefault(value)
            else:
                visit(value, key)

    visit(expr)
    return list(found)
