"""Structural node ids: ``root/sequence.0/action.1`` (reference jdsl-py §1.2).

A node's effective id is its author ``id`` when set, else the structural id a run gives it.
Structural ids are used in traces and provenance but never serialized: they are not a stable
identity across edits of the tree.

:func:`structural_paths` is the one numbering, over any tree shape: node objects here
(:func:`walk_with_ids`), IR dicts in :func:`jdsl.ir.walk.structural_ids`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from jdsl.tree.base import Node

__all__ = ["assign_runtime_ids", "structural_paths", "walk_with_ids"]

T = TypeVar("T")


def structural_paths(
    root: T, children: Callable[[T], Sequence[T]], kind: Callable[[T], str], prefix: str
) -> Iterator[tuple[T, str]]:
    """Every node under ``root`` with its structural path, pre-order, left to right.

    The root is ``prefix``; each child appends ``/<kind>.<index>``, index counting over
    ``children(parent)``. Iterative, so depth is bounded by memory, not the recursion limit.

    >>> tree = ("root", [("sequence", [("action", []), ("action", [])])])
    >>> [path for _, path in structural_paths(tree, lambda n: n[1], lambda n: n[0], "root")]
    ['root', 'root/sequence.0', 'root/sequence.0/action.0', 'root/sequence.0/action.1']
    """
    stack: list[tuple[T, str]] = [(root, prefix)]
    while stack:
        node, path = stack.pop()
        yield node, path
        kids = children(node)
        for index in range(len(kids) - 1, -1, -1):
            child = kids[index]
            stack.append((child, f"{path}/{kind(child)}.{index}"))


def _children(node: Node) -> list[Node]:
    return node.children_nodes()


def _kind(node: Node) -> str:
    return node.kind


def walk_with_ids(root: Node, prefix: str = "root") -> Iterator[tuple[Node, str]]:
    """Every node under ``root`` with its structural id, pre-order, left to right.

    The root is ``prefix``; each child appends ``/<kind>.<index>`` where index counts over
    :meth:`Node.children_nodes` (for a repeat: the child, then ``until``).
    """
    return structural_paths(root, _children, _kind, prefix)


def assign_runtime_ids(root: Node, prefix: str = "root") -> None:
    """Give ``root`` and every node under it its structural id (in place)."""
    for node, path in walk_with_ids(root, prefix):
        node.__pydantic_private__["_runtime_id"] = path  # type: ignore[index]
