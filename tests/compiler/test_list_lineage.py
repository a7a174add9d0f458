"""Element-wise lineage of list arguments and the list paths they compile to.

The retail return runs (``fixtures/tau_bench/retail-returns.json``: a scripted agent following
the gold actions of 8 real tau-bench return tasks on the real retail environment; see
``make_retail.py``) return some of an order's items: ``item_ids`` compiles to
``get_order_details_out.items[$item_indexes].item_id`` with a residual that picks the indexes.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior, compile_normalized, normalize_all
from jdsl.compiler.lineage import StateIndex
from jdsl.compiler.replay import execute_all
from jdsl.expr import resolve_path
from jdsl.importers import import_tau_bench
from jdsl.text import format_behavior, parse_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402

RETURNS = Path(__file__).parents[1] / "fixtures" / "tau_bench" / "retail-returns.json"
RETURN = "return_delivered_order_items"


@pytest.fixture(scope="module")
def returns() -> list[Any]:
    return normalize_all(import_tau_bench(RETURNS).episodes)


def _action(ir: dict[str, Any], tool: str) -> dict[str, Any]:
    return next(n for n in ir["root"]["child"]["children"] if n.get("tool") == tool)


def test_every_list_element_gets_its_own_exact_source(returns: list[Any]) -> None:
    step = next(s for s in returns[0].steps if s.logical_tool == RETURN)
    ids = step.arguments["item_ids"]
    assert len(step.element_sources["item_ids"]) == len(ids) >= 2
    for value, sources in zip(ids, step.element_sources["item_ids"], strict=True):
        assert any(
            p.startswith("get_order_details_out.items[") and p.endswith("].item_id")
            for p in sources
        )
        assert all(resolve_path(p, step.state_before) == value for p in sources)  # exact
    best = step.list_sources["item_ids"][0]
    assert best.template == "get_order_details_out.items[*].item_id" and not best.every
    order = step.state_before["get_order_details_out"]["items"]
    assert [order[k]["item_id"] for k in best.indexes] == ids


def test_a_return_family_compiles_item_ids_to_a_residual_selection(returns: list[Any]) -> None:
    result = compile_normalized(returns, name="returns")
    action = _action(result.ir, RETURN)
    assert action["args"]["item_ids"] == {
        "ref": "get_order_details_out.items[$item_indexes].item_id"
    }
    residual = next(r for r in result.compiled.residuals if "item_indexes" in r.outputs)
    assert (
        residual.node["signature"]
        == "conversation, get_order_details_out -> item_indexes: list[int]"
    )
    guards = [n for n in result.ir["root"]["child"]["children"] if n["kind"] == "guard"]
    assert guards[-1]["expression"] == {
        "exists": {"ref": "get_order_details_out.items[$item_indexes]"}
    }
    assert result.ok and result.verification.executed == 8 and result.verification.matched == 8
    assert "item_ids = ref get_order_details_out.items[$item_indexes].item_id (selection)" in str(
        result.report()
    )
    text = format_behavior(parse_behavior(format_behavior(result.ir)))
    assert "item_ids=get_order_details_out.items[$item_indexes].item_id" in text


def test_a_wrong_list_path_is_caught_by_execution_replay(returns: list[Any]) -> None:
    result = compile_normalized(returns, name="returns")
    wrong = _without_selection(result.ir)  # every item instead of the selected ones
    _action(wrong, RETURN)["args"]["item_ids"] = {"ref": "get_order_details_out.items[*].item_id"}
    runs = execute_all(wrong, returns)
    every = [e.ok_steps()[2].list_sources["item_ids"][0].every for e in returns]
    assert [r.matched for r in runs] == every and every.count(False) >= 4
    assert all("different arguments" in r.divergence.reason for r in runs if r.divergence)
    frozen = _without_selection(result.ir)  # one run's items frozen into a constant
    _action(frozen, RETURN)["args"]["item_ids"] = {
        "const": returns[0].ok_steps()[2].arguments["item_ids"]
    }
    assert [r.matched for r in execute_all(frozen, returns)] == [True] + [False] * 7


def _without_selection(ir: dict[str, Any]) -> dict[str, Any]:
    changed = copy.deepcopy(ir)
    flow = changed["root"]["child"]
    flow["children"] = [n for n in flow["children"] if n["kind"] not in ("predict", "guard")]
    return changed


def _all_items(eid: str, items: list[str]) -> dict[str, Any]:
    order = {"id": f"#{eid}", "items": [{"item_id": i, "price": 10} for i in items]}
    b = EpisodeBuilder(eid, inputs={"order_id": f"#{eid}"})
    b.call("get_order", order, store="order", order_id=f"#{eid}")
    b.call(
        "refund_all",
        {"ok": True},
        node_id="agent",
        node_type="react",
        order_id=f"#{eid}",
        item_ids=items,
    )
    return b.done()


def test_every_element_in_every_episode_compiles_to_a_star_path() -> None:
    episodes = [_all_items("e1", ["a100", "a101"]), _all_items("e2", ["b200", "b201", "b202"]),
                _all_items("e3", ["c300"])]  # fmt: skip
    result = compile_behavior(episodes, name="refund")
    assert _action(result.ir, "refund_all")["args"]["item_ids"] == {"ref": "order.items[*].item_id"}
    assert not result.compiled.residuals and result.ok


def test_some_elements_not_from_state_give_no_list_path() -> None:
    index = StateIndex()
    index.set("order", {"items": [{"item_id": "a100"}, {"item_id": "a101"}]})
    assert index.list_sources(["a100", "zz999"]) == ()
    assert index.list_sources([]) == () and index.list_sources(["a100", 1]) == ()
    assert [s.indexes for s in index.list_sources(["a101", "a100"])] == [(1, 0)]


def test_the_notebook_lineage_view_shows_the_list_and_each_element(returns: list[Any]) -> None:
    from jdsl_nb.compile_views import lineage_rows

    rows = lineage_rows(compile_normalized(returns[:1], name="returns"))
    flows = {(r["from"], r["to"]) for r in rows}
    assert ("get_order_details_out.items[*].item_id (elements 3, 0)", f"{RETURN}.item_ids") in flows
    assert ("get_order_details_out.items[3].item_id", f"{RETURN}.item_ids[0]") in flows
