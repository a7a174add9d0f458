"""The static check: types across the blackboard, names, reads before writes, unreachable children.

Each test builds a tree wrong on purpose and shows the check names the nodes involved; a run
of a tree with an error stops before its first tick.
"""

from __future__ import annotations

from typing import Literal

import jdsl
import pytest
from jdsl import (
    BehaviorCheckError,
    ListTraceSink,
    act,
    check,
    optional,
    predict,
    ref,
    root,
    sel,
    seq,
)
from jdsl.testing import ScriptedModel
from jdsl.text import parse_behavior

TICKET = """
seq
  predict "ticket -> urgency" id=rate
  act escalate(level=urgency) -> receipt
"""


def escalate(level: int) -> str:
    return f"escalated at {level}"


def describe(level: str) -> str:
    return level


def test_predict_output_that_does_not_fit_the_tool_parameter_is_an_error() -> None:
    tree = parse_behavior(TICKET).bind(tools=[escalate])
    report = tree.check()
    assert not report.ok
    (problem,) = report.errors
    assert problem.code == "type-mismatch"
    assert problem.node_id == "root/sequence.0/action.1"
    assert problem.related == "rate"
    assert 'predict "ticket -> urgency" [rate]' in problem.message
    assert "act escalate(level=urgency)" in problem.message
    assert "integer" in problem.message and "string" in problem.message
    assert "urgency: int" in problem.hint


def test_a_run_stops_before_the_first_tick_and_never_calls_the_tool() -> None:
    calls: list[object] = []

    def escalate(level: int) -> str:
        calls.append(level)
        return "done"

    tree = parse_behavior(TICKET).bind(tools=[escalate])
    model = ScriptedModel("high")
    with pytest.raises(BehaviorCheckError) as caught:
        tree.run(model=model, ticket="my order is late")
    assert calls == [] and model.calls == []
    assert "rate" in str(caught.value) and "escalate" in str(caught.value)
    assert caught.value.report.errors[0].code == "type-mismatch"
    sink = ListTraceSink()
    ctx = tree.run(model=model, ticket="x", trace_sink=sink, raise_errors=False)
    assert isinstance(ctx.error, BehaviorCheckError)
    assert sink.events[-1].payload["status"] == "error"


@pytest.mark.parametrize(
    ("signature", "annotation", "fits"),
    [
        ("t -> urgency: int", int, True),
        ("t -> urgency: int", float, True),
        ("t -> urgency: float", int, False),
        ('t -> urgency: Literal["low", "high"]', str, True),
        ('t -> urgency: Literal["low", "high"]', Literal["low", "high", "mid"], True),
        ("t -> urgency", Literal["low", "high"], True),  # a warning: only the values differ
        ("t -> urgency: list[int]", list[int], True),
        ("t -> urgency: dict", int, False),
        ("t -> urgency", int | None, False),
        ("t -> urgency: int", int | None, True),
    ],
)
def test_type_rules(signature: str, annotation: object, fits: bool) -> None:
    def consume(level):  # type: ignore[no-untyped-def]
        return level

    consume.__annotations__ = {"level": annotation}
    tree = root("t").do(seq(predict(signature), act(consume, level=ref("urgency"))))
    assert tree.check().ok is fits


def test_a_str_into_a_literal_parameter_is_a_warning_naming_the_literal() -> None:
    def cancel(reason: Literal["no longer needed", "ordered by mistake"]) -> str:
        return reason

    tree = root("t").do(seq(predict("request -> reason"), act(cancel, reason=ref("reason"))))
    report = tree.check()
    (warning,) = report.warnings
    assert report.ok and warning.code == "type-mismatch"
    assert "not only those" in warning.message
    assert 'reason: Literal["no longer needed", "ordered by mistake"]' in warning.hint


def test_unannotated_tools_and_deeper_paths_are_not_guessed() -> None:
    def loose(level):  # type: ignore[no-untyped-def]
        return level

    tree = root("t").do(
        seq(predict("t -> u"), act(loose, level=ref("u")), act(escalate, level=ref("u.level")))
    )
    assert tree.check().ok


