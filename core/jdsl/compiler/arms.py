"""What replay reads of a compiled tree's alternatives, worked out once per tree (:mod:`.decisions`).

Deciding the routes of one run walks the subtree of every alternative of every selector on its
way, again at each level above it; verification does so for every run of a family, twice. An
:class:`Arms` remembers each subtree's nodes and each alternative's route checks by the node's
identity, so a run costs one pass over the tree instead of one per level (issue #24: the
verification of a 228-run family spent two thirds of its time re-walking the same subtrees).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jdsl.compiler.fallback import hands_over
from jdsl.ir.walk import walk_ir

__all__ = ["Arms", "Route", "handing"]

Route = list[tuple[str, Any, "dict[str, Any] | None"]]


def handing(alternative: Mapping[str, Any], check: Mapping[str, Any]) -> dict[str, Any]:
    """The call a hand-over alternative's runs made there, as an action-like node."""
    tool = str(check.get("equals"))
    return {"kind": "hand_over", "tool": tool, "id": f"{alternative.get('id')}/{tool}"}


class Arms:
    """Subtree walks and route checks of one tree's nodes, kept by node identity (each entry
    holds its node, so an id is never reused while the memo lives)."""

    def __init__(self) -> None:
        self._walks: dict[int, tuple[Any, list[dict[str, Any]]]] = {}
        self._ids: dict[int, tuple[Any, frozenset[str]]] = {}
        self._routes: dict[int, tuple[Any, Route | None]] = {}
        self._checks: dict[int, tuple[Any, list[dict[str, Any]] | None]] = {}

    def walk(self, node: Any) -> list[dict[str, Any]]:
        """Every node dict under ``node``, pre-order (:func:`jdsl.ir.walk.walk_ir`)."""
        if not isinstance(node, dict):
            return []
        got = self._walks.get(id(node))
        if got is None:
            got = self._walks[id(node)] = (node, list(walk_ir(node)))
        return got[1]

    def ids(self, node: Any) -> frozenset[str]:
        """The ids of the nodes under ``node``."""
        got = self._ids.get(id(node))
        if got is None:
            found = frozenset(str(n.get("id") or "") for n in self.walk(node))
            got = self._ids[id(node)] = (node, found)
        return got[1]

    def route(self, alternative: dict[str, Any]) -> Route | None:
        """``[(key, value, first action)]`` of an alternative that starts by checking a route;
        an alternative that hands over (:meth:`handing_checks`): one per tool it names, the
        action ``{"tool": that tool, "id": "<its id>/<tool>"}``; an alternative without a call:
        None as its action (:mod:`jdsl.compiler.staticize.again`)."""
        got = self._routes.get(id(alternative))
        if got is None:
            got = self._routes[id(alternative)] = (alternative, self._route(alternative))
        return got[1]

    def _route(self, alternative: dict[str, Any]) -> Route | None:
        checks = self.handing_checks(alternative)
        if checks is not None:
            return [(str(c["key"]), c.get("equals"), handing(alternative, c)) for c in checks]
        body = alternative.get("children") if alternative.get("kind") == "sequence" else None
        check = next((n for n in body or () if n.get("kind") == "check"), None)
        if check is None:
            return None
        action = next((n for n in self.walk(alternative) if n.get("kind") == "action"), None)
        return [(str(check["key"]), check.get("equals"), action)]

    def firsts(self, action: Mapping[str, Any] | None, alternative: Mapping[str, Any]) -> list[Any]:
        """The actions a run along ``alternative`` may make first, ``action`` (its route's
        first action) first: where the alternative starts by choosing how (a selector before
        its first action: identity by email, or by name), each way's first action."""
        if action is None:
            return [None]
        found = [action]
        for node in _leading(alternative):
            if node.get("kind") == "selector":
                for child in node.get("children") or ():
                    first = next((n for n in self.walk(child) if n.get("kind") == "action"), None)
                    if first is not None and first is not action:
                        found.append(first)
        return found

    def handing_checks(self, alternative: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        """The route checks of an alternative that hands over to the fallback (``seq [check
        route == <tool>, hand_over guard]``, several tools: ``seq [sel [check ...], hand_over
        guard]``, :func:`jdsl.compiler.fallback.hand_over_guard`): each names the tool its runs
        called there. None for any other alternative."""
        got = self._checks.get(id(alternative))
        if got is None:
            got = self._checks[id(alternative)] = (alternative, self._handing_checks(alternative))
        return got[1]

    def _handing_checks(self, alternative: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        body = alternative.get("children") if alternative.get("kind") == "sequence" else None
        if not body or not any(hands_over(n) for n in body):
            return None
        if any(n.get("kind") == "action" for n in self.walk(alternative)):
            return None
        first = body[0]
        checks = [first] if first.get("kind") == "check" else list(first.get("children") or ())
        if first.get("kind") not in ("check", "selector") or not checks:
            return None
        return checks if all(c.get("kind") == "check" for c in checks) else None


def _leading(alternative: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The nodes of a sequence up to its first one with an action in it (that one included)."""
    found: list[dict[str, Any]] = []
    for node in alternative.get("children") or () if alternative.get("kind") == "sequence" else ():
        found.append(node)
        if any(n.get("kind") == "action" for n in walk_ir(node)):
            break
    return found
