"""The demo's teacher: the shipped behavior and an offline stand-in for a teacher LLM.

The teacher behavior is ``core/jdsl/examples/retail_cancel.behavior`` (:func:`teacher_file`). Its two model decisions (the
residual signatures ``request, user -> order_index: int`` and ``request, order -> reason``) are
what a teacher LLM would answer. Offline, :func:`offline_teacher` answers them instead: it reads
the prompt the predict leaf rendered (the inputs it shows) and the task's gold choice (the gold
order id and the gold reason of the task), and answers exactly what a correct teacher would. It
is **not** a language model and it answers nothing else: any other signature, a request with
tools, or a prompt without the data it needs raises :class:`TeacherModelError`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from jdsl.envs.tau_retail import RetailTask
from jdsl.errors import JdslError
from jdsl.providers.messages import Message, ToolSpec
from jdsl.testing import FunctionModel
from jdsl.text import parse_behavior
from jdsl.tree import Root

__all__ = [
    "OFFLINE_TEACHER_ID",
    "RESIDUAL_OUTPUTS",
    "TEACHER_BEHAVIOR",
    "GoldChoice",
    "TeacherModelError",
    "offline_teacher",
    "prompt_fields",
    "teacher_text",
    "teacher_tree",
]

TEACHER_BEHAVIOR = "retail_cancel.behavior"
OFFLINE_TEACHER_ID = "offline-teacher (an offline stand-in for a teacher LLM)"
RESIDUAL_OUTPUTS = ("order_index", "reason")
_OUTPUT = re.compile(r"^Provide (\w+) \(", re.MULTILINE)
_INPUT = re.compile(r"^- (\w+): (.*)$", re.MULTILINE)


class TeacherModelError(JdslError):
    """The offline teacher was asked something it does not answer.

    Attributes:
        asked: what was asked (an output name, or a description of the request).
    """

    def __init__(self, asked: str, detail: str) -> None:
        self.asked = asked
        super().__init__(
            f"the offline teacher cannot answer {asked!r}: {detail}; it answers only the "
            f"residual signatures with outputs {list(RESIDUAL_OUTPUTS)} (use --model ID for a "
            "real model)"
        )


def teacher_text() -> str:
    """The teacher behavior text, as shipped in ``jdsl/examples``."""
    path = resources.files("jdsl").joinpath("examples", TEACHER_BEHAVIOR)
    return path.read_text(encoding="utf-8")


def teacher_file() -> str:
    """The teacher behavior's file as a path the user can open: relative to the current
    directory when it is inside it (``core/jdsl/examples/retail_cancel.behavior`` from a
    checkout), else where jdsl is installed (absolute)."""
    path = Path(str(resources.files("jdsl").joinpath("examples", TEACHER_BEHAVIOR))).resolve()
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def teacher_tree() -> Root:
    """The teacher behavior parsed into a tree (tools are bound per run)."""
    return parse_behavior(teacher_text())


@dataclass(frozen=True)
class GoldChoice:
    """What a correct teacher chooses for one task: the order to cancel and the reason."""

    order_id: str
    reason: str

    @classmethod
    def of(cls, task: RetailTask) -> GoldChoice:
        """The gold ``cancel_pending_order`` arguments of a task of the family.

        Raises:
            JdslError: the task's gold actions have no ``cancel_pending_order``.
        """
        for action in task.actions:
            if action.name == "cancel_pending_order":
                return cls(str(action.arguments["order_id"]), str(action.arguments["reason"]))
        raise JdslError(
            f"retail task {task.split}/{task.task_id} cancels no order; the offline teacher "
            "serves only the cancel_pending_order family"
        )


def prompt_fields(prompt: str) -> tuple[list[str], dict[str, str]]:
    """The output names a predict prompt asks for and its ``- name: value`` input lines."""
    return _OUTPUT.findall(prompt), dict(_INPUT.findall(prompt))


def _orders_shown(inputs: Mapping[str, str]) -> list[str] | None:
    for text in inputs.values():
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("orders"), list):
            return [str(order) for order in value["orders"]]
    return None


def _answer(choice: GoldChoice, prompt: str) -> str:
    outputs, inputs = prompt_fields(prompt)
    if len(outputs) != 1 or outputs[0] not in RESIDUAL_OUTPUTS:
        raise TeacherModelError(", ".join(outputs) or prompt[:80], "not a residual signature")
    if outputs[0] == "reason":
        return choice.reason
    orders = _orders_shown(inputs)
    if orders is None:
        raise TeacherModelError("order_index", "the prompt shows no customer record with orders")
    if choice.order_id not in orders:
        raise TeacherModelError(
            "order_index", f"the gold order {choice.order_id} is not among {orders}"
        )
    return str(orders.index(choice.order_id))


def offline_teacher(choice: GoldChoice) -> FunctionModel:
    """A model answering the residual signatures for one task from its prompt and gold choice.

    Args:
        choice: the task's gold order and reason (:meth:`GoldChoice.of`).

    Returns:
        A :class:`~jdsl.testing.FunctionModel`: ``order_index`` is the position of the gold
        order in the ``orders`` of the customer record the prompt shows; ``reason`` is the gold
        reason. Its ``calls`` record every prompt.

    Raises:
        TeacherModelError: (from ``converse``) tools offered, several messages, or a prompt
            asking for anything but one residual output.
    """

    def answer(
        system: str, messages: list[Message], tools: list[ToolSpec], model_id: str | None
    ) -> str:
        if tools:
            raise TeacherModelError("a tool-using turn", f"tools {[t.name for t in tools]}")
        if len(messages) != 1 or messages[0].role != "user":
            raise TeacherModelError("a conversation", f"{len(messages)} messages")
        return _answer(choice, str(messages[0].content or ""))

    return FunctionModel(answer)
