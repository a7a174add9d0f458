"""Root.run: fresh blackboard, episode events, error handling, bindings, model resolution."""

from __future__ import annotations

import pytest
from jdsl import (
    ListTraceSink,
    RunContext,
    Status,
    act,
    check,
    guard,
    guard_call,
    predict,
    ref,
    root,
    sel,
    seq,
)
from jdsl.errors import BindingError, ValidationError
from jdsl.testing import ScriptedModel


def echo(v: str) -> str:
    return v


def fail_hard(v: str) -> str:
    raise LookupError(f"no such thing: {v}")


def test_run_returns_context_with_fresh_blackboard():
    tree = root("r").do(act(echo, v=ref("x")) >> "y")
    first = tree.run(x="a")
    second = tree.run(x="b")
    assert isinstance(first, RunContext) and first.status is Status.SUCCESS
    assert first.blackboard == {"x": "a", "y": "a"} and second.blackboard["y"] == "b"


def test_episode_events_and_inputs_are_not_traced_as_writes():
    sink = ListTraceSink()
    tree = root("r").do(act(echo, v=ref("x")) >> "y")
    tree.run(trace_sink=sink, capture_id="cap", episode_id="ep1", x="a")
    events = sink.events
    assert events[0].kind == "episode.started" and events[-1].kind == "episode.finished"
    assert events[0].payload["skill"] == "r" and events[0].payload["inputs"] == {"x": "a"}
    assert events[0].payload["ir"]["child"]["tool"] == "echo"
    assert events[-1].payload == {
        "skill": "r",
        "status": "success",
        "error_type": None,
        "error_message": None,
        "failure": None,
    }
    writes = [e.payload["key"] for e in events if e.kind == "blackboard.write"]
    assert writes == ["y"]
    assert {e.episode_id for e in events} == {"ep1"} and [e.sequence for e in events] == list(
        range(len(events))
    )


def test_node_enter_exit_pairs():
    sink = ListTraceSink()
    root("r").do(seq(check("x", 1), id="s")).run(trace_sink=sink, x=1)
    enters = {e.event_id: e for e in sink.events if e.kind == "node.enter"}
    exits = [e for e in sink.events if e.kind == "node.exit"]
    assert len(enters) == len(exits) == 3
    for exit_event in exits:
        enter = enters[exit_event.parent_event_id]
        assert enter.payload["node_id"] == exit_event.payload["node_id"]
        assert exit_event.payload["status"] == "success"
    assert [e.payload["type"] for e in enters.values()] == ["root", "sequence", "check"]


def test_tool_exception_propagates_and_closes_episode():
    sink = ListTraceSink()
    tree = root("r").do(act(fail_hard, v=ref("x"), id="finder"))
    with pytest.raises(LookupError) as info:
        tree.run(trace_sink=sink, x="a")
    assert any("finder" in n for n in info.value.__notes__)
    failed = next(e for e in sink.events if e.kind == "tool.call.failed")
    assert failed.payload["error_type"] == "LookupError" and failed.actor == "tool"
    finished = sink.events[-1]
    assert finished.kind == "episode.finished"
    assert finished.payload["status"] == "error" and finished.payload["error_type"] == "LookupError"


def test_raise_errors_false_sets_ctx_error():
    ctx = root("r").do(act(fail_hard, v=ref("x"))).run(raise_errors=False, x="a")
    assert isinstance(ctx.error, LookupError) and ctx.status is Status.FAILURE


def test_keyboard_interrupt_closes_as_cancelled_and_reraises():
    def interrupt() -> None:
        raise KeyboardInterrupt

    sink = ListTraceSink()
    with pytest.raises(KeyboardInterrupt):
        root("r").do(act(interrupt)).run(trace_sink=sink, raise_errors=False)
    assert sink.events[-1].payload["status"] == "cancelled"
    exits = [e for e in sink.events if e.kind == "node.exit"]
    assert exits[0].payload["status"] == "cancelled"


def test_failure_status_is_reported():
    sink = ListTraceSink()
    ctx = root("r").do(check("x", 1)).run(trace_sink=sink, x=2)
    assert ctx.status is Status.FAILURE and ctx.error is None
    assert sink.events[-1].payload["status"] == "failure"


def test_unbound_names_fail_before_the_first_tick():
    called: list[str] = []

    def first() -> None:
        called.append("first")

    tree = root("r").do(seq(act(first), act("lokup", email=ref("e"))))
    tree.bind(tools={"lookup": echo})
    with pytest.raises(BindingError) as info:
        tree.run(e="x")
    assert called == [] and "'lookup'" in str(info.value)
    ctx = tree.run(raise_errors=False, e="x")
    assert isinstance(ctx.error, BindingError)


def test_unbound_predicate_detected():
    tree = root("r").do(guard_call("is_ok", v=ref("x")))
    with pytest.raises(BindingError) as info:
        tree.run(x=1)
    assert info.value.kind == "predicate"
    assert tree.run(predicates={"is_ok": lambda v: v == 1}, x=1).status is Status.SUCCESS


