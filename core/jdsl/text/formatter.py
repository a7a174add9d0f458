"""Behavior IR -> canonical behavior text (docs/design.md §3).

Canonical means: two spaces per level, short head words (``seq``, ``act``), attributes in the
order of :data:`jdsl.text.syntax.ATTRIBUTES` then ``id=`` and ``context=``, defaults left out,
repeat's ``until:`` as a block after its child, instructions as ``| `` lines, no comments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jdsl.errors import ValidationError
from jdsl.ir.walk import child_slots, is_ir_node, labelled_children
from jdsl.text.expression import format_expression
from jdsl.text.scanner import (
    IDENTIFIER,
    KEYWORDS,
    NAME_TEXT,
    format_literal,
    format_path,
    format_word,
)
from jdsl.text.syntax import TEXT_WORDS, Attribute, attributes_for

__all__ = ["INDENT", "format_node"]

INDENT = "  "


def format_node(node: dict[str, Any], depth: int = 0) -> list[str]:
    """Print one IR node dict and its subtree as lines of text (without newlines)."""
    kind = node.get("kind")
    if kind not in TEXT_WORDS:
        raise ValidationError([f"unknown node kind {kind!r}; known: {sorted(TEXT_WORDS)}"])
    head = " ".join(
        part
        for part in (TEXT_WORDS[kind], _OPERANDS.get(kind, _nothing)(node), _attributes(node))
        if part
    )
    pad = INDENT * depth
    lines = [pad + head]
    instructions = node.get("instructions")
    if instructions is not None:
        lines += [f"{pad}{INDENT}|{' ' if line else ''}{line}" for line in instructions.split("\n")]
    stray = [child for child in child_slots(node) if not is_ir_node(child)]
    if stray:
        raise ValidationError([f"{kind} holds {repr(stray[0])[:60]} where a node belongs; "
                               "give a node dict with a kind"])  # fmt: skip
    headed = ""
    for label, child in labelled_children(node):
        if label and label != headed:  # a later slot (a repeat's until:) is a block of its own
            lines.append(f"{pad}{INDENT}{label}:")
            headed = label
        lines += format_node(child, depth + (2 if label else 1))
    return lines


def _nothing(node: dict[str, Any]) -> str:
    return ""


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not NAME_TEXT.fullmatch(value):
        raise ValidationError([f"{what} {value!r} has no behavior-text form; use [A-Za-z0-9_.-]"])
    return value


def _args(args: dict[str, Any] | None) -> str:
    parts = []
    for name, spec in (args or {}).items():
        if isinstance(spec, dict) and set(spec) == {"ref"}:
            parts.append(f"{name}={format_path(spec['ref'])}")
        elif isinstance(spec, dict) and set(spec) == {"const"}:
            parts.append(f"{name}={format_literal(spec['const'])}")
        else:
            raise ValidationError([f"argument {name!r} must be {{ref}} or {{const}}: {spec!r}"])
    return "(" + ", ".join(parts) + ")"


def _action(node: dict[str, Any]) -> str:
    text = _name(node.get("tool"), "tool name") + _args(node.get("args"))
    if node.get("store") is not None:
        text += " -> " + format_word(node["store"])
    return text


_OPERANDS: dict[str, Callable[[dict[str, Any]], str]] = {
    "root": lambda node: format_word(node.get("name") or "behavior"),
    "action": _action,
    "guard_call": lambda node: _name(node.get("predicate"), "predicate") + _args(node.get("args")),
    "predict": lambda node: format_literal(node.get("signature")),
    "react": lambda node: format_literal(node.get("signature")),
    "check": lambda node: (
        f"{format_path(node.get('key', ''))} == {format_literal(node.get('equals'))}"
    ),
    "guard": lambda node: format_expression(node.get("expression")),
    "for_each": lambda node: (
        f"{_item(node.get('item'), 'item')} in {format_path(node.get('items', ''))}"
    ),
}


def _item(value: Any, what: str) -> str:
    """An item (never a reserved word, as the parser reads it) or a store name, printed."""
    reserved = what == "item" and value in KEYWORDS
    if not isinstance(value, str) or not IDENTIFIER.fullmatch(value) or reserved:
        raise ValidationError([f"{what} {value!r} has no behavior-text form; use a name such as "
                               "order_id"])  # fmt: skip
    return value


def _attributes(node: dict[str, Any]) -> str:
    parts = []
    for attribute in attributes_for(node["kind"]):
        value = node.get(attribute.field)
        if value is None or value == attribute.default:
            continue
        parts.append(f"{attribute.name}={_value(attribute, value, node)}")
    return " ".join(parts)


def _value(attribute: Attribute, value: Any, node: dict[str, Any]) -> str:
    if attribute.value == "collect":
        return f"{format_path(value)} -> {_item(node.get('store'), 'store')}"
    if attribute.value == "word":
        return format_word(value)
    if attribute.value == "names":
        return "[" + ", ".join(format_word(name) for name in value) + "]"
    return format_literal(value)
