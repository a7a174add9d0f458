"""Replay works out each alternative of a compiled tree once (:mod:`jdsl.compiler.arms`), not
once per selector level per run: deciding a run's routes in a tree of nested selectors walked
every subtree again at every level above it, for every run of a family (issue 24: two thirds of
a 1,062-run compile)."""

from __future__ import annotations

from typing import Any

import pytest
from jdsl.compiler import arms as arms_module
from jdsl.compiler.arms import Arms
from jdsl.compiler.decisions import _reached
from jdsl.compiler.fallback import hand_over_guard


def _alternative(value: str, inner: dict[str, Any], n: int) -> dict[str, Any]:
    return {"kind": "sequence", "id": f"alt{n}{value}", "children": [
        {"kind": "check", "id": f"chk{n}{value}", "key": f"route{n}", "equals": value},
        {"kind": "action", "id": f"act{n}{value}", "tool": f"tool{n}{value}"}, inner]}  # fmt: skip


def _nested(depth: int) -> dict[str, Any]:
    """``depth`` selectors, each choosing between a route ``a`` (going deeper) and ``b``."""
    node: dict[str, Any] = {"kind": "action", "id": "leaf", "tool": "leaf"}
    for n in range(depth):
        node = {"kind": "selector", "id": f"sel{n}", "children": [
            _alternative("a", node, n), _alternative("b", {"kind": "sequence", "children": []}, n)]}  # fmt: skip
    return node


def test_route_and_walk_are_worked_out_once_per_node(monkeypatch: pytest.MonkeyPatch) -> None:
    root = _nested(12)
    arms = Arms()
    routes = {f"route{n}": "a" for n in range(12)}
    reached = _reached(root, routes, arms)
    assert "leaf" in reached and "act0a" in reached and "act0b" not in reached
    walks: list[object] = []
    real = arms_module.walk_ir

    def counted(node: Any) -> Any:
        walks.append(node)
        return real(node)

    monkeypatch.setattr(arms_module, "walk_ir", counted)
    for _ in range(20):  # the runs of a family
        assert _reached(root, routes, arms) == reached
    assert walks == []


def test_route_reads_the_check_and_the_first_action_and_a_hand_over() -> None:
    arms = Arms()
    alternative = _alternative("a", {"kind": "sequence", "children": []}, 0)
    ((key, value, action),) = arms.route(alternative) or []
    assert (key, value, action and action["id"]) == ("route0", "a", "act0a")
    assert arms.route(alternative) is arms.route(alternative)
    handing = {"kind": "sequence", "id": "h", "children": [
        {"kind": "check", "key": "route", "equals": "transfer_to_human_agents"},
        hand_over_guard("g")]}  # fmt: skip
    ((key, value, action),) = arms.route(handing) or []
    assert action == {"kind": "hand_over", "tool": "transfer_to_human_agents",
                      "id": "h/transfer_to_human_agents"}  # fmt: skip
    assert arms.route({"kind": "sequence", "children": []}) is None
    assert arms.walk(None) == [] and arms.ids(None) == frozenset()
