"""A thin arm next to a supported one: where runs part ways and one way has the support to be
compiled (``min_support`` runs) and another has too few, and the compiled way cannot account
for the thin way's runs (their record cannot answer what it asks), the program compiles the
supported way and hands the thin way's runs over to the fallback *at the parting point*, after
the writes they share with it (issue 24: "a tool-using agent would not refuse: it would do the
known part and reason about the rest"). Replay places a run on the way it took by the call it
made there. A thin run the compiled way does account for stays served.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import normalize_all
from jdsl.ir.walk import walk_ir

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder, compiled, hand_overs, nodes, verify_broken  # noqa: E402

USERS = {
    "u1": {"id": "u1", "orders": ["#A1", "#B1"]},
    "u2": {"id": "u2", "orders": ["#A2", "#B2", "#C2"]},
    "u3": {"id": "u3", "orders": ["#A3", "#B3"]},
    "u4": {"id": "u4", "orders": ["#A4"]},
}


def _supported(eid: str, uid: str, pick: int) -> dict[str, Any]:
    """Look the user up, note the address, pick one of the user's orders and cancel it."""
    b = EpisodeBuilder(eid, inputs={"user_id": uid, "address": f"street {uid}"})
    b.call("get_user", USERS[uid], store="user", user_id=uid)
    b.call("update_address", "ok", store="updated", user_id=uid, address=f"street {uid}")
    order = USERS[uid]["orders"][pick]
    b.call("get_order", {"order_id": order, "status": "pending"}, store="order", order_id=order)
    b.call("cancel_order", "cancelled", store="cancelled", order_id=order)
    return b.done(True)


def _thin(eid: str, uid: str, order: str, *, extra_read: bool = False) -> dict[str, Any]:
    """The same first calls, then (the user named the order) a cancel without looking it up;
    with ``extra_read``, the supported way's calls plus a read nothing needs instead."""
    inputs = {"user_id": uid, "address": f"street {uid}", "order_id": order}
    b = EpisodeBuilder(eid, inputs=inputs)
    b.call("get_user", USERS[uid], store="user", user_id=uid)
    b.call("update_address", "ok", store="updated", user_id=uid, address=f"street {uid}")
    if extra_read:
        b.call("get_rules", {"fee": 0}, store="rules")
        b.call("get_order", {"order_id": order, "status": "pending"}, store="order",
               order_id=order)  # fmt: skip
    b.call("cancel_order", "cancelled", store="cancelled", order_id=order)
    return b.done(True)


def _family(*, extra_read: bool = False) -> list:
    return normalize_all([
        _supported("s1", "u1", 1), _supported("s2", "u2", 2), _supported("s3", "u3", 0),
        _thin("t1", "u4", "#A4", extra_read=extra_read),
    ])  # fmt: skip


def test_a_thin_arm_hands_over_at_its_parting_point_after_the_shared_write() -> None:
    result = compiled(_family(), name="cancel")
    v = result.verification
    outcomes = {e.episode_id: e.outcome for e in v.executions}
    assert outcomes == {"s1": "matched", "s2": "matched", "s3": "matched", "t1": "fallback"}
    (t1,) = [e for e in v.executions if e.episode_id == "t1"]
    assert t1.fallback is not None
    assert t1.fallback.writes_done == 1  # update_address made (and matched), then handed over
    assert str(t1.fallback.node_id).startswith("hand_over")
    assert len(hand_overs(result.ir)) == 1
    assert set(result.compiled.aligned) == {"s1", "s2", "s3"}


def test_a_thin_run_the_supported_way_accounts_for_stays_served() -> None:
    result = compiled(_family(extra_read=True), name="cancel")
    v = result.verification
    assert v.matched == v.executed == 4
    assert not hand_overs(result.ir)


def test_a_thin_arm_at_the_first_call() -> None:
    """The thin way parts at the very first call (it has the run inputs the supported way
    reads, so no input guard tells them apart): handed over before any write."""
    runs = [_supported(f"s{k}", u, 0) for k, u in enumerate(("u1", "u2", "u3"))]
    b = EpisodeBuilder("t1", inputs={"user_id": "u4", "order_id": "#A4", "address": "x"})
    b.call("get_order", {"order_id": "#A4", "status": "pending"}, store="order", order_id="#A4")
    b.call("cancel_order", "cancelled", store="cancelled", order_id="#A4")
    runs.append(b.done(True))
    result = compiled(normalize_all(runs), name="cancel")
    v = result.verification
    assert (v.matched, v.fallbacks) == (3, 1)
    (t1,) = [e for e in v.executions if e.episode_id == "t1"]
    assert t1.fallback is not None and t1.fallback.writes_done == 0


