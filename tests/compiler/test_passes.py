"""Pass-level behaviour on hand-built episodes (event dicts per docs/ARCHITECTURE.md)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from jdsl.compiler import (
    CompileError,
    VerificationReport,
    compile_behavior,
    group_episodes,
    normalize_all,
    normalize_episode,
)
from jdsl.compiler.arguments import ArgChoice
from jdsl.compiler.candidates import extract_facts
from jdsl.compiler.consolidate import consolidate
from jdsl.compiler.staticize import staticize
from jdsl.compiler.verify import verify
from jdsl.errors import JdslError

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _lookup_then_orders(eid: str, customer: str, *, seeded: bool = False) -> dict:
    b = EpisodeBuilder(eid, inputs={"customer_id": customer} if seeded else {})
    b.call("lookup", {"id": customer}, store="customer", email=f"{eid}@x.com")
    b.call("list_orders", [{"id": f"#{customer}A"}], store="orders", customer_id=customer)
    return b.done()


def test_seeded_inputs_are_not_lineage_sources() -> None:
    b = EpisodeBuilder("e", inputs={"token": "abc123"})
    b.call("fetch", "ok", token="abc123")
    step = normalize_episode(b.done()).steps[0]
    assert step.arg_lineage == {} and step.input_args == {"token": "token"}


def test_results_without_store_get_synthesized_keys_and_feed_lineage() -> None:
    b = EpisodeBuilder("e")
    b.call("search", {"hits": [{"id": "X-1"}]}, query="q1")
    b.call("search", {"hits": [{"id": "X-2"}]}, query="q2")
    b.call("open", "page", doc="X-2")
    steps = normalize_episode(b.done()).steps
    assert [s.store for s in steps] == ["search_out", "search_out_2", "open_out"]
    assert steps[2].arg_lineage == {"doc": "search_out_2.hits[0].id"}


def test_canonical_maps_host_names_to_capabilities() -> None:
    b = EpisodeBuilder("e")
    b.call("mcp__retail__lookup", {"id": "U1"}, email="a@x.com")
    (ep,) = normalize_all([b.done()], canonical={"mcp__retail__lookup": "retail.lookup"})
    assert (ep.steps[0].logical_tool, ep.steps[0].host_tool) == (
        "retail.lookup",
        "mcp__retail__lookup",
    )


def test_facts_of_one_episode() -> None:
    b = EpisodeBuilder("e")
    b.call("lookup", {"id": "U1"}, store="customer", email="a@x.com")
    b.call("get", error="not found: U1", id="U1")
    b.call("escalate", "ticket", id="U1")
    b.predict("p", "customer -> mood")
    types = sorted({f.type for f in extract_facts(normalize_episode(b.done()))})
    assert types == ["ACTION", "CONTROL", "DATAFLOW", "RECOVERY", "SEMANTIC"]


def test_consolidation_applicability_and_grades() -> None:
    episodes = normalize_all([_lookup_then_orders(f"e{i}", f"U{i}") for i in range(3)])
    odd = EpisodeBuilder("odd")
    odd.call("lookup", {"id": "U9"}, store="customer", email="odd@x.com")
    odd.call("list_orders", [], store="orders", customer_id="someone-else")
    episodes += normalize_all([odd.done()])
    (flow,) = [c for c in consolidate(episodes) if c.type == "DATAFLOW"]
    assert (len(flow.support), flow.counterexamples, flow.status, flow.grade) == (
        3, ("odd",), "contested", "E1")  # fmt: skip
    backed = consolidate(episodes, contracts={flow.text: ["crm-schema"]})
    (flow,) = [c for c in backed if c.type == "DATAFLOW"]
    assert (flow.grade, flow.status, flow.contract_sources) == ("E3", "accepted", ("crm-schema",))


def test_single_support_is_proposed_not_accepted() -> None:
    (flow,) = [c for c in consolidate(normalize_all([_lookup_then_orders("e", "U1")]))
               if c.type == "DATAFLOW"]  # fmt: skip
    assert (flow.grade, flow.status) == ("E0", "proposed")


def test_unexplained_varying_argument_is_never_a_constant() -> None:
    episodes = [_lookup_then_orders("a", "U1"), _lookup_then_orders("b", "U2")]
    b = EpisodeBuilder("c", inputs={"customer_id": "OTHER"})
    b.call("lookup", {"id": "U3"}, store="customer", email="c@x.com")
    b.call("list_orders", [], store="orders", customer_id="OTHER")  # not the looked-up id
    episodes.append(b.done())
    result = compile_behavior(episodes, name="x")
    (choice,) = result.compiled.actions[1].choices
    assert choice.how == "input" and choice.spec == {"ref": "customer_id"}
    assert not any(c.how == "const" for a in result.compiled.actions for c in a.choices)


def test_model_chosen_argument_becomes_a_residual_decision() -> None:
    episodes = []
    for i, city in enumerate(["Paris", "Rome"]):
        b = EpisodeBuilder(f"e{i}", inputs={"request": f"weather {i}"})
        b.call("weather", {"t": 20 + i}, node_id="agent", node_type="react", city=city)
        episodes.append(b.done())
    result = compile_behavior(episodes, name="w")
    (choice,) = result.compiled.actions[0].choices
    assert choice.how == "residual" and choice.spec == {"ref": "city"}
    kinds = [n["kind"] for n in result.ir["root"]["child"]["children"]]
    assert kinds == ["predict", "action"]
    assert result.ir["root"]["child"]["children"][0]["signature"] == "request -> city"
    assert result.metrics.model_dependent_decisions == 1


def _guarded(eid: str, status: str) -> dict:
    b = EpisodeBuilder(eid)
    b.call("get_order", {"id": eid, "status": status}, store="order", order_id=f"{eid}-id")
    b.guard({"neq": [{"ref": "order.status"}, {"const": "shipped"}]}, result=status == "pending")
    b.guard({"eq": [{"ref": "order.status"}, {"const": "pending"}]}, kind="check")
    if status == "pending":
        b.call("cancel", "done", order_id=eid)
    return b.done()


def test_guards_the_teacher_evaluated_are_mined_and_replayed() -> None:
    result = compile_behavior([_guarded("a", "pending"), _guarded("b", "pending")], name="g")
    children = result.ir["root"]["child"]["children"]
    # teacher order (guard, then check) and the teacher's node ids
    assert [(n["kind"], n["id"]) for n in children[1:3]] == [("guard", "g5"), ("check", "g6")]
    assert [n["kind"] for n in children] == ["action", "guard", "check", "action"]
    assert result.verification.ok and result.verification.replay_checks >= 4
    grades = {p.kind: p.evidence_grade for p in result.compiled.provenance}
    assert grades["guard"] == "E4"


def test_recovery_selector_from_accepted_evidence() -> None:
    episodes = []
    for i in range(5):
        b = EpisodeBuilder(f"e{i}")
        b.call("lookup", {"id": f"U{i}"}, store="customer", email=f"{i}@x.com")
        if i < 2:  # two of five recover; three succeed directly
            b.call("get_profile", error="not found", user=f"U{i}")
            b.call("escalate", "ticket", user=f"U{i}")
        else:
            b.call("get_profile", {"name": "n"}, user=f"U{i}")
        episodes.append(b.done())
    result = compile_behavior(episodes, name="r")
    children = result.ir["root"]["child"]["children"]
    assert [c["kind"] for c in children] == ["action", "selector"]
    assert [c["tool"] for c in children[1]["children"]] == ["get_profile", "escalate"]
    assert children[1]["children"][1]["args"] == {"user": {"ref": "customer.id"}}


def test_replay_catches_a_wrong_ref() -> None:
    episodes = normalize_all([_lookup_then_orders(f"e{i}", f"U{i}") for i in range(2)])
    compiled = staticize(episodes, consolidate(episodes), name="x")
    assert verify(compiled, episodes).ok
    action = compiled.actions[1]
    wrong = ArgChoice("customer_id", "dataflow", {"ref": "customer.name"}, "customer.name", ())
    broken = dataclasses.replace(compiled, actions=(compiled.actions[0],
                                 dataclasses.replace(action, choices=(wrong,))))  # fmt: skip
    report = verify(broken, episodes)
    assert not report.ok and report.replay_coverage < 1.0
    assert "customer.name" in report.problems[0]


def test_no_successful_episode_is_a_compile_error() -> None:
    b = EpisodeBuilder("e")
    b.call("x", error="boom", a="bb")
    with pytest.raises(CompileError, match="no successful episode among 1") as info:
        compile_behavior([b.done(success=False)], name="empty")
    assert isinstance(info.value, JdslError) and info.value.episodes == ("e",)
    assert "record successful runs" in str(info.value)
    with pytest.raises(CompileError, match="no successful episode among 0"):
        compile_behavior([], name="empty")


def test_compile_refuses_a_broken_hash_chain_unless_allowed(retail_episodes) -> None:
    episodes = retail_episodes(2)
    assert compile_behavior(episodes, name="ok").ok
    events = episodes[1].events
    i = next(i for i, e in enumerate(events) if e.kind == "blackboard.write")
    events[i] = events[i].model_copy(update={"payload": {**events[i].payload, "value": "edit"}})
    with pytest.raises(CompileError, match="ep_1.*event_hash does not match") as info:
        compile_behavior(episodes, name="broken")
    assert info.value.episodes == ("ep_1",) and info.value.problems
    assert compile_behavior(episodes, name="broken", allow_broken_chain=True) is not None


def test_zero_replay_checks_is_unverified_not_passed() -> None:
    report = VerificationReport(())
    assert (report.status, report.ok, report.replay_coverage) == ("unverified", False, None)
    assert report.to_dict()["status"] == "unverified"
    assert VerificationReport(("bad",)).status == "failed"


def test_group_by_task_and_sequence() -> None:
    eps = []
    for i in range(4):
        b = EpisodeBuilder(f"e{i}", task_id=f"t{i % 2}")
        b.call("a" if i % 2 else "b", "r", q=f"q{i}")
        eps.append(b.done())
    normalized = normalize_all(eps)
    assert [k for k, _ in group_episodes(normalized, "task")] == ["task-t0", "task-t1"]
    assert [k for k, _ in group_episodes(normalized, "sequence")] == ["seq-a", "seq-b"]
    with pytest.raises(ValueError, match="task"):
        group_episodes(normalized, "bogus")  # type: ignore[arg-type]


def test_report_text_and_dict() -> None:
    result = compile_behavior([_lookup_then_orders(f"e{i}", f"U{i}") for i in range(3)], name="x")
    report = result.report()
    assert report["verification"]["status"] == "passed"
    assert "list_orders.customer_id = ref customer.id (dataflow)" in str(report)


def _agent(eid: str, **inputs: str) -> dict:
    b = EpisodeBuilder(eid, inputs={"request": "look it up", **inputs})
    b.call("get_reservation", {"ok": True}, node_id="agent", node_type="react",
           reservation_id="1N99U6", user_id="amelia_1297", cabin="economy")  # fmt: skip
    return b.done()


def test_model_chosen_identifiers_are_never_frozen_into_constants() -> None:
    episodes = [_agent(e, user_id="amelia_1297", request=f"look up {e}") for e in "abc"]
    result = compile_behavior(episodes, name="t")
    how = {c.argument: (c.how, c.spec) for c in result.compiled.actions[0].choices}
    assert how["user_id"] == ("input", {"ref": "user_id"})  # repeats a run input
    assert how["reservation_id"] == ("residual", {"ref": "reservation_id"})  # an id a model chose
    assert how["cabin"] == ("const", {"const": "economy"})  # E2: 3 of 3, not an identifier
    assert result.verification.ok
    same = compile_behavior([_agent(e, user_id="amelia_1297") for e in "abc"], name="t")
    how = {c.argument: c.how for c in same.compiled.actions[0].choices}
    assert how["cabin"] == "residual"  # 3 runs of one user and task: no constant


def test_a_generated_constant_needs_e2_support() -> None:
    result = compile_behavior([_agent(e, user_id="amelia_1297") for e in "ab"], name="t")
    how = {c.argument: (c.how, c.spec) for c in result.compiled.actions[0].choices}
    assert how["cabin"] == ("residual", {"ref": "cabin"})  # 2 identical observations: not E2
