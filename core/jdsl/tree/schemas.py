"""JSON Schemas of the values a tree passes around, and whether one fits another.

The static check (:mod:`jdsl.tree.check`) compares what a producer writes (a predict or react
output's signature type, a tool's return annotation) with what a consumer takes (a tool or
predicate parameter's annotation, or a Tool's declared JSON Schema). Plain Python types,
``Literal``, unions and generics map to JSON Schema directly, because a check runs before every
run; other types go through pydantic.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from jdsl.interaction.tools import Tool

__all__ = [
    "JSON_TYPES",
    "Schema",
    "annotation_schema",
    "fits",
    "parameter_schema",
    "return_schema",
    "type_text",
    "without_enum",
]

Schema = dict[str, Any]


def without_enum(schema: Schema) -> Schema:
    """``schema`` with its ``enum`` (and those of its options) left out: only the JSON types."""
    options = _options(schema)
    if options is not None:
        return {"anyOf": [without_enum(o) for o in options]}
    return {k: v for k, v in schema.items() if k != "enum"}


def _unwrapped(fn: Callable[..., Any]) -> Callable[..., Any]:
    return fn.fn if isinstance(fn, Tool) else fn


def parameter_schema(fn: Callable[..., Any], arg: str) -> Schema | None:
    """The JSON Schema of ``fn``'s parameter ``arg`` (a Tool's declared schema first), or None
    when it is not annotated (or has no such parameter)."""
    if isinstance(fn, Tool) and fn._parameters is not None:
        properties = fn._parameters.get("properties") or {}
        return properties.get(arg) if isinstance(properties, Mapping) else None
    try:
        parameter = inspect.signature(_unwrapped(fn)).parameters.get(arg)
    except (TypeError, ValueError):
        return None
    if parameter is None or parameter.annotation is inspect.Parameter.empty:
        return None
    return annotation_schema(_hints(fn).get(arg, parameter.annotation))


def return_schema(fn: Callable[..., Any]) -> Schema | None:
    annotation = _hints(fn).get("return", inspect.Parameter.empty)
    if annotation is inspect.Parameter.empty or annotation is None:
        return None
    return annotation_schema(annotation)


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(_unwrapped(fn))
    except Exception:  # noqa: BLE001 - unresolvable annotations: no type check
        return {}


JSON_TYPES: Mapping[Any, str] = types.MappingProxyType(
    {
        str: "string",
        int: "integer",
        float: "number",
        bool: "boolean",
        list: "array",
        tuple: "array",
        set: "array",
        frozenset: "array",
        dict: "object",
        type(None): "null",
    }
)
"""Python type -> the JSON Schema ``type`` that describes it (the one table of JSON types)."""


def annotation_schema(annotation: Any) -> Schema | None:
    """The JSON Schema of a Python type: plain types, ``Literal``, unions and generics directly
    (a check runs before every run, so it stays cheap), anything else through pydantic; None
    when the type says nothing (``Any``, unannotated) or cannot be described."""
    if annotation is Any or annotation is inspect.Parameter.empty:
        return None
    if annotation in JSON_TYPES:
        return {"type": JSON_TYPES[annotation]}
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        kinds = {JSON_TYPES.get(type(v)) for v in args}
        return {"enum": list(args), **({"type": kinds.pop()} if len(kinds) == 1 else {})}
    if origin is typing.Union or origin is types.UnionType:
        options = [annotation_schema(a) for a in args]
        return None if any(o is None for o in options) else {"anyOf": options}
    if origin is typing.Annotated:
        return annotation_schema(args[0])
    if origin in JSON_TYPES:
        return {"type": JSON_TYPES[origin]}
    try:
        from pydantic import TypeAdapter

        schema: Schema = TypeAdapter(annotation).json_schema()
    except Exception:  # noqa: BLE001 - a type pydantic cannot describe: no type check
        return None
    return schema or None


def _options(schema: Schema) -> list[Schema] | None:
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return [dict(s) for s in schema[key] if isinstance(s, Mapping)]
    return None


def fits(produced: Schema, expected: Schema) -> bool:
    """Whether every value ``produced`` allows is allowed by ``expected`` (by JSON type)."""
    options = _options(produced)
    if options is not None:
        return all(fits(option, expected) for option in options)
    options = _options(expected)
    if options is not None:
        return any(fits(produced, option) for option in options)
    have, want = produced.get("type"), expected.get("type")
    if have is None or want is None:
        return True
    if have != want and not (have == "integer" and want == "number"):
        return False
    allowed, given = expected.get("enum"), produced.get("enum")
    return allowed is None or (given is not None and set(map(str, given)) <= set(map(str, allowed)))


def type_text(schema: Schema) -> str:
    options = _options(schema)
    if options is not None:
        return " | ".join(type_text(o) for o in options)
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    return str(schema.get("type", "any"))
