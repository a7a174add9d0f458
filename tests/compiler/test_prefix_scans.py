"""A scan that reads a list's elements one by one until it finds the one to act on (issue 24):
``get_order_details`` on ``user.orders[0]``, ``[1]``, ``[2]`` then stop (another run stops after
one, another after four) is one loop over a prefix of the list, not a path per scan length; the
write that follows acts on the last scanned element, never on a fixed position
(staticize/loops.py)."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior, normalize_all, validate_package
from jdsl.compiler.fallback import compiled_program
from jdsl.compiler.replay import execute_all
from jdsl.ir import from_ir
from jdsl.text import format_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _run(
    i: int, count: int, scanned: int, acted: int | None = None, *, one_store: bool = True
) -> dict[str, Any]:
    ids = [f"#W{i}{k}0{k}" for k in range(count)]
    acted = scanned - 1 if acted is None else acted
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}"})
    b.emit("user.message", {"content": "cancel my pending order"})
    b.call("get_user_details", {"orders": ids}, store="user", node_id="agent",
           node_type="react", user_id=f"u{i}")  # fmt: skip
    for k in range(scanned):
        status = "pending" if k == scanned - 1 else "delivered"
        extra = {"store": "order"} if one_store else {}  # else a store per call, numbered
        b.call("get_order_details", {"order_id": ids[k], "status": status}, node_id="agent",
               node_type="react", order_id=ids[k], **extra)  # fmt: skip
    b.call("cancel_pending_order", {"ok": True, "order_id": ids[acted]}, node_id="agent",
           node_type="react", order_id=ids[acted])  # fmt: skip
    return b.done(True)


_RUNS = [(0, 3, 1), (1, 4, 2), (2, 5, 3), (3, 3, 2), (4, 4, 1)]


@pytest.mark.parametrize("one_store", [True, False])
def test_a_prefix_scan_is_one_loop_and_acts_on_the_last_scanned(one_store: bool) -> None:
    result = compile_behavior([_run(*r, one_store=one_store) for r in _RUNS], name="cancel")
    text = format_behavior(from_ir(result.compiled.ir))
    assert "for_each" in text and "user.orders" in text, text
    assert "user.orders[0]" not in text and "user.orders[1]" not in text, text
    assert result.compiled.branches == (), text
    v = result.verification
    assert result.ok and v.executed == v.matched == len(_RUNS), result.report().text
    held = validate_package(result.package, normalize_all([_run(9, 5, 4, one_store=one_store)]))
    (row,) = held.rows
    assert row.served and row.matched, held.text
    other = validate_package(result.package, normalize_all([_run(7, 5, 4, 1, one_store=one_store)]))
    assert not other.rows[0].matched, other.text  # acted on another scanned order


def _nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    found = [node]
    for child in [node.get("child"), *(node.get("children") or [])]:
        found += _nodes(child) if isinstance(child, dict) else []
    return found


def _edited(ir: dict[str, Any], edit: str) -> dict[str, Any]:
    ir = copy.deepcopy(compiled_program(ir))
    for node in _nodes(ir["root"]):
        if node.get("kind") == "for_each" and edit == "scan all":
            node["items"] = "user.orders"
        if node.get("tool") == "cancel_pending_order" and edit == "act on the first":
            node["args"]["order_id"] = {"ref": "user.orders[0]"}
    return ir


def test_a_package_wrong_on_purpose_does_not_match() -> None:
    result = compile_behavior([_run(*r) for r in _RUNS], name="cancel")
    held = normalize_all([_run(9, 5, 4), _run(8, 4, 2)])
    honest = compiled_program(result.package.ir)
    assert all(e.matched for e in execute_all(honest, held))
    for edit in ("scan all", "act on the first"):
        ir = _edited(result.package.ir, edit)
        assert ir != honest
        assert not any(e.matched for e in execute_all(ir, held)), edit
    # a held-out run acting on another scanned order than the last one is not matched
    other = validate_package(result.package, normalize_all([_run(7, 5, 4, acted=1)]))
    assert not other.rows[0].matched, other.text
