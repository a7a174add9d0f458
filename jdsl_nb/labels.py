"""One-line labels for IR nodes, in the behavior text form (DESIGN.md §2 table).

``node_label(node)`` gives the full text (used in tooltips and outlines); ``shorten`` cuts it to
a drawing-friendly length. Guard expressions print through ``jdsl.text`` when it is installed,
else through a small local printer with the same operators.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["format_expression", "node_label", "shorten"]

_BINARY = {"eq": "==", "neq": "!=", "lt": "<", "lte": "<=", "gt": ">", "gte": ">=", "in": "in"}


def shorten(text: str, limit: int = 48) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 1)] + "…"


def _operand(value: Any) -> str:
    if isinstance(value, Mapping) and "ref" in value:
        return str(value["ref"])
    if isinstance(value, Mapping) and "const" in value:
        return json.dumps(value["const"], ensure_ascii=False)
    if isinstance(value, Mapping):
        return _local_expression(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def _local_expression(expr: Mapping[str, Any]) -> str:
    if not expr:
        return "true"
    op, arg = next(iter(expr.items()))
    if op in _BINARY and isinstance(arg, list | tuple) and len(arg) == 2:
        return f"{_operand(arg[0])} {_BINARY[op]} {_operand(arg[1])}"
    if op in ("and", "or") and isinstance(arg, list | tuple):
        return f" {op} ".join(f"({_local_expression(e)})" for e in arg)
    if op == "not" and isinstance(arg, Mapping):
        return f"not ({_local_expression(arg)})"
    if op == "exists":
        return f"exists({_operand(arg) if isinstance(arg, Mapping) else arg})"
    return json.dumps(dict(expr), ensure_ascii=False, default=str)


def _core_formatter() -> Callable[[Any], str] | None:
    try:
        from jdsl.text.expression import format_expression as core
    except ImportError:
        return None
    return core  # type: ignore[no-any-return]


def format_expression(expr: Any) -> str:
    """A guard expression in text form (``orders[$i].status == "pending"``); never raises."""
    if not isinstance(expr, Mapping):
        return str(expr)
    core = _core_formatter()
    if core is not None:
        try:
            return str(core(dict(expr)))
        except Exception:  # noqa: BLE001 - fall back to the local printer
            pass
    return _local_expression(expr)


def _args(args: Any) -> str:
    if not isinstance(args, Mapping):
        return ""
    return ", ".join(f"{name}={_operand(value)}" for name, value in args.items())


def _action(node: Mapping[str, Any]) -> str:
    text = f"act {node.get('tool', '?')}({_args(node.get('args'))})"
    return text + (f" -> {node['store']}" if node.get("store") else "")


def _react(node: Mapping[str, Any]) -> str:
    tools = ", ".join(str(t) for t in node.get("tools") or [])
    return f"react {json.dumps(node.get('signature', ''))} tools=[{tools}]"


_LABELS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "root": lambda n: f"root {n.get('name', '')}".strip(),
    "sequence": lambda n: "seq",
    "selector": lambda n: "sel",
    "action": _action,
    "predict": lambda n: f"predict {json.dumps(n.get('signature', ''))}",
    "react": _react,
    "check": lambda n: f"check {n.get('key')} == {json.dumps(n.get('equals'), default=str)}",
    "guard": lambda n: f"guard {format_expression(n.get('expression'))}",
    "guard_call": lambda n: f"guard_call {n.get('predicate', '?')}({_args(n.get('args'))})",
    "repeat": lambda n: f"repeat max={n.get('max', 3)}",
    "timeout": lambda n: f"timeout seconds={n.get('seconds', 30.0)}",
}


def node_label(node: Mapping[str, Any]) -> str:
    """The full one-line text of an IR node, e.g. ``act lookup(email=email) -> customer``."""
    kind = str(node.get("kind", "?"))
    make = _LABELS.get(kind)
    try:
        return make(node) if make else kind
    except Exception:  # noqa: BLE001 - a label never breaks a drawing
        return kind
