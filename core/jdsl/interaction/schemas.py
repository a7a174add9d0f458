"""JSON Schemas from outside (a package's ``tools.json`` and signatures): a safe subset, checked
before use, and a validator that can neither fetch nor be made slow.

:func:`check_schema` refuses, with an :class:`UnsafeSchemaError` naming the place (a JSON
pointer):

* a ``$ref`` (or ``$dynamicRef`` / ``$recursiveRef``) that is not a ``#...`` pointer into the
  same document, or that points at nothing, and an ``$id`` that would change the base address:
  nothing is ever fetched, so ``{"$ref": "http://host/x"}`` is refused rather than retrieved;
* a ``$schema`` other than draft 7, 2019-09 or 2020-12;
* a ``type`` outside the seven JSON Schema types;
* a ``pattern`` or ``patternProperties`` key longer than :data:`MAX_PATTERN` characters or
  outside RE2's syntax (no backreferences, no lookaround); ``unevaluatedProperties`` in a
  document that also has ``patternProperties``;
* a document deeper than :data:`MAX_DEPTH` or with more than :data:`MAX_NODES` subschemas, and
  anything the draft's own meta-schema rejects.

:func:`safe_validator` then validates with an empty reference registry (a remote ``$ref`` is an
error, never a request) and evaluates every pattern with RE2 (``google-re2``), whose matching
time is linear in the input: ``^(a+)+$`` against ``"a" * 28 + "b"`` takes microseconds, not the
seconds Python's backtracking ``re`` takes.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any

from jdsl.errors import JdslError

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_PATTERN",
    "UnsafeSchemaError",
    "check_schema",
    "external_references",
    "load_jsonschema",
    "safe_validator",
]

MAX_PATTERN = 512
MAX_DEPTH = 64
MAX_NODES = 1_000
"""At most this many subschemas in one schema (jsonschema's own meta-schema check costs a few
milliseconds a subschema; a tool's argument schema needs tens)."""
TYPES = frozenset({"null", "boolean", "object", "array", "number", "string", "integer"})
DRAFTS = frozenset(
    {
        "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
    }
)

_MAPS = ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items", "additionalItems")
_SINGLE = (
    "not", "if", "then", "else", "additionalProperties", "contains", "propertyNames",
    "unevaluatedItems", "unevaluatedProperties", "items", "additionalItems",
)  # fmt: skip
_REFS = ("$ref", "$dynamicRef", "$recursiveRef")


class UnsafeSchemaError(JdslError, ValueError):
    """A JSON Schema outside the safe subset (module docstring).

    Attributes:
        where: the JSON pointer of the part at fault (``/properties/zip/pattern``).
    """

    def __init__(self, message: str, *, where: str = "") -> None:
        self.where = where
        super().__init__(message)


@functools.cache
def load_jsonschema() -> ModuleType:
    """The ``jsonschema`` module, imported without ``rfc3987-syntax`` when nothing imported
    either yet: jsonschema imports it, when installed (the ``dev`` extra brings it), only to
    check the ``iri`` and ``iri-reference`` formats, and that import builds 39 Lark grammars
    (~2.5 s CPU), which every command that loads a package paid. No meta-schema and no format
    jdsl asserts is an IRI format. Call it before any ``from jsonschema... import``."""
    if "jsonschema" in sys.modules:
        return sys.modules["jsonschema"]
    blocked = "rfc3987_syntax" not in sys.modules
    if blocked:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # ImportError on import
    try:
        import jsonschema
    finally:
        if blocked:
            del sys.modules["rfc3987_syntax"]
    return jsonschema


def check_schema(schema: Any, *, where: str = "schema") -> None:
    """Refuse ``schema`` unless it is in the safe subset (module docstring).

    Raises:
        UnsafeSchemaError: naming ``where`` and the JSON pointer of the part at fault.
    """
    if isinstance(schema, bool):
        return
    if not isinstance(schema, Mapping):
        raise UnsafeSchemaError(
            f"{where} must be a JSON Schema object, not {type(schema).__name__}"
        )
    outside = external_references(schema)
    if outside:
        raise UnsafeSchemaError(
            f"{where} refers outside itself ({outside[0][:80]!r}; nothing is fetched): inline "
            "the schema or put it under $defs and point at '#/$defs/NAME'"
        )
    kinds = {key for _, node in _nodes(schema, where) for key in node}
    if "unevaluatedProperties" in kinds and "patternProperties" in kinds:
        raise UnsafeSchemaError(
            f"{where}: unevaluatedProperties with patternProperties is outside the safe "
            "subset; use additionalProperties"
        )
    load_jsonschema()
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    try:
        validator_for(schema, default=_default())(schema).check_schema(schema)
    except SchemaError as exc:
        pointer = "/" + "/".join(str(p) for p in exc.absolute_path)
        raise UnsafeSchemaError(
            f"{where} is not a valid JSON Schema at {pointer}: {exc.message[:200]}", where=pointer
        ) from None


def external_references(schema: Any) -> list[str]:
    """Every ``$ref`` / ``$dynamicRef`` / ``$recursiveRef`` / ``$id`` value in ``schema`` that
    is not a ``#...`` pointer into it, in document order (what ``jdsl package inspect`` shows;
    :func:`check_schema` refuses them)."""
    found: list[str] = []
    stack: list[Any] = [schema]
    while stack:  # iterative: any depth, each value once
        value = stack.pop()
        if isinstance(value, Mapping):
            for key, item in value.items():
                if key in (*_REFS, "$id") and isinstance(item, str) and not item.startswith("#"):
                    found.append(item)
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, list):
            stack.extend(reversed(value))
    return found


