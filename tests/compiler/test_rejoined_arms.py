"""Support per segment: runs that part at one small step and rejoin (issue 24).

Each run identifies the user by email or by name + zip (two lookups that return the same user
id, each stored under its own key as an imported run stores it), then looks the user and the
order up and cancels it; half the runs also read the store's rules (a read nothing needs). No
whole tool sequence has two runs, but every segment does: the identity lookup by email (2
runs), by name + zip (2 runs) and the continuation after it (all 4 runs). The program is a
selector at the identity step whose arms rejoin into one continuation that all runs support,
instead of handing every run over at the first call.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_normalized, normalize_all, validate_package
from jdsl.ir.walk import walk_ir

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder, compiled, hand_overs, nodes, verify_broken  # noqa: E402

USERS = {
    "u1": ("ann.lee@example.com", "Ann", "Lee", "10001", "#A1"),
    "u2": ("bo.kim@example.com", "Bo", "Kim", "20002", "#B2"),
    "u3": ("cy.diaz@example.com", "Cy", "Diaz", "30003", "#C3"),
    "u4": ("di.wu@example.com", "Di", "Wu", "40004", "#D4"),
    "u5": ("ed.roy@example.com", "Ed", "Roy", "50005", "#E5"),
}


def _run(eid: str, uid: str, *, by: str, rules: bool) -> dict[str, Any]:
    email, first, last, zip_code, order = USERS[uid]
    b = EpisodeBuilder(eid, inputs={"request": f"cancel {order}"}, task_id=f"task_{uid}",
                       user_id=uid)  # fmt: skip
    said = email if by == "email" else f"{first} {last}, zip {zip_code}"
    b.emit("user.message", {"content": f"Please cancel order {order}. I am {said}."})
    if by == "email":
        b.call(
            "find_user_id_by_email",
            uid,
            store="find_user_id_by_email_out",
            node_type="react",
            email=email,
        )  # the agent (a model) chose what to pass
        found = "find_user_id_by_email_out"
    else:
        b.call("find_user_id_by_name_zip", uid, store="find_user_id_by_name_zip_out",
               node_type="react", first_name=first, last_name=last, zip=zip_code)  # fmt: skip
        found = "find_user_id_by_name_zip_out"
    assert found
    b.call("get_user_details", {"user_id": uid, "orders": [order]}, store="user", user_id=uid)
    b.call("get_order_details", {"order_id": order, "status": "pending"}, store="order",
           order_id=order)  # fmt: skip
    if rules:
        b.call("get_rules", {"fee": 0}, store="rules")
    b.call("cancel_pending_order", "cancelled", store="cancelled", order_id=order)
    return b.done(True)


def _family() -> list:
    return normalize_all([
        _run("e1", "u1", by="email", rules=False), _run("e2", "u2", by="email", rules=True),
        _run("n3", "u3", by="name_zip", rules=True), _run("n4", "u4", by="name_zip", rules=False),
    ])  # fmt: skip


def test_arms_that_part_at_the_identity_step_rejoin_into_one_continuation() -> None:
    result = compiled(_family(), name="cancel")
    v = result.verification
    assert v.matched == v.executed == 4, result.report().text
    tools = [n["tool"] for n in nodes(result.ir, kind="action")]
    # one continuation after the identity step, not one per arm
    assert tools.count("get_user_details") == tools.count("get_order_details") == 1
    assert tools.count("find_user_id_by_email") == tools.count("find_user_id_by_name_zip") == 1
    assert not hand_overs(result.ir)


@pytest.mark.parametrize("by", ["email", "name_zip"])
def test_a_held_out_run_of_either_identity_is_served(by: str) -> None:
    result = compiled(_family(), name="cancel")
    held = normalize_all([_run("h5", "u5", by=by, rules=False)])
    report = validate_package(result.package, held)
    assert report.served == report.matched == 1, report


def test_a_thin_identity_arm_is_not_compiled() -> None:
    """One run identifies by email, three by name + zip: the email arm has one run, no
    evidence; that run is not served end to end (handed over where it parts)."""
    runs = normalize_all([
        _run("e1", "u1", by="email", rules=False), _run("n2", "u2", by="name_zip", rules=True),
        _run("n3", "u3", by="name_zip", rules=True), _run("n4", "u4", by="name_zip", rules=False),
    ])  # fmt: skip
    result = compiled(runs, name="cancel")
    tools = [n["tool"] for n in nodes(result.ir, kind="action")]
    assert "find_user_id_by_email" not in tools
    outcomes = {e.episode_id: e.outcome for e in result.verification.executions}
    assert outcomes["e1"] != "matched"


def _cancelling_the_users_first_order(ir: dict[str, Any]) -> dict[str, Any]:
    wrong = copy.deepcopy(ir)
    for node in walk_ir(wrong["root"]):
        if node.get("kind") == "action" and node.get("tool") == "cancel_pending_order":
            node["args"]["order_id"] = {"const": "#A1"}
    return wrong


def _swapping_the_identity_lookups(ir: dict[str, Any]) -> dict[str, Any]:
    wrong = copy.deepcopy(ir)
    swap = {"find_user_id_by_email": "find_user_id_by_name_zip",
            "find_user_id_by_name_zip": "find_user_id_by_email"}  # fmt: skip
    for node in walk_ir(wrong["root"]):
        if node.get("kind") == "action" and node.get("tool") in swap:
            node["tool"] = swap[node["tool"]]
    return wrong


@pytest.mark.parametrize("break_it", [_cancelling_the_users_first_order,
                                      _swapping_the_identity_lookups])  # fmt: skip
def test_verification_catches_a_rejoined_package_broken_on_purpose(break_it: Any) -> None:
    report = verify_broken(compiled(_family(), name="cancel"), break_it)
    assert not report.ok


def _returning(eid: str, uid: str, task: str = "") -> dict[str, Any]:
    """A run of another family: identified by email, then a return."""
    email, _, _, _, order = USERS[uid]
    b = EpisodeBuilder(eid, inputs={"request": f"return {order}"},
                       task_id=task or f"return_{uid}", user_id=uid)  # fmt: skip
    b.emit("user.message", {"content": f"Please return order {order}. I am {email}."})
    b.call("find_user_id_by_email", uid, store="find_user_id_by_email_out",
           node_type="react", email=email)  # fmt: skip
    b.call("get_user_details", {"user_id": uid, "orders": [order]}, store="user", user_id=uid)
    b.call("return_order", "returned", store="returned", order_id=order)
    return b.done(True)


def test_runs_of_other_families_support_an_alternative_the_family_took_once() -> None:
    """One run of the family identifies by email; two runs of another family (other tasks)
    make the same lookup that ``get_user_details(user_id=...)`` reads right after: with them as
    peers the email arm is compiled, and a held-out email run is served end to end."""
    runs = normalize_all([
        _run("e1", "u1", by="email", rules=False), _run("n2", "u2", by="name_zip", rules=False),
        _run("n3", "u3", by="name_zip", rules=False), _run("n4", "u4", by="name_zip", rules=True),
    ])  # fmt: skip
    peers = normalize_all([_returning("r2", "u2"), _returning("r3", "u3")])
    held = normalize_all([_run("h5", "u5", by="email", rules=False)])
    alone = compile_normalized(runs, name="cancel")
    assert alone.ok and validate_package(alone.package, held).served == 0
    result = compile_normalized(runs, name="cancel", peers=peers)
    v = result.verification
    assert result.ok and v.matched == v.executed == 4, result.report().text
    report = validate_package(result.package, held)
    assert report.served == report.matched == 1, report
    # one peer run of the family's own email run's task: two runs, one task, no evidence
    same_task = normalize_all([_returning("r1", "u1", task="task_u1")])
    single = compile_normalized(runs, name="cancel", peers=same_task)
    assert single.ok and validate_package(single.package, held).served == 0
