"""Nested routes (issue 24, "nested branches"): runs of one intent that part ways after the
lookup (read the stated order directly, or read the user first) and again after the user read
(read one order of theirs, or scan their orders until the one to change). Any two of the three
paths compiled; all three together failed their own verification (0 matched, the program
retreated to the shared prefix and a hand-over serving nothing) because replay sent the runs
that read one order down the scan and answered the scan's item choice for the other leaf
(bench/unseen_files.py's ``retail_trials4``: 21 runs; fixed in compiler/loop_answers.py and
compiler/arms.py, this test failed before).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior, normalize_all, validate_package

sys.path.insert(0, str(Path(__file__).parent))
from events import AgentBuilder  # noqa: E402


def _run(i: int, path: str) -> dict[str, Any]:
    """``a``: the stated order read directly; ``b``: the user, then one of their orders (any
    index); ``c``: the user, then orders 0 and 1 (a scan stopping at the second). Each run then
    reads the product of the item it changes (item 0 or 1 of the order)."""
    orders = [f"#W{i}{k}" for k in range(3)]
    target = {"a": orders[1], "b": orders[i % 3], "c": orders[1]}[path]
    inputs = {"email": f"u{i}@x.com"} | ({"order_id": target} if path == "a" else {})
    b = AgentBuilder(f"{path}{i}", inputs=inputs)
    b.emit("user.message", {"content": "change an item of my pending order"})
    b.call("find_user_id_by_email", f"u{i}", email=f"u{i}@x.com")
    if path != "a":
        b.call("get_user_details", {"user_id": f"u{i}", "orders": orders}, user_id=f"u{i}")
    for order in {"a": [target], "b": [target], "c": orders[:2]}[path]:
        items = [{"item_id": f"i{order}{k}", "product_id": f"p{i}{k}"} for k in range(2)]
        b.call("get_order_details", {"order_id": order, "items": items}, order_id=order)
    b.call("get_product_details", {"product_id": f"p{i}{i % 2}"}, product_id=f"p{i}{i % 2}")
    b.call("modify_pending_order_items", {"order_id": target, "status": "pending"},
           order_id=target, item_ids=[f"i{target}{i % 2}"], new_item_ids=[f"n{i}"])  # fmt: skip
    return b.done(True)


_PATHS = "a" * 2 + "b" * 8 + "c" * 3


def test_three_paths_with_a_nested_parting_compile_and_serve_each_path() -> None:
    runs = [_run(i, path) for i, path in enumerate(_PATHS)]
    result = compile_behavior(runs, name="modify")
    v = result.verification
    assert result.ok and v.matched == v.executed == len(runs), result.report().text
    held = [_run(40 + i, path) for i, path in enumerate("abc")]
    report = validate_package(result.package, normalize_all(held))
    assert [row.matched for row in report.rows] == [True] * 3, report.text
