"""Reach: which children of a sequence or selector no tick can get to, because a sibling
before them always succeeds (in a selector) or always fails (in a sequence). The static check
(:mod:`jdsl.tree.check`) reports them as ``unreachable``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jdsl.expr import evaluate, expression_paths

if TYPE_CHECKING:
    from jdsl.tree.base import Node

__all__ = ["always", "unreachable"]


def always(node: Node, memo: dict[int, str | None]) -> str | None:
    """``"success"`` / ``"failure"`` when every tick of ``node`` ends so, else None (each node
    worked out once: ``memo``)."""
    if id(node) not in memo:
        memo[id(node)] = outcome_of(node, memo)
    return memo[id(node)]


def outcome_of(node: Node, memo: dict[int, str | None]) -> str | None:
    kind = node.kind
    children = node.children_nodes()
    if kind == "optional":
        return "success"
    if kind == "invert" and children:
        inner = always(children[0], memo)
        return {"success": "failure", "failure": "success"}.get(inner or "")
    if kind == "guard" and not expression_paths(node.expression):  # type: ignore[attr-defined]
        try:
            return "success" if evaluate(node.expression, {}) else "failure"  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001
            return None
    outcomes = [always(c, memo) for c in children]
    if kind == "sequence":
        return (
            "failure"
            if "failure" in outcomes
            else ("success" if all(o == "success" for o in outcomes) else None)
        )
    if kind == "selector":
        return (
            "success"
            if "success" in outcomes
            else ("failure" if outcomes and all(o == "failure" for o in outcomes) else None)
        )
    return None


def unreachable(tree: Node) -> list[tuple[Node, Node, Node]]:
    """``(container, blocker, later)`` for every child ``later`` of a sequence or selector
    ``container`` that no tick reaches because ``blocker``, a sibling before it, always fails
    (in a sequence) or always succeeds (in a selector); in tick order."""
    found: list[tuple[Node, Node, Node]] = []
    memo: dict[int, str | None] = {}
    for node in tree.walk():
        if node.kind not in ("sequence", "selector"):
            continue
        stop = "success" if node.kind == "selector" else "failure"
        children = node.children_nodes()
        for index, child in enumerate(children[:-1]):
            if always(child, memo) != stop:
                continue
            found += [(node, child, later) for later in children[index + 1 :]]
            break
    return found