def safe_validator(schema: Mapping[str, Any] | bool) -> Any:
    """A ``jsonschema`` validator for ``schema`` (checked first) that fetches nothing and runs
    every pattern with RE2.

    Raises:
        UnsafeSchemaError: ``schema`` is outside the safe subset.
    """
    check_schema(schema)
    from jsonschema import validators
    from referencing import Registry

    base = (
        validators.validator_for(schema, default=_default())
        if isinstance(schema, Mapping)
        else _default()
    )
    cls = validators.extend(
        base,
        {
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
        },
    )
    return cls(schema, registry=Registry())


def _default() -> Any:
    load_jsonschema()
    from jsonschema import Draft202012Validator

    return Draft202012Validator


def _nodes(root: Mapping[str, Any], where: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every subschema of ``root`` as (JSON pointer, object), each checked (module docstring)."""
    anchors = set(_anchors(root))
    stack: list[tuple[str, Any, int]] = [("", root, 0)]
    count = 0
    while stack:
        pointer, node, depth = stack.pop()
        if isinstance(node, bool):
            continue
        if not isinstance(node, Mapping):
            raise UnsafeSchemaError(f"{where} at {pointer or '/'} is not a schema", where=pointer)
        count += 1
        if depth > MAX_DEPTH or count > MAX_NODES:
            raise UnsafeSchemaError(
                f"{where} nests deeper than {MAX_DEPTH} or holds more than {MAX_NODES} subschemas",
                where=pointer,
            )
        _check_node(root, anchors, node, pointer, where)
        yield pointer, node
        for key in _MAPS:
            if isinstance(node.get(key), Mapping):
                stack += [(f"{pointer}/{key}/{k}", v, depth + 1) for k, v in node[key].items()]
        for key in _LISTS:
            if isinstance(node.get(key), list):
                stack += [(f"{pointer}/{key}/{i}", v, depth + 1) for i, v in enumerate(node[key])]
        for key in _SINGLE:
            if isinstance(node.get(key), (Mapping, bool)):
                stack.append((f"{pointer}/{key}", node[key], depth + 1))


def _check_node(
    root: Mapping[str, Any], anchors: set[str], node: Mapping[str, Any], pointer: str, where: str
) -> None:
    def refuse(what: str, fix: str) -> UnsafeSchemaError:
        return UnsafeSchemaError(f"{where} at {pointer or '/'}: {what}; {fix}", where=pointer)

    for key in _REFS:
        if key in node:
            ref = node[key]
            if not isinstance(ref, str) or not ref.startswith("#"):
                raise refuse(
                    f"{key} {str(ref)[:80]!r} points outside the schema (nothing is fetched)",
                    "inline the schema or put it under $defs and point at '#/$defs/NAME'",
                )
            if not _resolves(root, anchors, ref):
                raise refuse(f"{key} {ref[:80]!r} points at nothing", "fix the pointer")
    if "$id" in node and not (isinstance(node["$id"], str) and node["$id"].startswith("#")):
        raise refuse(f"$id {str(node['$id'])[:80]!r} changes the base address", "remove $id")
    if "$schema" in node and str(node["$schema"]).rstrip("#") not in DRAFTS:
        raise refuse(
            f"$schema {str(node['$schema'])[:80]!r} is not a known draft",
            "use draft-07, 2019-09 or 2020-12, or leave $schema out",
        )
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if "type" in node else []
    unknown = [k for k in kinds if not isinstance(k, str) or k not in TYPES]
    if unknown:
        raise refuse(f"unknown type {unknown[0]!r}", f"use one of {', '.join(sorted(TYPES))}")
    patterns = [node["pattern"]] if "pattern" in node else []
    if isinstance(node.get("patternProperties"), Mapping):
        patterns += list(node["patternProperties"])
    for pattern in patterns:
        problem = _pattern_problem(pattern)
        if problem:
            raise refuse(f"pattern {str(pattern)[:80]!r} {problem}", "write a simpler pattern")


def _resolves(root: Mapping[str, Any], anchors: set[str], ref: str) -> bool:
    """Whether ``#/a/b`` (or ``#``) points at a part of ``root``; a ``#name`` anchor is
    accepted when some ``$anchor`` in ``root`` names it (``anchors``)."""
    from urllib.parse import unquote

    fragment = unquote(ref[1:])
    if fragment and not fragment.startswith("/"):
        return fragment in anchors
    node: Any = root
    for raw in fragment.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


def _anchors(root: Any) -> Iterator[str]:
    """Every ``$anchor`` name in ``root``, at any depth (iterative)."""
    stack = [root]
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            if "$anchor" in value:
                yield str(value["$anchor"])
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def _pattern_problem(pattern: Any) -> str | None:
    if not isinstance(pattern, str):
        return "is not a string"
    if len(pattern) > MAX_PATTERN:
        return f"is longer than {MAX_PATTERN} characters"
    try:
        _compiled(pattern)
    except Exception as exc:  # re2.error, or a TypeError on odd input
        return f"is not a linear-time (RE2) regular expression ({str(exc)[:120]})"
    return None


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> Any:
    import re2

    return re2.compile(pattern)


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _compiled(pattern).search(instance):
        yield ValidationError(f"{instance[:80]!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _compiled(pattern).search(key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    known = schema.get("properties", {})
    patterns = [_compiled(p) for p in schema.get("patternProperties", {})]
    extras = [k for k in instance if k not in known and not any(p.search(k) for p in patterns)]
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif not extra and extras:
        shown = ", ".join(repr(k)[:40] for k in sorted(extras)[:5])
        yield ValidationError(f"Additional properties are not allowed ({shown} unexpected)")
