"""A failed call is a failed call; recovery that recovers (issue 12, teachers 1 and 2)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from jdsl.compiler import compile_behavior, normalize_episode
from jdsl.compiler.verify import verify
from jdsl.dsl import act, ref, root, sel
from jdsl.errors import RefError
from jdsl.ir import from_ir, validate_ir
from jdsl.text import format_behavior, parse_behavior
from jdsl.trace import ListTraceSink, payload_problems, segment_episodes
from jdsl.tree import RETURNED_FAILURE, Root, Status


class Flaky(Exception):
    """What a broken primary service raises."""


def _tools(calls: list[str], *, primary: str) -> dict[str, Any]:
    def lookup(q: str) -> Any:
        calls.append(f"lookup {q}")
        if primary == "failure":
            return Status.FAILURE
        if primary == "raise":
            raise Flaky(f"service down for {q}")
        return {"hit": q, "via": "lookup"}

    def backup(q: str) -> Any:
        calls.append(f"backup {q}")
        return {"hit": q, "via": "backup"}

    return {"lookup": lookup, "backup": backup}


def _teacher(tools: dict[str, Any], *, on_error: bool) -> Root:
    primary = act(tools["lookup"], q=ref("q")) >> "res"
    if on_error:
        primary.on_error = "fail"
    return root("find").do(sel(primary, act(tools["backup"], q=ref("q")) >> "res"))


def _episodes(primary: str, n: int = 3) -> list[Any]:
    sink = ListTraceSink()
    for i in range(n):
        tools = _tools([], primary=primary)
        _teacher(tools, on_error=primary == "raise").run(
            trace_sink=sink, episode_id=f"ep{i}", q=f"query-{i}x"
        )
    return segment_episodes(sink.events)


# -- the trace: a returned FAILURE is a failed call --------------------------------------------
def test_a_returned_failure_is_traced_as_a_failed_call() -> None:
    episode = _episodes("failure", 1)[0]
    failed = [e for e in episode.events if e.kind == "tool.call.failed"]
    assert [e.payload["error_type"] for e in failed] == [RETURNED_FAILURE]
    assert failed[0].payload["result"] == "failure"
    assert not any(
        e.kind == "tool.call.completed" and e.payload["tool"]["host_name"] == "lookup"
        for e in episode.events
    )
    assert payload_problems(episode.events) == []


def test_normalize_marks_a_returned_failure_not_ok() -> None:
    norm = normalize_episode(_episodes("failure", 1)[0])
    assert [(s.logical_tool, s.ok, s.error_type) for s in norm.steps] == [
        ("lookup", False, RETURNED_FAILURE),
        ("backup", True, None),
    ]
    assert norm.tool_sequence() == ("backup",)


def test_a_trace_written_before_still_reads_a_completed_failure_as_a_result() -> None:
    """Old traces recorded a returned FAILURE as ``tool.call.completed`` result "failure";
    they still normalize (as a completed call, since the string is ambiguous)."""
    events = [
        {"kind": "episode.started", "sequence": 0, "payload": {"inputs": {}}},
        {"kind": "tool.call.started", "sequence": 1, "event_id": "s",
         "payload": {"node_id": "n", "store": None, "tool": {"host_name": "t"}, "arguments": {}}},
        {"kind": "tool.call.completed", "sequence": 2, "parent_event_id": "s",
         "payload": {"node_id": "n", "store": None, "tool": {"host_name": "t"}, "result": "failure"}},
    ]  # fmt: skip
    norm = normalize_episode({"episode_id": "old", "events": events})
    assert [(s.ok, s.result) for s in norm.steps] == [(True, "failure")]


# -- the runtime: on_error=fail ----------------------------------------------------------------
def test_authored_trees_keep_the_seed_rule_exceptions_propagate() -> None:
    calls: list[str] = []
    tree = _teacher(_tools(calls, primary="raise"), on_error=False)
    with pytest.raises(Flaky):
        tree.run(q="abc")
    assert calls == ["lookup abc"]


def test_on_error_fail_turns_an_exception_into_failure_the_selector_recovers() -> None:
    calls: list[str] = []
    ctx = _teacher(_tools(calls, primary="raise"), on_error=True).run(q="abc")
    assert ctx.status is Status.SUCCESS and ctx.blackboard["res"]["via"] == "backup"
    assert calls == ["lookup abc", "backup abc"]


def test_on_error_fail_never_swallows_jdsl_errors() -> None:
    """A missing ref is a bug in the tree, not a tool failure: it propagates."""
    tools = _tools([], primary="ok")
    primary = act(tools["lookup"], q=ref("cfg.missing"), id="p")
    primary.on_error = "fail"
    with pytest.raises(RefError):
        root("x").do(sel(primary, act(tools["backup"], q=ref("cfg.missing")))).run(cfg={})


def test_on_error_in_ir_text_and_drawing_round_trips() -> None:
    text = "root r\n  sel\n    act lookup(q=q) -> res on_error=fail\n    act backup(q=q) -> res\n"
    tree = parse_behavior(text)
    assert format_behavior(tree) == text
    ir = tree.to_ir()
    assert ir["child"]["children"][0]["on_error"] == "fail"
    assert "on_error" not in ir["child"]["children"][1]
    from jdsl.drawing import tree_dot

    assert "on_error=fail" in tree_dot(tree)


def test_a_bad_on_error_value_is_a_validation_problem() -> None:
    doc = {"format": "jdsl.behavior.v1", "root": {"kind": "root", "name": "r", "child": {
        "kind": "action", "tool": "t", "on_error": "ignore"}}}  # fmt: skip
    problems = validate_ir(doc).problems
    assert any("on_error must be 'fail'" in p for p in problems)
    with pytest.raises(Exception, match="on_error"):
        from_ir(doc)


# -- the compiler: teachers 1 and 2 ------------------------------------------------------------
@pytest.mark.parametrize("primary", ["failure", "raise"])
def test_the_compiled_package_recovers_like_the_teacher(primary: str) -> None:
    result = compile_behavior(_episodes(primary), name="find")
    assert result.ok, result.report().text
    assert result.verification.executed == result.verification.matched == 3
    flow = result.ir["root"]["child"]["children"]
    assert [n["kind"] for n in flow] == ["selector"]
    first, fallback = flow[0]["children"]
    assert (first["tool"], first["on_error"], first["args"]) == (
        "lookup",
        "fail",
        {"q": {"ref": "q"}},
    )
    assert (fallback["tool"], fallback["args"]) == ("backup", {"q": {"ref": "q"}})
    assert first["store"] == fallback["store"] == "res"
    # fresh inputs: the primary's failure takes the backup; a working primary is used alone
    package = from_ir(result.ir)
    for i in range(20):
        calls: list[str] = []
        ctx = package.run(tools=_tools(calls, primary=primary), q=f"fresh-{i}")
        assert ctx.status is Status.SUCCESS, ctx.failure
        assert calls == [f"lookup fresh-{i}", f"backup fresh-{i}"]
        assert ctx.blackboard["res"] == {"hit": f"fresh-{i}", "via": "backup"}
    calls = []
    assert (
        package.run(tools=_tools(calls, primary="ok"), q="up").blackboard["res"]["via"] == "lookup"
    )
    assert calls == ["lookup up"]


def test_a_dropped_fallback_fails_verification_at_the_outcome() -> None:
    compiled = compile_behavior(_episodes("failure"), name="find", fallback=False)
    wrong = copy.deepcopy(compiled.compiled)
    wrong.ir["root"]["child"]["children"][0]["children"].pop()
    report = verify(wrong, compiled.normalized)
    assert report.status == "failed" and report.matched == 0
    first = report.divergences[0]
    assert (first.episode_id, first.call_index) == ("ep0", 1)
    # lookup and backup only read: what differs is the outcome (the teacher's run succeeded)
    assert (first.expected, first.actual, first.kind) == ("success", "failure", "outcome")
    assert first.node_id is not None and first.node_id == "try_lookup_0"
    assert "the run ended failure, the teacher's episode success" in first.reason


def test_a_contested_recovery_stays_out_and_in_the_report() -> None:
    """Two episodes recover with backup, one with other: neither is accepted."""
    sink = ListTraceSink()
    for i, fallback in enumerate(["backup", "backup", "other"]):
        tools = _tools([], primary="failure")
        tools["other"] = _other
        tree = root("find").do(sel(act(tools["lookup"], q=ref("q")) >> "res",
                                   act(tools[fallback], q=ref("q")) >> "res"))  # fmt: skip
        tree.run(trace_sink=sink, episode_id=f"ep{i}", q=f"query-{i}x")
    result = compile_behavior(segment_episodes(sink.events), name="find")
    assert not any(n.get("on_error") for n in _walk(result.ir["root"]))
    notes = result.report()["notes"]
    assert any("recovery RECOVERY lookup" in n and "contested" in n for n in notes)


def _other(q: str) -> dict[str, Any]:
    return {"hit": q}


def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    found = [node]
    for key in ("child", "until"):
        if isinstance(node.get(key), dict):
            found += _walk(node[key])
    for child in node.get("children") or ():
        found += _walk(child)
    return found
