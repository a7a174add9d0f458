"""Run inputs given as text, ``KEY=VALUE``: the reading of the commands (``jdsl run``,
``jdsl package run``, ``jdsl export otel --attribute``); the notebook's ``%behavior --input``
(``jdsl_nb/magic_inputs.py``) shares the name check and the JSON reading, but reads an untyped
value as JSON when it parses.

``KEY=VALUE`` is the string VALUE, unless the reader records the type of KEY (for a package: a
tool argument that reads KEY whole, ``tools.json``, or a typed input field of a model leaf's
signature; :func:`jdsl.package.input_types`). Then VALUE is read as that type (``zip=77209``
stays the string ``"77209"`` for ``find_user(zip: str)``, ``count=3`` is the integer 3 for
``count: int``) and checked against it. ``KEY:=JSON`` (as in httpie) always gives the JSON
value, unchecked.

>>> parse_inputs(["name=Ada", "n:=3", "zip=02134"], types={"zip": [("find.zip", {"type": "string"})]})
{'name': 'Ada', 'n': 3, 'zip': '02134'}
>>> parse_inputs(["count=3"], types={"count": [("f.count", {"type": "integer"})]})
{'count': 3}
"""

from __future__ import annotations

import inspect
import json
import types
from collections.abc import Mapping, Sequence
from typing import Any

from jdsl.errors import InputError
from jdsl.ir.nodes import nesting_problem
from jdsl.tree.root import Root
from jdsl.tree.schemas import JSON_TYPES

__all__ = [
    "RUN_PARAMETERS",
    "SCHEMA_TYPES",
    "InputUse",
    "check_input_name",
    "input_json",
    "parse_inputs",
    "split_pair",
    "typed_value",
    "unread_inputs_note",
]

InputUse = tuple[str, dict[str, Any]]
"""Where a run input is read whole and its JSON Schema: ``("lookup.email", {...})``."""

SCHEMA_TYPES: Mapping[str, type] = types.MappingProxyType(
    {name: kind for kind, name in reversed(list(JSON_TYPES.items())) if name != "null"}
)
"""JSON Schema ``type`` -> the Python type of its values (``"integer"`` -> int), read from
:data:`jdsl.tree.schemas.JSON_TYPES` (``"array"`` -> list, the first type it lists)."""


RUN_PARAMETERS: frozenset[str] = frozenset(
    name
    for name, parameter in inspect.signature(Root.run).parameters.items()
    if parameter.kind is inspect.Parameter.KEYWORD_ONLY
)
"""``run()``'s own keyword parameters (``model``, ``trace_sink``, ``tools``, ...): no run input
can have these names, since inputs are ``run(**inputs)``."""


def check_input_name(key: str) -> None:
    """Raise :class:`InputError` when ``key`` is one of :data:`RUN_PARAMETERS`."""
    if key in RUN_PARAMETERS:
        raise InputError(
            f"{key!r} is a parameter of run() itself, not a blackboard key; "
            "name the input otherwise (the tree reads it by that name)",
            key=key,
        )


