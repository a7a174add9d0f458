"""``--input KEY=VALUE`` for the magics: values typed by what the tree feeds them to.

A value on the magic line is text. It is read as the type the tree's consumer expects: the
parameter annotation (or declared JSON Schema) of every tool or predicate argument that refs the
key whole. ``zip=80279`` stays the string ``"80279"`` for ``find_user_id_by_name_zip(zip: str)``
and becomes the int 80279 for ``def f(zip: int)``. With no annotated consumer the value is JSON
when it parses, else the string, and the run view says plainly what was passed
(:attr:`TypedInputs.notes`). A value that cannot be the expected type is a ``UsageError``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from IPython.core.error import UsageError
from jdsl.errors import InputError
from jdsl.inputs import SCHEMA_TYPES, check_input_name, input_json
from jdsl.ir.walk import as_ir, walk_ir

__all__ = ["TypedInputs", "split_pairs", "typed_inputs"]


@dataclass
class TypedInputs:
    """The run inputs and one note per value whose type was guessed.

    Attributes:
        values: key -> value, ready for ``run(**values)``.
        notes: e.g. ``--input n=3 was read as JSON: int 3 (no annotated parameter takes n)``.
    """

    values: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def split_pairs(pairs: list[list[str]] | list[str] | None) -> list[tuple[str, str]]:
    """``KEY=VALUE`` items (argparse may nest them) as ``(key, raw text)``.

    Raises:
        UsageError: an item without ``=`` or without a key.
    """
    flat: list[str] = []
    for item in pairs or []:
        flat.extend(item if isinstance(item, list) else [item])
    out = []
    for item in flat:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--input {item!r} is not KEY=VALUE; write e.g. --input email=a@b.c")
        try:
            check_input_name(key)
        except InputError as exc:
            raise UsageError(str(exc)) from None
        out.append((key, raw))
    return out


def _json_or_text(key: str, raw: str) -> Any:
    """``raw`` as JSON, else the text itself; JSON no run can carry is a UsageError."""
    try:
        return input_json(raw)
    except json.JSONDecodeError:
        return raw
    except ValueError as exc:  # too deep, NaN, an int over the digit limit
        raise UsageError(f"--input {key}: {exc}; pass a smaller value") from None


def consumers(tree: Any, bindings: Any) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """key -> ``[(who, JSON Schema)]``: the annotated parameters that read the key whole."""
    from jdsl.tree.schemas import parameter_schema

    found: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for node in walk_ir(as_ir(tree)):
        name = node.get("tool") if node.get("kind") == "action" else node.get("predicate")
        table = getattr(bindings, "tools" if node.get("kind") == "action" else "predicates", {})
        fn = table.get(name) if node.get("kind") in ("action", "guard_call") else None
        for arg, spec in (node.get("args") or {}).items():
            if fn is None or not isinstance(spec, Mapping) or not isinstance(spec.get("ref"), str):
                continue
            schema = parameter_schema(fn, arg)
            if schema and schema.get("type") in SCHEMA_TYPES:
                found.setdefault(spec["ref"], []).append((f"{name}({arg})", schema))
    return found


def _as_type(key: str, raw: str, who: str, schema: dict[str, Any]) -> Any:
    want = str(schema["type"])
    if want == "string":
        return raw
    value = _json_or_text(key, raw)
    if isinstance(value, SCHEMA_TYPES[want]) and not (
        want != "boolean" and isinstance(value, bool)
    ):
        return value
    if want == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    raise UsageError(
        f"--input {key}={raw}: {who} expects {want}, and {raw!r} is not one; write it as "
        f"{want} (e.g. --input {key}={_EXAMPLES[want]})"
    )


_EXAMPLES = {
    "integer": "3",
    "number": "2.5",
    "boolean": "true",
    "array": "'[1, 2]'",
    "object": "'{\"a\": 1}'",
}


def typed_inputs(pairs: list[tuple[str, str]], tree: Any, bindings: Any) -> TypedInputs:
    """Read each ``(key, raw)`` as its consumers' type (module docstring).

    Raises:
        UsageError: a value that is not the type an annotated parameter expects, a key two
            parameters read with different types, or a key given twice.
    """
    wanted = consumers(tree, bindings) if pairs else {}
    result = TypedInputs()
    for key, raw in pairs:
        if key in result.values:
            raise UsageError(f"--input {key!r} is given twice; keep one of them")
        targets = wanted.get(key, [])
        if len({str(s["type"]) for _, s in targets}) > 1:
            listing = ", ".join(f"{who}: {s['type']}" for who, s in targets)
            raise UsageError(f"--input {key}: parameters expect different types ({listing})")
        if targets:
            result.values[key] = _as_type(key, raw, *targets[0])
            continue
        value = _json_or_text(key, raw)
        result.values[key] = value
        if not isinstance(value, str):
            result.notes.append(
                f"--input {key}={raw} was read as JSON: {type(value).__name__} {value!r} (no "
                f"annotated parameter takes {key}); quote it as JSON for a string: "
                f"--input {key}='\"{raw}\"'"
            )
    from jdsl.tree import Node

    if pairs and isinstance(tree, Node):
        from jdsl.inputs import unread_inputs_note

        unread = unread_inputs_note(tree, [key for key, _ in pairs])
        if unread:
            result.notes.append(unread)
    return result
