"""A scan reads the elements of one list (issue 24): ``get_product_details`` on
``order.items[0]``, ``[1]`` then ``order_2.items[0]`` (products of each order the user has, each
order's details stored under its own numbered key) is no prefix scan of ``order.items``, so it
is not compiled as a loop followed by thin paths; reading ``order.items[0]``, ``[1]`` of one
order, and nothing else in that stretch, is (staticize/loops.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler.branches import read_only_of
from jdsl.compiler.normalize import normalize_all
from jdsl.compiler.staticize.loops import family_loops

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _run(i: int, orders: int, scanned: int, *, across: bool) -> dict[str, Any]:
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}"})
    stores = ["order"] + [f"order_{n}" for n in range(2, orders + 1)]
    for n, store in enumerate(stores):
        items = [{"product_id": f"P{i}{n}{k}"} for k in range(3)]
        b.call("get_order_details", {"order_id": f"#W{i}{n}", "items": items}, store=store,
               node_id="agent", node_type="react", order_id=f"#W{i}{n}")  # fmt: skip
    reads = [("order", k) for k in range(scanned)]
    if across and i % 2:  # then the first product of the next order
        reads.append(("order_2", 0))
    for k, (store, index) in enumerate(reads):
        b.call("get_product_details", {"ok": True}, store=f"product_{k}", node_id="agent",
               node_type="react", product_id=f"P{i}{stores.index(store)}{index}")  # fmt: skip
    b.call("exchange_items", {"ok": True}, node_id="agent", node_type="react", order_id=f"#W{i}0")
    return b.done(True)


def _scans(across: bool) -> list[str]:
    runs = normalize_all([_run(i, 3, 2, across=across) for i in range(6)])
    loops = family_loops(runs, read_only=read_only_of(None))
    return sorted(spec.head for spec in loops if spec.prefix)


def test_reads_across_numbered_stores_are_no_scan() -> None:
    assert _scans(across=True) == []


def test_reads_of_one_lists_first_elements_are_a_scan() -> None:
    assert _scans(across=False) == ["order.items"]