def input_json(text: str) -> Any:
    """The JSON value of an input's text.

    Raises:
        json.JSONDecodeError: not JSON.
        ValueError: a value no run can carry (nested deeper than an IR may be, NaN or
            Infinity, an int over the digit limit): never a RecursionError.
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    problem = nesting_problem(value)
    if problem:
        raise ValueError(problem.replace("the document", "the value"))
    return value


def split_pair(pair: str) -> tuple[str, str, bool]:
    """``"k=v"`` -> ``("k", "v", False)``; ``"n:=3"`` -> ``("n", "3", True)`` (a JSON value).

    Raises:
        InputError: an item without ``=`` or without a key.
    """
    key, sep, text = pair.partition("=")
    as_json = key.endswith(":")
    key = key.removesuffix(":").strip()
    if not sep or not key:
        raise InputError(f"{pair!r} is not KEY=VALUE", key=key)
    check_input_name(key)
    return key, text, as_json


def parse_inputs(
    pairs: Sequence[str], *, types: Mapping[str, Sequence[InputUse]] | None = None
) -> dict[str, Any]:
    """``["k=v", "n:=3", ...]`` -> ``{k: "v", n: 3}`` (the rule in the module docstring).

    Args:
        pairs: ``KEY=VALUE`` (a string, or the type ``types`` records for KEY) or
            ``KEY:=JSON`` (a JSON value).
        types: ``{key: [(where, JSON Schema)]}``, e.g. from :func:`jdsl.package.input_types`.

    Raises:
        InputError: an item without ``=``, a key given twice, bad JSON after ``:=``, or a value
            that does not fit the recorded type.
    """
    inputs: dict[str, Any] = {}
    for pair in pairs:
        key, text, as_json = split_pair(pair)
        if key in inputs:
            raise InputError(f"{key!r} is given twice; keep one of them", key=key)
        if as_json:
            inputs[key] = _json(key, text)
        else:
            inputs[key] = typed_value(key, text, (types or {}).get(key, ()))
    return inputs


def _json(key: str, text: str) -> Any:
    try:
        return input_json(text)
    except json.JSONDecodeError:
        raise InputError(
            f"{key}:={text} is not JSON; write {key}={text} for a string", key=key
        ) from None
    except ValueError as exc:  # too deep, NaN, an int over the digit limit
        raise InputError(f"{key}:=...: {str(exc)[:120]}; pass a smaller value", key=key) from None


def _allows_string(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    return kind is None or kind == "string" or (isinstance(kind, list) and "string" in kind)


def typed_value(key: str, text: str, uses: Sequence[InputUse]) -> Any:
    """``text`` read as the type every use records (JSON when one does not take a string),
    checked against each use's JSON Schema.

    Raises:
        InputError: the value does not fit a use's schema.
    """
    value: Any = text
    if not all(_allows_string(schema) for _, schema in uses):
        try:
            value = input_json(text)  # never a RecursionError
        except ValueError:
            pass  # the check below names the type wanted
    for where, schema in uses:
        from jsonschema.exceptions import best_match  # lazy: jsonschema costs ~1 s to import

        from jdsl.interaction.schemas import safe_validator  # fetches nothing, RE2 patterns

        try:
            error = best_match(safe_validator(schema).iter_errors(value))
        except RecursionError:  # {"$ref": "#"}: a schema that refers to itself without end
            raise InputError(
                f"{key}: the schema of {where} refers to itself without end ($ref); fix the "
                f"package's schema, or pass {key}:=JSON to pass a JSON value unchecked",
                key=key,
            ) from None
        if error is not None:
            raise InputError(
                f"{key}={text!r} does not fit {where} ({error.message}); pass a value of its "
                f"type, or {key}:=JSON to pass a JSON value unchecked",
                key=key,
            )
    return value


def unread_inputs_note(tree: Any, keys: Sequence[str], option: str = "--input") -> str | None:
    """The warning for run inputs ``tree`` never reads (None when it reads them all).

    Shared by ``jdsl run`` and the notebook's ``%behavior --input``, so both flag a typo'd or
    stale key the same way. "Read" is the static check's input set (keys some node reads and
    no node writes first); ``guard exists(key)`` reads are not counted there, so this warns
    and never refuses.

    Args:
        tree: a :class:`jdsl.tree.Root` (or any node :func:`jdsl.tree.check.check_tree` takes).
        keys: the input keys given.
        option: the flag named in the text.
    """
    from jdsl.tree.check import check_tree

    read = set(check_tree(tree).inputs)
    unread = [key for key in keys if key not in read]
    if not unread:
        return None
    names = ", ".join(unread)
    reads = ", ".join(sorted(read)) or "no inputs"
    return (
        f"{option} {names}: the tree never reads {'it' if len(unread) == 1 else 'them'} "
        f"(it reads: {reads}); check the spelling"
    )
