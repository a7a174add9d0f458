"""Execution verification: the replaying binding, execute, and packages made wrong by hand."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import ReplayTools, compile_behavior, execute, normalize_all
from jdsl.compiler.replay import CallDivergence, RecordedToolFailure, decision_model, execute_all
from jdsl.compiler.verify import verify
from jdsl.providers.replay import ReplayDivergence
from jdsl.tree import Status

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _episode(result: Any = "ok", *, error: str | None = None) -> Any:
    b = EpisodeBuilder("e1", inputs={"q": "abc"})
    b.call("find", {"id": "X12"}, store="hit", q="abc")
    if error is None:
        b.call("update", result, store="out", item="X12")
    else:
        b.call("update", error=error, item="X12")
    return normalize_all([b.done(True)])[0]


def _flow(*children: dict[str, Any]) -> dict[str, Any]:
    return {"format": "jdsl.behavior.v1", "root": {"kind": "root", "name": "t", "child": {
        "kind": "sequence", "id": "flow", "children": list(children)}}}  # fmt: skip


FIND = {
    "kind": "action",
    "id": "find_0",
    "tool": "find",
    "args": {"q": {"ref": "q"}},
    "store": "hit",
}
USE = {"kind": "action", "id": "use_1", "tool": "update", "args": {"item": {"ref": "hit.id"}},
       "store": "out"}  # fmt: skip


# -- the binding ---------------------------------------------------------------------------
def test_the_binding_serves_recorded_results_and_records_calls() -> None:
    replay = ReplayTools(_episode({"done": 1}), tools=["find", "update"])
    assert replay.tools["find"](q="abc") == {"id": "X12"}
    assert replay.tools["update"](item="X12") == {"done": 1}
    assert [str(c) for c in replay.calls] == ["find(q='abc')", "update(item='X12')"]
    assert replay.divergence is None and replay.remaining == ()


def test_a_different_write_argument_an_other_write_and_an_extra_write_diverge() -> None:
    replay = ReplayTools(_episode(), tools=["find", "update", "delete"])
    with pytest.raises(
        CallDivergence, match="expected update\\(item='X12'\\), the tree called update"
    ):
        replay.tools["update"](item="X13")
    assert replay.divergence is not None and replay.divergence.call_index == 0
    assert replay.divergence.kind == "write"
    replay = ReplayTools(_episode(), tools=["find", "update", "delete"])
    with pytest.raises(CallDivergence, match="a different write"):
        replay.tools["delete"](item="X12")
    replay = ReplayTools(_episode(), tools=["find", "update"])
    replay.tools["find"](q="abc")
    replay.tools["update"](item="X12")
    with pytest.raises(CallDivergence, match="an extra write"):
        replay.tools["update"](item="X12")


def test_reads_may_differ_a_read_is_looked_up_by_its_arguments() -> None:
    replay = ReplayTools(_episode(), tools=["find", "update"])
    assert replay.tools["update"](item="X12") == "ok"  # the read before it was skipped
    assert replay.tools["find"](q="abc") == {"id": "X12"}  # asked again, after the write
    assert replay.tools["find"](q="abc") == {"id": "X12"}
    with pytest.raises(CallDivergence, match="a read the episode never made") as raised:
        replay.tools["find"](q="abd")
    assert raised.value.divergence.kind == "read"


def test_a_read_is_answered_as_it_was_before_the_next_write() -> None:
    b = EpisodeBuilder("e", inputs={})
    b.call("get", {"n": 1}, store="a", id="X")
    b.call("update", "ok", store="u", id="X")
    b.call("get", {"n": 2}, store="b", id="X")
    replay = ReplayTools(normalize_all([b.done(True)])[0], tools=["get", "update"])
    assert replay.tools["get"](id="X") == {"n": 1}
    replay.tools["update"](id="X")
    assert replay.tools["get"](id="X") == {"n": 2}


def test_typed_equality_a_bool_never_matches_a_number() -> None:
    b = EpisodeBuilder("e", inputs={})
    b.call("set_flag", None, on=1)
    replay = ReplayTools(normalize_all([b.done(True)])[0], tools=["set_flag"])
    with pytest.raises(CallDivergence):
        replay.tools["set_flag"](on=True)


def test_a_recorded_exception_and_a_recorded_failure_are_served_back() -> None:
    replay = ReplayTools(_episode(error="boom"), tools=["find", "update"], failing=["update"])
    replay.tools["find"](q="abc")
    with pytest.raises(RecordedToolFailure, match="boom"):
        replay.tools["update"](item="X12")
    b = EpisodeBuilder("e", inputs={})
    started = b.emit("tool.call.started", {"node_id": "n", "store": None,
                                           "tool": {"host_name": "t"}, "arguments": {}})  # fmt: skip
    b.emit("tool.call.failed", {"node_id": "n", "store": None, "tool": {"host_name": "t"},
                                "error": "t returned Status.FAILURE",
                                "error_type": "Status.FAILURE"}, started)  # fmt: skip
    replay = ReplayTools(normalize_all([b.done(True)])[0], tools=["t"], failing=["t"])
    assert replay.tools["t"]() is Status.FAILURE


def test_a_failed_call_is_expected_only_where_the_tree_recovers_from_it() -> None:
    episode = _episode(error="boom")
    assert len(ReplayTools(episode, tools=["find", "update"]).expected) == 0
    assert len(ReplayTools(episode, tools=["find", "update"], failing=["update"]).expected) == 1


# -- execute ---------------------------------------------------------------------------------
def test_execute_matches_a_tree_that_makes_the_recorded_calls() -> None:
    run = execute(_flow(FIND, USE), _episode())
    assert run.matched and run.status == "success" and run.expected == 1  # one write
    assert [c.tool for c in run.calls] == ["find", "update"]


def test_execute_names_the_node_and_the_calls_of_the_first_divergence() -> None:
    frozen = {**USE, "args": {"item": {"const": "X99"}}}
    run = execute(_flow(FIND, frozen), _episode())
    d = run.divergence
    assert d is not None and not run.matched
    assert (d.episode_id, d.node_id, d.call_index) == ("e1", "use_1", 1)
    assert (d.expected, d.actual) == ("update(item='X12')", "update(item='X99')")
    assert "different arguments" in d.reason and "episode 'e1', node 'use_1', call 1" in str(d)


def test_a_call_left_unmade_and_a_different_outcome_diverge() -> None:
    run = execute(_flow(FIND), _episode())
    assert run.divergence is not None and run.divergence.expected == "update(item='X12')"
    assert "without making it" in run.divergence.reason and run.divergence.kind == "missing"
    failing = {"kind": "guard", "id": "never", "expression": {"exists": {"ref": "nothing"}}}
    run = execute(_flow(FIND, USE, failing), _episode())
    assert run.divergence is not None and run.divergence.node_id == "never"
    assert run.divergence.reason == "the run ended failure, the teacher's episode success"


def test_a_divergence_is_never_recovered_by_on_error_fail() -> None:
    wrong = {"kind": "selector", "id": "try", "children": [
        {**USE, "id": "bad", "args": {"item": {"const": "nope"}}, "on_error": "fail"}, USE]}  # fmt: skip
    run = execute(_flow(FIND, wrong), _episode())
    assert run.divergence is not None and run.divergence.node_id == "bad"


def test_model_decisions_are_served_by_replay_model_in_tree_order() -> None:
    b = EpisodeBuilder("e", inputs={"request": "the second"})
    b.call("list", [{"id": "A1"}, {"id": "B2"}], store="items")
    b.predict("pick", "request, items -> index: int", index=1)
    b.call("update", "ok", store="out", item="B2")
    episode = normalize_all([b.done(True)])[0]
    pick = {"kind": "predict", "id": "pick", "signature": "request, items -> index: int"}
    use = {
        "kind": "action",
        "id": "use",
        "tool": "update",
        "args": {"item": {"ref": "items[$index].id"}},
    }
    tree = _flow({"kind": "action", "id": "list", "tool": "list", "store": "items"}, pick, use)
    assert execute(tree, episode).matched
    model = decision_model(tree, episode)
    assert model.remaining == 1
    # a tree asking the model something the episode never decided diverges
    extra = {"kind": "predict", "id": "extra", "signature": "request -> mood"}
    run = execute(_flow({"kind": "action", "id": "list", "tool": "list", "store": "items"},
                        pick, extra, use), episode)  # fmt: skip
    assert run.divergence is not None and "no decision" in run.divergence.reason
    with pytest.raises(ReplayDivergence):
        model.converse("", [])
        model.converse("", [])


def test_execute_all_loads_the_tree_once_and_keeps_episode_order(retail_episodes) -> None:
    result = compile_behavior(retail_episodes(4), name="cancel")
    runs = execute_all(result.ir, result.normalized)
    assert [r.episode_id for r in runs] == ["ep_0", "ep_1", "ep_2", "ep_3"]
    assert all(r.matched for r in runs)


# -- packages made wrong by hand fail verification ---------------------------------------------
def _nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    found = [node]
    for child in [node.get("child"), *(node.get("children") or [])]:
        found += _nodes(child) if isinstance(child, dict) else []
    return found


def _wrong(result: Any, edit: Any) -> Any:
    compiled = copy.deepcopy(result.compiled)
    edit(_nodes(compiled.ir["root"]))
    return verify(compiled, result.normalized)


def test_a_frozen_argument_fails_verification_at_its_call(retail_episodes) -> None:
    result = compile_behavior(retail_episodes(3), name="cancel")
    assert result.ok and result.verification.matched == 3

    def freeze(children: list[dict[str, Any]]) -> None:
        action = next(n for n in children if n.get("tool") == "list_orders")
        action["args"]["customer_id"] = {
            "const": result.normalized[0].steps[1].arguments["customer_id"]
        }

    report = _wrong(result, freeze)  # a read: the record cannot answer the frozen lookup
    assert report.status == "failed" and report.matched == 1
    first = report.divergences[0]
    assert first.episode_id == "ep_1" and first.node_id == "list_orders_1"
    assert first.kind == "read" and "a read the episode never made" in first.reason
    assert report.to_dict()["first_divergence"]["node_id"] == "list_orders_1"
