"""A scan run that reads the same element twice in a row (``orders[0]``, ``orders[1]``,
``orders[1]`` again, before any write) made one read of it: the scan's answer counts it once
(core/jdsl/compiler/loop_answers.py), so the ``prefix_of`` guard holds and the family verifies
(issue 24; seen in weak models' retail runs)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _run(
    i: int, count: int, scanned: int, *, again: bool = False, twice: bool = False
) -> dict[str, Any]:
    ids = [f"#W{i}{k}0{k}" for k in range(count)]
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}"})
    b.emit("user.message", {"content": "cancel my pending order"})
    b.call("get_user_details", {"orders": ids}, store="user", node_id="agent",
           node_type="react", user_id=f"u{i}")  # fmt: skip
    reads = list(range(scanned)) + ([scanned - 1] if again else [])
    reads = [k for k in range(scanned) for _ in range(2)] if twice else reads
    for k in reads:
        status = "pending" if k == scanned - 1 else "delivered"
        b.call("get_order_details", {"order_id": ids[k], "status": status}, node_id="agent",
               node_type="react", order_id=ids[k], store="order")  # fmt: skip
    b.call("cancel_pending_order", {"ok": True, "order_id": ids[scanned - 1]}, node_id="agent",
           node_type="react", order_id=ids[scanned - 1])  # fmt: skip
    return b.done(True)


def test_a_repeated_identical_read_in_a_scan_is_one_read() -> None:
    runs = [_run(0, 3, 1), _run(1, 4, 2), _run(2, 2, 2, again=True), _run(3, 3, 2), _run(4, 4, 3)]
    result = compile_behavior(runs, name="cancel")
    v = result.verification
    assert result.ok and v.executed == v.matched == len(runs), result.report().text


@pytest.mark.xfail(
    strict=True,
    reason="staticize/loops.py splits it into two scans; absorbing the repeat there alone "
    "splits families whose runs re-read a non-first element (tests/compiler/test_unseen_shapes.py)",
)
def test_a_scan_reading_each_element_twice_is_one_loop() -> None:
    """``orders[0]``, ``orders[0]``, ``orders[1]``, ``orders[1]``: one scan of two elements,
    not two scans (core/jdsl/compiler/staticize/loops.py)."""
    runs = [_run(i, i + 2, i % 3 + 1, twice=True) for i in range(5)]
    result = compile_behavior(runs, name="cancel")
    v = result.verification
    assert result.ok and v.executed == v.matched == len(runs), result.report().text
    assert result.report().text.count("for_each") == 1, result.report().text
