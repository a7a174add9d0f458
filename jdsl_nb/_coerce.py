"""Turn core objects into plain data: IR dicts, event dicts, JSON-able values.

The notebook layer reads core objects through their documented shapes (docs/ARCHITECTURE.md)
and duck-types everything else, so a view works on a live object, its IR dict, a loaded trace
or a list of event dicts alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "as_events",
    "as_ir",
    "child_slots",
    "is_ir_node",
    "jsonable",
    "structural_ids",
]

_COMPOSITE_KINDS = frozenset({"sequence", "selector"})


def jsonable(value: Any) -> Any:
    """A JSON-able copy of ``value`` (``to_dict()`` first when an object has one).

    Everything else follows ``jdsl.trace.jsonable``: pydantic models dumped, dataclasses as
    dicts, other objects as their ``repr``.
    """
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, type) and not isinstance(value, Mapping):
        value = to_dict()
    from jdsl.trace import jsonable as core_jsonable

    return core_jsonable(value)


def is_ir_node(value: Any) -> bool:
    """True for a dict that looks like one Behavior IR node (has a string ``kind``)."""
    return isinstance(value, Mapping) and isinstance(value.get("kind"), str)


def as_ir(obj: Any) -> dict[str, Any]:
    """The IR dict of a tree, a ``behavior.json`` document, a package or a compile result.

    Raises:
        TypeError: when ``obj`` holds no tree.
    """
    if is_ir_node(obj):
        return dict(obj)
    if isinstance(obj, Mapping) and is_ir_node(obj.get("root")):
        return dict(obj["root"])
    dump = getattr(obj, "model_dump", None)
    if callable(dump) and isinstance(getattr(obj, "kind", None), str):
        return dict(dump(mode="json", exclude_none=True))
    for attr in ("ir", "root", "tree"):
        inner = getattr(obj, attr, None)
        if inner is not None and inner is not obj:
            try:
                return as_ir(inner)
            except TypeError:
                continue
    raise TypeError(f"{type(obj).__name__} holds no behavior tree (expected a node or IR dict)")


def child_slots(node: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The traversal children of an IR node as ``(edge label, child)``, in stable order.

    Composites list their ``children`` in order; ``repeat`` has ``child`` then ``until``; the
    decorators and ``root`` have ``child``.
    """
    slots: list[tuple[str, dict[str, Any]]] = []
    if node.get("kind") in _COMPOSITE_KINDS:
        for child in node.get("children") or []:
            if is_ir_node(child):
                slots.append(("", child))
        return slots
    if is_ir_node(node.get("child")):
        slots.append(("", node["child"]))
    if is_ir_node(node.get("until")):
        slots.append(("until", node["until"]))
    return slots


def structural_ids(ir: Mapping[str, Any]) -> dict[int, str]:
    """Effective ids (author id, else structural ``root/sequence.0/action.1``) by ``id(node)``.

    The structural id of a child is its parent's structural id plus ``/<kind>.<index>``, where
    index is the child's position among its parent's traversal children.
    """
    out: dict[int, str] = {}

    def visit(node: Mapping[str, Any], path: str) -> None:
        out[id(node)] = str(node.get("id") or path)
        for index, (_, child) in enumerate(child_slots(node)):
            visit(child, f"{path}/{child['kind']}.{index}")

    visit(ir, str(ir.get("kind", "node")))
    return out


def _event_dict(event: Any) -> dict[str, Any]:
    if isinstance(event, Mapping):
        data = dict(event)
    else:
        data = jsonable(event)
        if not isinstance(data, dict):
            raise TypeError(f"not a trace event: {type(event).__name__}")
    data.setdefault("payload", {})
    return data


def as_events(obj: Any) -> list[dict[str, Any]]:
    """The events of a trace, an episode, a sink, a JSONL file's lines or a list, as dicts.

    Events keep their recorded order; ``sequence`` is kept as recorded.

    Raises:
        TypeError: when ``obj`` holds no events.
    """
    if obj is None:
        return []
    if isinstance(obj, str) and "\n" in obj:
        return [_event_dict(json.loads(line)) for line in obj.splitlines() if line.strip()]
    for attr in ("events", "trace"):
        inner = getattr(obj, attr, None)
        if inner is not None and not callable(inner) and inner is not obj:
            return as_events(inner)
    if isinstance(obj, Mapping) and "kind" in obj and "payload" in obj:
        return [_event_dict(obj)]
    if isinstance(obj, Iterable) and not isinstance(obj, str | bytes | Mapping):
        return [_event_dict(e) for e in obj]
    raise TypeError(f"{type(obj).__name__} holds no trace events")
