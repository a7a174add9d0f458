"""The demo family, its fixed split, the run inputs, the teacher behavior and the offline teacher."""

from __future__ import annotations

from pathlib import Path

import pytest
from jdsl.demo.family import (
    cancel_tasks,
    identity_form,
    split_family,
    task_inputs,
    task_name,
)
from jdsl.demo.teacher import (
    GoldChoice,
    TeacherModelError,
    offline_teacher,
    teacher_file,
    teacher_text,
    teacher_tree,
)
from jdsl.envs.tau_retail import RetailEnv, load_tasks, reward, tree_tools
from jdsl.errors import JdslError
from jdsl.providers.messages import Message, ToolSpec
from jdsl.text import format_behavior, parse_behavior

REPO = Path(__file__).parents[2]


def test_family_and_split_are_fixed() -> None:
    tasks = cancel_tasks()
    assert len(tasks) == 88
    split = split_family()
    assert len(split.compile) == 24 and len(split.held_out) == 64
    assert {t.split for t in split.compile} == {"train"}
    assert [t.task_id for t in split.compile] == sorted(t.task_id for t in split.compile)
    names = [task_name(t) for t in split.compile + split.held_out]
    assert len(set(names)) == 88
    assert max(t.task_id for t in split.compile) < min(
        t.task_id for t in split.held_out if t.split == "train"
    )


def test_inputs_come_from_the_instruction() -> None:
    by_name = {task_name(t): t for t in cancel_tasks()}
    zip_inputs = task_inputs(by_name["train/4"])
    assert zip_inputs == {
        "request": by_name["train/4"].instruction,
        "first_name": "Juan",
        "last_name": "Rossi",
        "zip": "77209",
    }
    assert task_inputs(by_name["train/40"])["email"] == "olivia.sanchez1894@example.com"
    assert identity_form(task_inputs(by_name["test/88"])) == "email"  # "You name is ..." typo
    assert identity_form(task_inputs(by_name["dev/6"])) == "none"  # four candidate emails


def test_teacher_behavior_is_canonical_text() -> None:
    tree = teacher_tree()
    assert parse_behavior(format_behavior(tree)).model_dump() == tree.model_dump()
    assert 'predict "request, user -> order_index: int"' in teacher_text()


@pytest.mark.parametrize("name", ["train/4", "train/40"])
def test_teacher_solves_both_identity_forms(name: str) -> None:
    task = {task_name(t): t for t in cancel_tasks()}[name]
    env = RetailEnv()
    model = offline_teacher(GoldChoice.of(task))
    ctx = teacher_tree().run(model=model, tools=tree_tools(env), **task_inputs(task))
    assert ctx.status.value == "success"
    assert reward(env, task) == 1.0
    assert len(model.calls) == 2  # exactly the two residual decisions


def _ask(model, prompt: str, tools=()):  # type: ignore[no-untyped-def]
    return model.converse("", [Message.user(prompt)], tools).text


def test_offline_teacher_answers_only_residual_signatures() -> None:
    model = offline_teacher(GoldChoice("#W2", "ordered by mistake"))
    user = '{"orders": ["#W1", "#W2"]}'
    ask_index = f"- request: cancel\n- user: {user}\nProvide order_index (an integer) as ..."
    assert _ask(model, ask_index) == "1"
    assert _ask(model, "- order: {}\nProvide reason (one of ...) as ...") == "ordered by mistake"
    with pytest.raises(TeacherModelError, match="summary"):
        _ask(model, "- request: x\nProvide summary (a string) as your entire response")
    with pytest.raises(TeacherModelError, match="no customer record"):
        _ask(model, "- request: x\nProvide order_index (an integer) as ...")
    with pytest.raises(TeacherModelError, match="not among"):
        _ask(model, '- user: {"orders": ["#W9"]}\nProvide order_index (an integer) as ...')
    with pytest.raises(TeacherModelError, match="tool"):
        _ask(model, ask_index, [ToolSpec(name="t", description="", parameters={})])
    with pytest.raises(TeacherModelError, match="2 messages"):
        model.converse("", [Message.user("a"), Message.user("b")])


def test_gold_choice_refuses_tasks_outside_the_family() -> None:
    other = next(
        t
        for t in load_tasks("train")
        if not any(a.name == "cancel_pending_order" for a in t.actions)
    )
    with pytest.raises(JdslError, match="cancels no order"):
        GoldChoice.of(other)


def test_teacher_without_a_usable_identity_fails_before_any_write() -> None:
    task = {task_name(t): t for t in cancel_tasks()}["dev/6"]  # a name, four emails, no zip
    inputs = task_inputs(task)
    assert identity_form(inputs) == "none" and "email" not in inputs and "zip" not in inputs
    env = RetailEnv()
    model = offline_teacher(GoldChoice.of(task))
    ctx = teacher_tree().run(model=model, tools=tree_tools(env), raise_errors=False, **inputs)
    assert ctx.status.value == "failure"
    assert model.calls == [] and reward(env, task) == 0.0


def test_the_teacher_file_printed_is_a_path_the_user_can_open(monkeypatch, tmp_path) -> None:
    """The demo printed ``jdsl/examples/retail_cancel.behavior``, a path that opens from
    nowhere: the file is at ``core/jdsl/examples/`` in the repository (or wherever jdsl is
    installed). Inside the folder that holds it: relative to there; elsewhere: the full path."""
    monkeypatch.chdir(REPO)
    assert teacher_file() == "core/jdsl/examples/retail_cancel.behavior"
    assert (REPO / teacher_file()).read_text(encoding="utf-8") == teacher_text()
    monkeypatch.chdir(tmp_path)
    shown = Path(teacher_file())
    assert shown.is_absolute() and shown.read_text(encoding="utf-8") == teacher_text()
