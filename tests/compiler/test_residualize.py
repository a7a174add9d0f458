"""Residual signatures: typed outputs, heuristic wording, optional model wording, inputs."""

from __future__ import annotations

import pytest
from jdsl import ModelTurn, ToolCall, act, react, ref, root, seq
from jdsl.compiler import compile_behavior
from jdsl.compiler.events import as_records
from jdsl.compiler.residualize import HeuristicCompilerModel, LLMCompilerModel, infer_type
from jdsl.testing import ScriptedModel
from jdsl.trace import ListTraceSink, segment_episodes


def test_heuristic_wording() -> None:
    words = HeuristicCompilerModel().word_instruction
    assert words("request, orders -> selected_index: int", []) == (
        "Choose the selected index from request, orders. Answer with its 0-based index.")  # fmt: skip
    assert words("text -> intent", []).startswith("Classify the intent")
    assert words("-> is_ok: bool", []) == "Determine whether it is ok."
    assert words("ticket -> category, urgency", []) == (
        "Classify the category and the urgency from ticket.")  # fmt: skip


def test_a_model_only_words_instructions(retail_episodes) -> None:
    model = ScriptedModel('{"instruction": "Pick the order the customer means."}')
    result = compile_behavior(retail_episodes(2), name="r", model=model)
    predict = next(n for n in result.ir["root"]["child"]["children"] if n["kind"] == "predict")
    assert predict["instructions"] == "Pick the order the customer means."
    assert predict["signature"] == "request, orders -> selected_index: int"
    assert result.package.signatures["resolve_target"]["outputs"][0]["schema"] == {
        "type": "integer"
    }


@pytest.mark.parametrize("reply", ["no json here", '{"other": 1}', ""])
def test_bad_model_wording_falls_back_to_the_heuristic(reply: str) -> None:
    text = LLMCompilerModel(ScriptedModel(reply)).word_instruction("q -> answer", [])
    assert text == HeuristicCompilerModel().word_instruction("q -> answer", [])


def test_infer_type() -> None:
    assert [infer_type(v) for v in ([1, 2], [1, 2.5], [True], [{}], ["a"], [])] == [
        "int", "float", "bool", "dict", "str", "str"]  # fmt: skip


def test_unknown_episode_forms_are_refused() -> None:
    with pytest.raises(TypeError, match="cannot read int as an episode"):
        as_records(3)


def lookup_ticket(ticket_id: str) -> dict:
    """The ticket's text."""
    return {"ticket_id": ticket_id, "text": "checkout is down"}


def route(category: str, urgency: str) -> str:
    """The queue a ticket goes to."""
    return f"{category}/{urgency}"


def test_a_multi_output_react_becomes_one_typed_residual_predict() -> None:
    sig = "ticket -> category, urgency: Literal['low', 'high']"
    sink = ListTraceSink()
    for i, answer in enumerate(["outage/high", "billing/low", "outage/high"]):
        category, urgency = answer.split("/")
        tree = root("triage").do(seq(
            react(sig, tools=[lookup_ticket], id="triage"),
            act(route, category=ref("category"), urgency=ref("urgency")) >> "queue",
        ))  # fmt: skip
        ask = ToolCall(id="c1", name="lookup_ticket", arguments={"ticket_id": f"T{i}"})
        reply = f'{{"category": "{category}", "urgency": "{urgency}"}}'
        tree.run(model=ScriptedModel(ModelTurn(tool_calls=(ask,)), reply), trace_sink=sink,
                 episode_id=f"ep_{i}", ticket=f"T{i}: help")  # fmt: skip
    result = compile_behavior(segment_episodes(sink.events), name="triage")
    record = result.package.signatures["triage"]
    assert record["signature"] == 'ticket -> category, urgency: Literal["low", "high"]'
    assert record["origin"] == "react" and record["tools"] == ["lookup_ticket"]
    assert [o["schema"] for o in record["outputs"]] == [
        {"type": "string"}, {"enum": ["low", "high"], "type": "string"}]  # fmt: skip
    assert record["recorded_outputs"][0] == {"output": {"category": "outage", "urgency": "high"}}
    assert record["instructions"] == "Classify the category and the urgency from ticket."
    assert result.verification.ok


def test_authored_instructions_survive_compile_without_an_id() -> None:
    """Keyed by the node (its effective id: author id, else structural), not by ``id=``."""
    from jdsl.text import parse_behavior

    def lookup(student_id: str) -> dict:
        return {"id": student_id, "loans": [{"book": "Dune"}, {"book": "Emma"}]}

    def remind(book: str) -> str:
        return f"reminded {book}"

    tree = parse_behavior(
        "seq\n  act lookup(student_id=student_id) -> student\n"
        '  predict "request, student -> loan_index: int"\n'
        "    | Which loan does the librarian mean? Answer with its 0-based index.\n"
        "  act remind(book=student.loans[$loan_index].book) -> sent\n"
    ).bind(tools=[lookup, remind])
    sink = ListTraceSink()
    for i in range(3):
        tree.run(model=ScriptedModel(str(i % 2)), trace_sink=sink, student_id=f"s{i}",
                 request="the second one" if i % 2 else "the first")  # fmt: skip
    result = compile_behavior(segment_episodes(sink.events), name="remind")
    (predict,) = [n for n in _nodes(result.ir["root"]) if n["kind"] == "predict"]
    assert predict["instructions"] == (
        "Which loan does the librarian mean? Answer with its 0-based index.")  # fmt: skip


def _nodes(node: dict) -> list[dict]:
    from jdsl.ir.nodes import child_slots

    return [node] + [n for child in child_slots(node) for n in _nodes(child)]
