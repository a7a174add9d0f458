"""Structural node ids: ``root/sequence.0/action.1`` (reference jdsl-py §1.2).

A node's effective id is its author ``id`` when set, else the structural id a run gives it.
Structural ids are used in traces and provenance but never serialized: they are not a stable
identity across edits of the tree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jdsl.tree.base import Node

__all__ = ["assign_runtime_ids", "walk_with_ids"]


def walk_with_ids(root: Node, prefix: str = "root") -> Iterator[tuple[Node, str]]:
    """Every node under ``root`` with its structural id, pre-order, left to right.

    The root is ``prefix``; each child appends ``/<kind>.<index>`` where index counts over
    :meth:`Node.children_nodes` (for a repeat: the child, then ``until``).
    """
    stack: list[tuple[Node, str]] = [(root, prefix)]
    while stack:
        node, path = stack.pop()
        yield node, path
        children = node.children_nodes()
        for index in range(len(children) - 1, -1, -1):
            child = children[index]
            stack.append((child, f"{path}/{child.kind}.{index}"))


def assign_runtime_ids(root: Node, prefix: str = "root") -> None:
    """Give ``root`` and every node under it its structural id (in place)."""
    for node, path in walk_with_ids(root, prefix):
        node.__pydantic_private__["_runtime_id"] = path  # type: ignore[index]