def _without_hand_over(ir: dict[str, Any]) -> dict[str, Any]:
    """``ir`` with every alternative that hands over removed from its selector."""
    wrong = copy.deepcopy(ir)
    for node in walk_ir(wrong["root"]):
        if node.get("kind") == "selector":
            node["children"] = [c for c in node["children"] if not hand_overs({"root": c})]
    return wrong


def _writing_the_wrong_order(ir: dict[str, Any]) -> dict[str, Any]:
    """``ir`` whose cancel passes the user's first order instead of the order looked up."""
    wrong = copy.deepcopy(ir)
    for node in walk_ir(wrong["root"]):
        if node.get("kind") == "action" and node.get("tool") == "cancel_order":
            node["args"]["order_id"] = {"ref": "user.orders[0]"}
    return wrong


@pytest.mark.parametrize("break_it", [_without_hand_over, _writing_the_wrong_order])
def test_verification_catches_a_package_broken_on_purpose(break_it: Any) -> None:
    report = verify_broken(compiled(_family(), name="cancel"), break_it)
    assert not report.ok
    assert report.unaccounted


def test_two_thin_ways_at_one_point_hand_over_at_one_guard() -> None:
    """Two thin ways part at the same point: one last alternative takes both (a selector of
    their route checks), so each run is handed over at the hand-over guard."""
    runs = [_supported("s1", "u1", 1), _supported("s2", "u2", 2), _supported("s3", "u3", 0)]
    runs.append(_thin("t1", "u4", "#A4"))
    b = EpisodeBuilder("t2", inputs={"user_id": "u1", "address": "street u1", "order_id": "#B1"})
    b.call("get_user", USERS["u1"], store="user", user_id="u1")
    b.call("update_address", "ok", store="updated", user_id="u1", address="street u1")
    b.call("get_rules", {"fee": 0}, store="rules")
    b.guard({"eq": [{"ref": "rules.fee"}, 0]})  # the rules are read: not an unused read
    b.call("cancel_order", "cancelled", store="cancelled", order_id="#B1")
    runs.append(b.done(True))
    result = compiled(normalize_all(runs), name="cancel")
    v = result.verification
    handed = {e.episode_id: e.fallback for e in v.executions if e.fallback is not None}
    assert set(handed) == {"t1", "t2"} and v.matched == 3
    assert all(
        f.writes_done == 1 and str(f.node_id).startswith("hand_over") for f in handed.values()
    )
    assert len(hand_overs(result.ir)) == 1


def _scanning(eid: str, uid: str, pick: int, *, every: bool = True) -> dict[str, Any]:
    """Look the user up and each of their orders (``every``; else the last only: reading the
    first ones would be a scan that stopped early, staticize/loops.py), then cancel one."""
    b = EpisodeBuilder(eid, inputs={"user_id": uid})
    b.call("get_user", USERS[uid], store="user", user_id=uid)
    orders = USERS[uid]["orders"] if every else USERS[uid]["orders"][-1:]
    for order in orders:
        b.call("get_order", {"order_id": order, "status": "pending"}, store="order",
               order_id=order)  # fmt: skip
    b.call("cancel_order", "cancelled", store="cancelled", order_id=USERS[uid]["orders"][pick])
    return b.done(True)


def test_a_thin_run_that_does_not_make_the_loops_calls_is_handed_over() -> None:
    """The compiled way reads every order of the user (a loop); a thin run read the last one
    only: it parts where the loop starts, and replay places it on the hand-over, not on the loop."""
    runs = [_scanning("s1", "u1", 1), _scanning("s2", "u2", 2), _scanning("s3", "u3", 0)]
    runs.append(_scanning("t1", "u2", 0, every=False))
    result = compiled(normalize_all(runs), name="cancel")
    v = result.verification
    assert nodes(result.ir, kind="for_each")
    outcomes = {e.episode_id: e.outcome for e in v.executions}
    assert outcomes == {"s1": "matched", "s2": "matched", "s3": "matched", "t1": "fallback"}
