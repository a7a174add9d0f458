"""Predict: stateless typed model calls."""

from __future__ import annotations

import pytest
from jdsl import ListTraceSink, ModelTurn, Status, Usage, predict, root, seq
from jdsl.errors import BehaviorCheckError, BindingError, RefError, SignatureError
from jdsl.testing import FunctionModel, ScriptedModel


def test_single_output_stripped_and_written():
    model = ScriptedModel("  Paris \n")
    ctx = root("r").do(predict("question -> answer", id="p")).run(model=model, question="capital?")
    assert ctx.status is Status.SUCCESS
    assert ctx.blackboard["answer"] == "Paris"
    assert ctx.blackboard.who_wrote("answer") == "p"
    call = model.calls[0]
    assert len(call["messages"]) == 1 and call["messages"][0].role == "user"
    assert "- question: capital?" in call["messages"][0].content
    assert call["tools"] == []


def test_multiple_outputs_validated_then_written():
    model = ScriptedModel('{"category": "bug", "urgency": "3"}')
    tree = root("r").do(predict("ticket -> category: Literal['bug', 'billing'], urgency: int"))
    ctx = tree.run(model=model, ticket="it crashes")
    assert ctx.blackboard["category"] == "bug" and ctx.blackboard["urgency"] == 3


@pytest.mark.parametrize(
    ("signature", "reply"),
    [
        ("t -> a, b", "not json at all"),
        ("t -> a, b: int", '{"a": "x", "b": "many"}'),
        ("t -> n: int", "three"),
        ("t -> answer", "   "),
    ],
)
def test_invalid_output_fails_and_writes_nothing(signature, reply):
    sink = ListTraceSink()
    ctx = root("r").do(predict(signature)).run(model=ScriptedModel(reply), trace_sink=sink, t="x")
    assert ctx.status is Status.FAILURE and ctx.error is None
    assert ctx.blackboard.writes()[1:] == []  # only the input
    responded = [e for e in sink.events if e.kind == "model.responded"][0]
    assert responded.payload["status"] == "failure" and responded.payload["error"]


def test_stateless_calls_do_not_accumulate_history():
    model = ScriptedModel("one", "two")
    ctx = root("r").do(seq(predict("q -> a"), predict("a -> b"))).run(model=model, q="?")
    assert ctx.blackboard["b"] == "two"
    assert [len(c["messages"]) for c in model.calls] == [1, 1]
    assert "- a: one" in model.calls[1]["messages"][0].content


def test_context_scoping_builds_the_system_prompt():
    seen: list[str] = []

    def fn(system, messages, tools, model_id):
        seen.append(system)
        return "ok"

    tree = root("r", system="ROOT").do(
        seq(
            seq(predict("q -> a", context="INNER"), context="OUTER"),
            predict("q -> b"),
        )
    )
    tree.run(model=FunctionModel(fn), q="?")
    assert seen == ["ROOT\n\nOUTER\n\nINNER", "ROOT"]


def test_input_sources_and_missing_inputs():
    model = ScriptedModel("x")
    tree = root("r").do(
        predict("who, gone -> a", input_sources={"who": "blackboard.customer.name"})
    )
    with pytest.raises(BehaviorCheckError, match="reads gone, which no node writes") as info:
        tree.run(model=model, customer={"name": "Ada"})
    assert "give gone as a run input" in str(info.value) and model.calls == []
    tree.run(model=model, customer={"name": "Ada"}, gone=None)  # given, even as None: sent
    prompt = model.calls[0]["messages"][0].content
    assert "- who: Ada" in prompt and "- gone: null" in prompt


def test_a_value_nobody_provided_is_never_sent_as_null():
    """A path the static check cannot see through (a field of a given key) raises at the read."""
    model = ScriptedModel("x")
    tree = root("r").do(predict("who -> a", input_sources={"who": "customer.name"}))
    with pytest.raises(RefError, match="customer.name"):
        tree.run(model=model, customer={"id": 7})
    assert model.calls == []


