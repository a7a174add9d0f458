"""Walking IR dicts for drawings: find the tree in an object, label edges, give effective ids.

A drawing reads trees as plain IR dicts (docs/ARCHITECTURE.md, "Nodes are the IR") and duck-types
what holds one, so it works on a live node, its IR dict, a ``behavior.json`` document, a package
or a compile result alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["as_ir", "is_ir_node", "labelled_children", "structural_ids"]

_COMPOSITE_KINDS = frozenset({"sequence", "selector"})


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


def labelled_children(node: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The traversal children of an IR node as ``(edge label, child)``, in stable order.

    Composites list their ``children`` in order; ``repeat`` has ``child`` then ``until`` (edge
    label ``"until"``); the decorators and ``root`` have ``child``. Entries that are not node
    dicts are left out (:func:`jdsl.ir.nodes.child_slots` is the unlabelled, unfiltered form).
    """
    if node.get("kind") in _COMPOSITE_KINDS:
        return [("", child) for child in node.get("children") or [] if is_ir_node(child)]
    slots: list[tuple[str, dict[str, Any]]] = []
    if is_ir_node(node.get("child")):
        slots.append(("", node["child"]))
    if is_ir_node(node.get("until")):
        slots.append(("until", node["until"]))
    return slots


def structural_ids(ir: Mapping[str, Any]) -> dict[int, str]:
    """Effective ids (author id, else structural ``root/sequence.0/action.1``) by ``id(node)``.

    The structural id of a child is its parent's structural id plus ``/<kind>.<index>``, where
    index is the child's position among its parent's traversal children (as
    :func:`jdsl.tree.assign_runtime_ids` numbers them for a run).
    """
    out: dict[int, str] = {}

    def visit(node: Mapping[str, Any], path: str) -> None:
        out[id(node)] = str(node.get("id") or path)
        for index, (_, child) in enumerate(labelled_children(node)):
            visit(child, f"{path}/{child['kind']}.{index}")

    visit(ir, str(ir.get("kind", "node")))
    return out
