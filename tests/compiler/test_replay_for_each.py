"""A tree with a for_each executes under replay (``ReplayTools``): one recorded call per element.

The compiler itself is not involved: these trees are written by hand, and the episodes are
either built event by event or recorded by running the tree with a trace sink. The loop's call
writes (``cancel_order``), so each pass is compared with the next recorded write (matched means
the same writes; reads may differ).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl import ListTraceSink
from jdsl.compiler import execute, normalize_all
from jdsl.compiler.replay import execute_all
from jdsl.ir import to_ir, validate_ir
from jdsl.text import parse_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402

TEXT = (
    "root orders\n"
    "  seq\n"
    "    act find_user(name=name) -> user\n"
    "    for_each order_id in user.orders collect=order -> orders\n"
    "      act cancel_order(order_id=order_id) -> order\n"
)


def order(order_id: str) -> dict[str, Any]:
    return {"order_id": order_id, "status": "pending"}


def episode(orders: list[str], *, calls: list[str] | None = None, name: str = "Chen") -> Any:
    """A recorded run that looked the user up, then each order of ``calls`` (default: all)."""
    b = EpisodeBuilder(f"ep{len(orders)}", inputs={"name": name})
    b.call("find_user", {"orders": orders}, store="user", name=name)
    for order_id in orders if calls is None else calls:
        b.call("cancel_order", order(order_id), store="order", order_id=order_id)
    return normalize_all([b.done(True)])[0]


@pytest.fixture
def tree() -> Any:
    built = parse_behavior(TEXT)
    assert validate_ir(to_ir(built)).ok
    return built


@pytest.mark.parametrize("count", [0, 1, 2, 5])
def test_a_loop_over_any_number_of_orders_matches_its_episode(tree: Any, count: int):
    ran = execute(tree, episode([f"#W{i}" for i in range(count)]))
    assert ran.matched, ran.divergence
    assert [c.arguments for c in ran.calls[1:]] == [{"order_id": f"#W{i}"} for i in range(count)]
    assert ran.expected == count and ran.status == "success"  # the writes to make


def test_the_ir_document_executes_as_the_tree_does(tree: Any):
    document = to_ir(tree)
    runs = execute_all(document, [episode(["#W1"]), episode(["#W1", "#W2", "#W3"])])
    assert [r.matched for r in runs] == [True, True]


def test_a_run_that_skipped_an_order_diverges_at_the_loop(tree: Any):
    ran = execute(tree, episode(["#W1", "#W2", "#W3"], calls=["#W1", "#W3"]))
    assert not ran.matched and ran.divergence is not None
    assert "#W2" in str(ran.divergence) and "#W3" in str(ran.divergence)


def test_a_run_that_looked_up_more_orders_than_the_list_holds_diverges(tree: Any):
    ran = execute(tree, episode(["#W1"], calls=["#W1", "#W9"]))
    assert not ran.matched
    assert "#W9" in str(ran.divergence)


def test_a_traced_run_of_the_loop_replays_to_a_match(tree: Any):
    def find_user(name: str) -> dict[str, Any]:
        return {"orders": ["#W4", "#W5", "#W6"]}

    sink = ListTraceSink()
    tools = {"find_user": find_user, "cancel_order": order}
    ctx = tree.run(trace_sink=sink, tools=tools, name="Chen")
    assert ctx.blackboard["orders"] == [order(f"#W{i}") for i in (4, 5, 6)]
    recorded = normalize_all([{"episode_id": "traced",
                               "events": [e.to_dict() for e in sink.events]}])[0]  # fmt: skip
    ran = execute(tree, recorded)
    assert ran.matched, ran.divergence
    assert len(ran.calls) == 4