def test_one_name_two_callables_is_an_error():
    def lookup(v: str) -> str:
        return v

    other = lookup

    def lookup2(v: str) -> str:  # same name, different function
        return v

    lookup2.__name__ = "lookup"
    root("ok").do(seq(act(lookup, v="a"), act(other, v="b")))  # same callable twice is fine
    with pytest.raises(BindingError):
        root("r").do(seq(act(lookup, v="a"), act(lookup2, v="b")))


def test_bind_conflict_and_replace():
    tree = root("r").do(act(echo, v="a") >> "y")
    with pytest.raises(BindingError):
        tree.bind(tools={"echo": fail_hard})
    tree.bind(tools={"echo": lambda v: v.upper()}, replace=True)
    assert tree.run().blackboard["y"] == "A"


def test_run_tools_override_bindings():
    tree = root("r").do(act(echo, v="a") >> "y")
    assert tree.run(tools={"echo": lambda v: "override"}).blackboard["y"] == "override"


def test_root_without_child():
    with pytest.raises(ValidationError):
        root("empty").run()


def test_do_rejects_non_nodes():
    with pytest.raises(TypeError):
        root("r").do(echo)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        seq(echo)  # type: ignore[arg-type]


def test_model_id_resolution_failure_is_reported(monkeypatch):
    import jdsl.providers as providers

    def resolve(model_id: str):
        raise BindingError(f"unknown model {model_id}", name=model_id, kind="model")

    monkeypatch.setattr(providers, "resolve_model", resolve, raising=False)
    tree = root("r").model("nonexistent-model").do(predict("q -> a"))
    with pytest.raises(BindingError, match="nonexistent-model"):
        tree.run(q="?")


def test_model_id_resolved_only_when_a_model_leaf_exists(monkeypatch):
    import jdsl.providers as providers

    resolved: list[str] = []
    monkeypatch.setattr(
        providers,
        "resolve_model",
        lambda mid: resolved.append(mid) or ScriptedModel("hi"),
        raising=False,
    )
    root("r").model("m").do(check("x", 1)).run(x=1)
    assert resolved == []
    ctx = root("r").model("m").do(predict("q -> a")).run(q="?")
    assert resolved == ["m"] and ctx.blackboard["a"] == "hi" and ctx.model_id == "m"


def test_model_id_passed_to_converse():
    model = ScriptedModel("x")
    root("r").model("m-2").do(predict("q -> a")).run(model=model, q="?")
    assert model.calls[0]["model_id"] == "m-2"


def test_hand_built_context_ticks():
    tree = root("r").do(sel(check("x", 2), act(echo, v=ref("x")) >> "y"))
    ctx = RunContext({"x": "1"}, bindings=tree.resolved_bindings())
    assert tree.tick(ctx) is Status.SUCCESS and ctx.blackboard["y"] == "1"


def test_guard_events():
    sink = ListTraceSink()
    tree = root("r").do(seq(check("x", "A"), guard("y > 1"), guard_call(lambda_ok, v=ref("y"))))
    tree.run(trace_sink=sink, x="a", y=2)
    evaluated = [e.payload for e in sink.events if e.kind == "guard.evaluated"]
    assert [p["type"] for p in evaluated] == ["check", "guard", "guard_call"]
    assert evaluated[0]["expression"] == {"eq": [{"ref": "x"}, {"const": "A"}]}
    assert evaluated[1]["values"] == {"y": 2} and all(p["result"] for p in evaluated)
    assert evaluated[2]["values"] == {"y": 2}


def lambda_ok(v: int) -> bool:
    return v > 0


def test_untraced_run_emits_nothing_and_keeps_provenance():
    tree = root("r").do(act(echo, v=ref("x")) >> "y")
    ctx = tree.run(x="a")
    assert ctx.emit("annotation", {}) is None and not ctx.tracing
    assert ctx.blackboard.who_wrote("y") == "root/action.0"
    assert ctx.blackboard.writes()[-1].writer_label == "act(echo) -> y"


def test_check_bindings_and_fresh_context_status():
    tree = root("r").do(seq(act("a"), guard_call("p")))
    with pytest.raises(BindingError):
        tree.check_bindings(tree.resolved_bindings())
    tree.check_bindings(tree.resolved_bindings(tools={"a": echo}, predicates={"p": lambda_ok}))
    assert RunContext().status is Status.FAILURE and RunContext().error is None


def test_tracing_names_each_node_once_per_run_and_checks_actors() -> None:
    from jdsl import tree
    from jdsl.trace import ListTraceSink

    action = tree.Action(tool="t", store="out")
    root = tree.Root(name="names", child=action)
    sink = ListTraceSink()
    ctx = root.run(trace_sink=sink, tools={"t": lambda: 1})
    assert ctx.node_names[id(action)] == ("root/action.0", "act(t) -> out")
    enter = [e for e in sink.events if e.kind == "node.enter" and e.payload["type"] == "action"]
    assert enter[0].payload["label"] == "act(t) -> out"
    with pytest.raises(ValueError, match="actor 'robot'"):
        ctx.emit("annotation", {}, actor="robot")