def test_tool_return_annotation_feeds_the_check() -> None:
    tree = root("t").do(
        seq(act(describe, level=ref("x")) >> "text", act(escalate, level=ref("text")))
    )
    (problem,) = tree.check().errors
    assert "act describe(level=x) -> text" in problem.message
    assert "convert the value" in problem.hint


def test_declared_tool_schema_wins_over_annotations() -> None:
    declared = jdsl.tool(
        describe, parameters={"type": "object", "properties": {"level": {"type": "integer"}}}
    )
    tree = root("t").do(seq(predict("t -> u"), act(declared, level=ref("u"))))
    assert tree.check().errors[0].code == "type-mismatch"


def test_unbound_names_are_errors() -> None:
    tree = parse_behavior("seq\n  act lookup(email=email) -> c\n  guard_call ok(x=c)")
    codes = [(p.code, p.message) for p in tree.check().errors]
    assert codes == [
        ("unbound", "tool 'lookup' is not bound"),
        ("unbound", "predicate 'ok' is not bound"),
    ]


def test_reads_before_any_writer_are_warnings_and_inputs_are_listed() -> None:
    tree = parse_behavior("""
seq
  act show(x=order) -> shown
  guard exists(maybe) and exists(order)
  act load(email=email) -> order
  predict "order, request -> pick: int"
  act show(x=order.items[$pick]) -> shown
""").bind(tools={"show": describe, "load": describe})
    report = tree.check()
    assert report.ok
    (warning,) = report.warnings
    assert warning.code == "read-before-write" and warning.node_id == "root/sequence.0/action.0"
    assert "reads order before any node writes it" in warning.message
    assert report.inputs == ("email", "request")
    assert tree.check(inputs=["order", "email", "request"]).warnings == []


def test_unreachable_children_are_warnings() -> None:
    tree = root("t").do(
        sel(optional(act(describe, level=ref("a"))), act(describe, level=ref("b")) >> "never")
    )
    (warning,) = tree.check().warnings
    assert warning.code == "unreachable"
    assert warning.node_id == "root/selector.0/action.1"
    assert "always succeeds" in warning.message and warning.related == "root/selector.0/optional.0"
    always_fails = parse_behavior("seq\n  guard 1 == 2\n  act a()").bind(tools={"a": describe})
    assert [p.code for p in always_fails.check().warnings] == ["unreachable"]


def test_an_id_two_nodes_carry_is_an_error_and_the_run_stops_before_it_starts() -> None:
    calls: list[int] = []

    def note(n: int) -> int:
        calls.append(n)
        return n

    tree = root("t").do(seq(act(note, n=1, id="step"), act(note, n=2, id="step")))
    (error,) = tree.check().errors
    assert error.code == "duplicate-id" and error.node_id == "root/sequence.0/action.1"
    assert "id 'step' is already the id of the node at root/sequence.0/action.0" in error.message
    assert error.related == "root/sequence.0/action.0" and "rename one" in error.hint
    with pytest.raises(BehaviorCheckError, match="duplicate-id"):
        tree.run()
    assert calls == []


def test_jdsl_check_takes_a_tree_and_still_builds_check_leaves() -> None:
    tree = parse_behavior(TICKET)
    report = check(tree, tools=[escalate])
    assert report.errors[0].code == "type-mismatch"
    assert jdsl.check(tree.child).inputs == ("ticket",)
    leaf = check("status", "pending")
    assert leaf.kind == "check" and leaf.equals == "pending"
    with pytest.raises(TypeError, match="needs the value"):
        check("status")  # type: ignore[call-overload]


def test_report_text_names_everything() -> None:
    text = str(parse_behavior(TICKET).bind(tools=[escalate]).check())
    assert text.startswith("1 error, 0 warnings")
    assert "error type-mismatch at root/sequence.0/action.1" in text
    assert "fix: declare the type" in text


def test_runs_in_a_loop_check_once_and_a_rebound_tool_is_checked_again(monkeypatch) -> None:
    import jdsl.tree.root as root_module

    calls: list[int] = []
    real = root_module.check_tree
    monkeypatch.setattr(root_module, "check_tree", lambda *a, **k: calls.append(1) or real(*a, **k))
    tree = parse_behavior(TICKET).bind(tools={"escalate": describe})
    model = ScriptedModel("high")
    for _ in range(3):
        assert tree.run(model=model, ticket="late").status.value == "success"
    assert len(calls) == 1
    tree.bind(tools={"escalate": escalate}, replace=True)
    with pytest.raises(BehaviorCheckError):
        tree.run(model=model, ticket="late")
    tree.run(model=model, tools={"escalate": describe}, ticket="late")  # run(tools=) too
    assert len(calls) == 3


