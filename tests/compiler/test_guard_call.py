"""guard_call evaluations the teacher made are mined as GUARD candidates and replayed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior
from jdsl.dsl import act, guard_call, ref, root, seq
from jdsl.errors import BindingError, PackageError
from jdsl.testing import ScriptedModel
from jdsl.trace import Episode, ListTraceSink, segment_episodes
from jdsl.tree import Status

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def lookup(email: str) -> dict[str, Any]:
    return {"id": "U_" + email.split("@")[0], "tier": "gold"}


def refund(customer_id: str, amount: int) -> dict[str, Any]:
    return {"refunded": amount}


def eligible(customer: dict[str, Any], amount: int) -> bool:
    return customer["tier"] == "gold" and amount < 100


def _episodes(n: int) -> list[Episode]:
    tree = root("refund").do(seq(
        act(lookup, email=ref("email")) >> "customer",
        guard_call(eligible, customer=ref("customer"), amount=ref("amount")),
        act(refund, customer_id=ref("customer.id"), amount=ref("amount")) >> "receipt",
    ))  # fmt: skip
    sink = ListTraceSink()
    for i in range(n):
        tree.run(trace_sink=sink, episode_id=f"e{i}", email=f"c{i}@x.com", amount=10 + i)
    return segment_episodes(sink.events)


def test_a_teacher_guard_call_compiles_and_replays() -> None:
    result = compile_behavior(_episodes(3), name="refund")
    assert result.ok, result.verification.problems
    flow = result.ir["root"]["child"]["children"]
    call = flow[1]
    assert call["kind"] == "guard_call" and call["predicate"] == "eligible"
    assert call["args"] == {"customer": {"ref": "customer"}, "amount": {"ref": "amount"}}
    checks = [c for c in result.verification.checks if c.node_id == call["id"]]
    assert len(checks) == 3 and all(c.passed for c in checks)
    grades = {
        n["node_id"]: n["evidence_grade"] for n in result.package.json("provenance.json")["nodes"]
    }
    assert grades[call["id"]] == "E4"
    assert result.package.manifest["required_predicates"] == ["eligible"]
    assert result.package.required_predicates == ["eligible"]


def test_the_package_needs_the_predicate_bound() -> None:
    package = compile_behavior(_episodes(3), name="refund").package
    tools = {"lookup": lookup, "refund": refund}
    with pytest.raises(PackageError, match="eligible"):
        package.bind(tools)
    # not eligible: the compiled path fails and hands over to the fallback, which needs a model
    with pytest.raises(BindingError, match="no model"):
        package.as_root(tools, {"eligible": eligible}).run(email="z@x.com", amount=500)
    ctx = package.as_root(tools, {"eligible": eligible}).run(
        email="z@x.com", amount=500, model=ScriptedModel("I cannot refund that.")
    )
    assert ctx.status is Status.SUCCESS and "receipt" not in ctx.blackboard
    assert ctx.blackboard["answer"] == "I cannot refund that."
    ctx = package.as_root(tools, {"eligible": eligible}).run(email="z@x.com", amount=5)
    assert ctx.status is Status.SUCCESS and ctx.blackboard["receipt"] == {"refunded": 5}


def _hand(eid: str, held: bool, seen: Any) -> dict[str, Any]:
    b = EpisodeBuilder(eid, inputs={"amount": 7})
    b.call("lookup", {"id": "U1", "tier": "gold"}, store="customer", email="a@x.com")
    expression = {"call": "eligible", "args": {"amount": {"ref": "amount"}}}
    b.emit("guard.evaluated", {"node_id": "g", "type": "guard_call", "expression": expression,
                               "result": held, "values": {"amount": seen}})  # fmt: skip
    b.call("refund", {"ok": True}, store="receipt", customer_id="U1", amount=7)
    return b.done(True)


def test_a_guard_call_that_did_not_always_hold_is_not_compiled() -> None:
    result = compile_behavior([_hand("a", True, 7), _hand("b", False, 7), _hand("c", True, 7)],
                              name="r")  # fmt: skip
    assert result.ok and not any(n.get("kind") == "guard_call"
                                 for n in result.ir["root"]["child"]["children"])  # fmt: skip
    assert result.package.manifest["required_predicates"] == []


def test_a_guard_call_whose_refs_do_not_replay_fails_verification() -> None:
    result = compile_behavior([_hand("a", True, 7), _hand("b", True, 8)], name="r")
    assert not result.ok
    assert any(
        "'amount' resolved to 7, the predicate saw 8" in p for p in result.verification.problems
    )
