"""The demo's task family: tau-bench retail tasks that cancel one pending order.

A task belongs to the family when its gold actions are exactly one ``cancel_pending_order``
(88 tasks: train 81, dev 5, test 2). The split is fixed: the train tasks sorted by task id, the
first :data:`COMPILE_SIZE` of them are the compile part; every other task of the family (the
remaining train tasks, all dev and test tasks) is held out.

Run inputs come from the task, as a deterministic stand-in for tau-bench's user simulator:
``request`` is the instruction, and the identity the simulated user would give is parsed from
it (``first_name``/``last_name`` from "Your name is ...", ``zip`` from "your zip code is ...",
``email`` from "your email is ..."). An instruction that states no single such value gives none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jdsl.envs.tau_retail import RetailTask, load_tasks

__all__ = [
    "COMPILE_SIZE",
    "FAMILY",
    "FamilySplit",
    "cancel_tasks",
    "identity_form",
    "split_family",
    "task_inputs",
    "task_name",
]

FAMILY = "retail.cancel_pending_order"
COMPILE_SIZE = 24
_NAME = re.compile(r"\bYour? name is ([A-Z][a-z]+) ([A-Z][a-z]+)\b")
_ZIP = re.compile(r"\byour zip code is (\d{5})\b")
_EMAIL = re.compile(r"\byour email is ([\w.+-]+@[\w-]+(?:\.[\w-]+)+)")


def task_name(task: RetailTask) -> str:
    """``<split>/<task id>``, e.g. ``train/4`` (task ids restart in every split)."""
    return f"{task.split}/{task.task_id}"


def cancel_tasks() -> list[RetailTask]:
    """Every retail task whose gold actions are exactly one ``cancel_pending_order``."""
    return [
        task
        for task in load_tasks()
        if [action.name for action in task.actions] == ["cancel_pending_order"]
    ]


@dataclass(frozen=True)
class FamilySplit:
    """The fixed split: ``compile`` (teacher runs) and ``held_out`` (package runs)."""

    compile: tuple[RetailTask, ...]
    held_out: tuple[RetailTask, ...]


def split_family(
    tasks: Sequence[RetailTask] | None = None, size: int = COMPILE_SIZE
) -> FamilySplit:
    """The first ``size`` train tasks by task id compile; all others are held out.

    Held-out tasks are ordered train (by id), then dev, then test.
    """
    tasks = cancel_tasks() if tasks is None else list(tasks)
    order = {"train": 0, "dev": 1, "test": 2}
    ranked = sorted(tasks, key=lambda task: (order[task.split], task.task_id))
    train = [task for task in ranked if task.split == "train"]
    chosen = {task_name(task) for task in train[:size]}
    return FamilySplit(
        compile=tuple(train[:size]),
        held_out=tuple(task for task in ranked if task_name(task) not in chosen),
    )


def task_inputs(task: RetailTask) -> dict[str, Any]:
    """The run inputs of ``task``: ``request`` plus the identity fields its instruction states.

    Example:
        >>> from jdsl.envs.tau_retail import RetailTask
        >>> task = RetailTask(split="dev", task_id=0, user_id="u",
        ...     instruction="Your name is Ava Moore and your zip code is 02134. Cancel #W1.")
        >>> sorted(task_inputs(task))
        ['first_name', 'last_name', 'request', 'zip']
    """
    text = task.instruction
    inputs: dict[str, Any] = {"request": text}
    if name := _NAME.search(text):
        inputs["first_name"], inputs["last_name"] = name.group(1), name.group(2)
    if found := _ZIP.search(text):
        inputs["zip"] = found.group(1)
    if found := _EMAIL.search(text):
        inputs["email"] = found.group(1)
    return inputs


def identity_form(inputs: dict[str, Any]) -> str:
    """``"email"``, ``"name+zip"`` or ``"none"``: how the simulated user identifies."""
    if "email" in inputs:
        return "email"
    if {"first_name", "last_name", "zip"} <= inputs.keys():
        return "name+zip"
    return "none"
