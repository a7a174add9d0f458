"""Structural node ids: ``root/sequence.0/action.1`` (reference jdsl-py §1.2).

A node's effective id is its author ``id`` when set, else the structural id a run gives it.
Structural ids are used in traces and provenance but never serialized: they are not a stable
identity across edits of the tree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jdsl.tree.base import Node

__all__ = ["assign_runtime_ids"]


def assign_runtime_ids(root: Node, prefix: str = "root") -> None:
    """Give ``root`` and every node under it its structural id (in place).

    The root is ``prefix``; each child appends ``/<kind>.<index>`` where index counts over
    :meth:`Node.children_nodes` (for a repeat: the child, then ``until``).
    """
    root._runtime_id = prefix
    stack = [(root, prefix)]
    while stack:
        node, path = stack.pop()
        for index, child in enumerate(node.children_nodes()):
            child_path = f"{path}/{child.kind}.{index}"
            child._runtime_id = child_path
            stack.append((child, child_path))