def test_a_node_edited_in_place_is_checked_again() -> None:
    tree = parse_behavior(TICKET).bind(tools={"escalate": describe, "strict": escalate})
    model = ScriptedModel("high")
    assert tree.run(model=model, ticket="late").status.value == "success"
    action = next(n for n in tree.walk() if n.kind == "action")
    action.tool = "strict"  # same node object, now feeding an int parameter a str
    with pytest.raises(BehaviorCheckError):
        tree.run(model=model, ticket="late")


def test_a_check_of_an_int_too_long_to_print_runs_traced_and_untraced(tmp_path) -> None:
    from jdsl.interaction.tools import tool
    from jdsl.trace import JsonlTraceSink, read_events, verify_chain

    huge = 10**5000
    make = tool(lambda: huge, name="make")
    tree = root("huge").do(seq(act(make) >> "n", check("n", equals=huge)))
    assert tree.run().status.value == "success"
    assert tree.run(n=1, trace_sink=ListTraceSink()).status.value == "success"
    assert tree.label and "<int>" in tree.child.children[1].label
    with JsonlTraceSink(tmp_path / "t.jsonl") as sink:
        tree.run(trace_sink=sink)
    assert verify_chain(read_events(tmp_path / "t.jsonl")) == []
    failing = root("no").do(check("n", equals=huge))
    ctx = failing.run(n=1)
    assert ctx.failure is not None and "<int>" in ctx.failure.reason


# -- run inputs known from the call site, misspelt keys (issue 27) ------------------------------
REMIND = """
seq
  act get_student(student_id=student_id) -> student
  predict "request, student -> loan_index: int"
  act send_reminder(book=student.loans[$loan_index].book) -> sent
"""


def _remind(body: str = REMIND):
    def get_student(student_id: str) -> dict:
        return {"id": student_id, "loans": [{"book": "Dune"}]}

    def send_reminder(book: str) -> str:
        return book

    return parse_behavior(body).bind(tools=[get_student, send_reminder])


def test_a_missing_run_input_is_an_error_naming_it_and_the_fix() -> None:
    report = _remind().check(inputs=["student_id"])
    (problem,) = report.errors
    assert problem.code == "missing-input" and problem.node_id == "root/sequence.0/predict.1"
    assert "reads request" in problem.message and "(student_id)" in problem.message
    assert "give request as a run input" in problem.hint
    model = ScriptedModel("0")
    with pytest.raises(BehaviorCheckError, match="reads request"):
        _remind().run(model=model, student_id="s1")
    assert model.calls == []  # no prompt with "request: null"
    assert _remind().run(model=model, student_id="s1", request="Dune").status.value == "success"


def test_an_input_tested_with_exists_is_optional() -> None:
    tree = parse_behavior("sel\n  seq\n    guard exists(email)\n    act f(x=email)\n  act g()")
    assert not [p for p in tree.check(inputs=[]).problems if p.code == "missing-input"]


def test_a_misspelt_key_says_did_you_mean() -> None:
    body = REMIND.replace("student.loans[$loan_index]", "studnet.loans[0]")
    unknown = _remind(body).check()
    (warning,) = [p for p in unknown.warnings if p.code == "unknown-key"]
    assert "reads studnet" in warning.message and "did you mean student?" in warning.hint
    (error,) = _remind(body).check(inputs=["student_id", "request"]).errors
    assert error.code == "missing-input" and "did you mean student?" in error.hint


def test_an_index_out_of_range_does_not_ask_for_the_key_as_an_input() -> None:
    ctx = _remind().run(model=ScriptedModel("5"), student_id="s1", request="x",
                        raise_errors=False)  # fmt: skip
    text = str(ctx.error)
    assert "student.loans has no [5]" in text and "$loan_index = 5" in text
    assert "run(student=" not in text and "Seed it" not in text