def test_instructions_and_examples_in_prompt():
    model = ScriptedModel("0")
    tree = root("r").do(
        predict(
            "q -> n: int",
            instructions="Pick one.",
            examples=[{"input": {"q": "a"}, "output": {"n": 0}}],
        )
    )
    tree.run(model=model, q="b")
    prompt = model.calls[0]["messages"][0].content
    assert prompt.startswith('Pick one.\nExamples:\nInput: {"q": "a"}\nOutput: {"n": 0}')


def test_no_model_is_a_binding_error():
    with pytest.raises(BindingError) as info:
        root("r").do(predict("q -> a")).run(q="?")
    assert "model=" in str(info.value)


def test_model_exception_propagates_with_note_and_trace():
    def fail(system, messages, tools, model_id):
        raise ConnectionError("down")

    sink = ListTraceSink()
    with pytest.raises(ConnectionError) as info:
        root("r").do(predict("q -> a", id="p")).run(
            model=FunctionModel(fail), trace_sink=sink, q="?"
        )
    assert any("'p'" in n for n in info.value.__notes__)
    responded = [e for e in sink.events if e.kind == "model.responded"][0]
    assert responded.payload["status"] == "error" and "down" in responded.payload["error"]


def test_trace_payloads():
    sink = ListTraceSink()
    turn = ModelTurn(text="1", usage=Usage(input_tokens=5, output_tokens=1), finish_reason="stop")
    tree = root("r", system="S").model("m-1").do(predict("q -> n: int", id="p"))
    tree.run(model=ScriptedModel(turn), trace_sink=sink, q="?")
    requested = next(e for e in sink.events if e.kind == "model.requested")
    responded = next(e for e in sink.events if e.kind == "model.responded")
    assert requested.actor == "model" and responded.parent_event_id == requested.event_id
    p = requested.payload
    assert (p["node_id"], p["kind"], p["signature"], p["model_id"], p["system"]) == (
        "p",
        "predict",
        "q -> n: int",
        "m-1",
        "S",
    )
    assert p["messages"][0]["role"] == "user" and p["input_fields"] == ["q"]
    assert p["inputs"] == {"q": "?"} and p["output_fields"] == ["n"] and p["prompt"]
    r = responded.payload
    assert r["raw_output"] == "1" and r["parsed_output"] == {"n": 1} and r["status"] == "success"
    assert r["usage"]["input_tokens"] == 5 and r["finish_reason"] == "stop"
    assert isinstance(r["elapsed_ms"], float)


def test_bad_signature_rejected_at_build_time():
    with pytest.raises((SignatureError, ValueError)):
        predict("no arrow")


def test_a_predict_under_a_selector_fails_on_an_input_nobody_gave_never_sends_null():
    """Outside a selector the static check stops a run that reads an input nobody gave; under
    one (a compiled package's program, before its fallback) it lets the run go, and the
    predict sent the model ``- request: null``. It now fails, naming the key, and the next
    alternative runs; a key some other branch writes still reads as None."""
    from jdsl.testing import ScriptedModel
    from jdsl.text import parse_behavior

    tree = parse_behavior(
        "sel\n"
        "  seq\n"
        '    predict "request, student_id -> pick: int"\n'
        "  act other(student_id=student_id) -> out\n"
    ).bind(tools={"other": lambda student_id: "took over"})
    model = ScriptedModel("1")
    ctx = tree.run(model=model, student_id="s1", raise_errors=False)
    assert model.calls == [] and ctx.blackboard["out"] == "took over"
    ctx = tree.run(model=model, student_id="s1", request="r", raise_errors=False)
    assert len(model.calls) == 1 and ctx.blackboard["pick"] == 1
    branchy = parse_behavior(
        "seq\n"
        "  sel\n"
        "    seq\n"
        "      guard exists(flag)\n"
        "      act other(student_id=student_id) -> note\n"
        "    act other(student_id=student_id) -> out\n"
        '  predict "student_id, note -> pick: int"\n'
    ).bind(tools={"other": lambda student_id: "x"})
    ctx = branchy.run(model=model, student_id="s1", raise_errors=False)
    assert ctx.blackboard["pick"] == 1 and "- note: null" in model.calls[-1]["messages"][0].content
