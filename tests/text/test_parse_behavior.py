"""parse_behavior / format_behavior on node objects: binding by name, accepted inputs."""

from __future__ import annotations

import pytest
from jdsl.errors import BehaviorSyntaxError, BindingError
from jdsl.ir import to_ir
from jdsl.testing import ScriptedModel
from jdsl.text import format_behavior, parse_behavior
from jdsl.tree import Root, Status

TEXT = """\
sel
  seq
    guard_call is_big(n=n)
    act shout(word="big") -> said
  act shout(word="small") -> said
"""


def shout(word: str) -> str:
    return word.upper()


def test_parse_behavior_binds_tools_and_predicates_by_name() -> None:
    tree = parse_behavior(TEXT, tools=[shout], predicates={"is_big": lambda n: n > 10}, name="demo")
    assert isinstance(tree, Root) and tree.name == "demo"
    assert tree.run(n=50).blackboard["said"] == "BIG"
    assert tree.run(n=5).blackboard["said"] == "SMALL"


def test_bind_later_on_the_root() -> None:
    tree = parse_behavior(TEXT)
    with pytest.raises(BindingError):
        tree.run(n=1)
    tree.bind(tools={"shout": shout}, predicates={"is_big": lambda n: False})
    ctx = tree.run(n=1)
    assert ctx.blackboard["said"] == "SMALL"
    assert ctx.status in (Status.SUCCESS, "success")


def test_a_guard_from_text_runs_over_the_blackboard() -> None:
    tree = parse_behavior(
        'seq\n  guard orders[$i].status == "pending"\n  act shout(word=orders[$i].id) -> said\n',
        tools=[shout],
    )
    orders = [{"id": "a", "status": "shipped"}, {"id": "b", "status": "pending"}]
    assert tree.run(orders=orders, i=1).blackboard["said"] == "B"
    assert "said" not in tree.run(orders=orders, i=0).blackboard


def test_predict_from_text_uses_its_instructions() -> None:
    tree = parse_behavior('predict "question -> answer"\n  | Answer in one word.\n')
    model = ScriptedModel("yes")
    assert tree.run(model=model, question="ok?").blackboard["answer"] == "yes"
    prompt = model.calls[0]["messages"][0]
    assert "Answer in one word." in str(prompt)


def test_format_behavior_accepts_a_root_an_ir_document_or_a_node() -> None:
    tree = parse_behavior(TEXT, name="demo")
    text = format_behavior(tree)
    assert text.startswith("root demo\n  sel\n")
    assert format_behavior(to_ir(tree)) == text
    assert format_behavior(to_ir(tree)["root"]) == text
    assert format_behavior(tree.child) == TEXT


def test_syntax_errors_surface_from_parse_behavior() -> None:
    with pytest.raises(BehaviorSyntaxError) as info:
        parse_behavior("seq\n  act shout(word=$w)\n")
    assert (info.value.line, info.value.col) == (2, 18)
