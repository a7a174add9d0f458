"""Public test doubles: scripted, function-backed and replaying models (no network).

``ReplayModel`` (answers from a recorded trace) lives in :mod:`jdsl.providers.replay`;
``ReplayTools`` (a tool binding serving a recorded episode's results back, comparing every call)
and ``execute`` (run a tree on a recorded episode, return the first divergence) live in
:mod:`jdsl.compiler.replay` and are re-exported here.

A double made with ``structured_outputs=True`` is given the JSON schema a Predict asks such a
model for (:func:`jdsl.tree.predict.response_schema`), and records it in its call as
``response_schema``.

Example:
    >>> model = ScriptedModel("1")
    >>> model.converse("", [Message.user("pick one")]).text
    '1'
    >>> model.calls[0]["messages"][0].content
    'pick one'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jdsl.compiler.replay import ReplayTools, execute
from jdsl.providers.messages import Message, ModelTurn, ToolSpec
from jdsl.providers.replay import ReplayDivergence, ReplayModel

__all__ = [
    "FunctionModel",
    "ReplayDivergence",
    "ReplayModel",
    "ReplayTools",
    "ScriptedModel",
    "execute",
]

Reply = str | ModelTurn


def _turn(reply: Reply) -> ModelTurn:
    if isinstance(reply, ModelTurn):
        return reply
    if isinstance(reply, str):
        return ModelTurn(text=reply, finish_reason="stop")
    raise TypeError(f"a scripted reply is a str or a ModelTurn, got {type(reply).__name__}")


class _Recording:
    """Records every call as ``{system, messages, tools, model_id}`` in ``.calls`` (and its
    ``response_schema``, when one was given)."""

    def __init__(self, *, structured_outputs: bool = False) -> None:
        self.calls: list[dict[str, Any]] = []
        self.structured_outputs = structured_outputs

    def converse(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        model_id: str | None = None,
        *,
        response_schema: Mapping[str, Any] | None = None,
    ) -> ModelTurn:
        """Record the call in :attr:`calls`, then answer it.

        Raises:
            TypeError: a ``response_schema`` given to a double made without
                ``structured_outputs=True`` (as an adapter that takes none refuses it).
        """
        if response_schema is not None and not self.structured_outputs:
            raise TypeError(
                f"{type(self).__name__} does not take a response_schema; make it with "
                "structured_outputs=True"
            )
        call: dict[str, Any] = {
            "system": system,
            "messages": list(messages),
            "tools": list(tools),
            "model_id": model_id,
        }
        if response_schema is not None:
            call["response_schema"] = response_schema
        self.calls.append(call)
        return self._answer(call)

    def _answer(self, call: dict[str, Any]) -> ModelTurn:  # pragma: no cover - abstract
        """The turn for ``call`` (just recorded, the last of :attr:`calls`)."""
        raise NotImplementedError

    def generate(
        self, system: str, messages: Sequence[Message], model_id: str | None = None
    ) -> str:
        """The text of a ``converse`` without tools."""
        return self.converse(system, messages, (), model_id).text


class ScriptedModel(_Recording):
    """Answers scripted replies in order; the last one repeats.

    Args:
        *replies: each a str (a text turn) or a :class:`ModelTurn` (tool calls, usage).
        turns: more replies, appended after ``replies`` (e.g. turns that carry usage).
        structured_outputs: take a Predict's ``response_schema``, as a ``local:`` model does.

    Attributes:
        calls: every call, ``{"system", "messages", "tools", "model_id"}``, plus
            ``"response_schema"`` when one was given.
    """

    def __init__(
        self,
        *replies: Reply,
        turns: Sequence[Reply] | None = None,
        structured_outputs: bool = False,
    ) -> None:
        super().__init__(structured_outputs=structured_outputs)
        script = [*replies, *(turns or ())]
        self.script: list[ModelTurn] = [_turn(r) for r in script] or [_turn("")]

    def _answer(self, call: dict[str, Any]) -> ModelTurn:
        return self.script[min(len(self.calls) - 1, len(self.script) - 1)]


class FunctionModel(_Recording):
    """A model backed by ``fn(system, messages, tools, model_id) -> str | ModelTurn``.

    Args:
        fn: answers each call.
        structured_outputs: take a Predict's ``response_schema`` (recorded, not passed to fn).

    Attributes:
        calls: every call, ``{"system", "messages", "tools", "model_id"}``, plus
            ``"response_schema"`` when one was given.
    """

    def __init__(
        self,
        fn: Callable[[str, list[Message], list[ToolSpec], str | None], Reply],
        *,
        structured_outputs: bool = False,
    ) -> None:
        super().__init__(structured_outputs=structured_outputs)
        self.fn = fn

    def _answer(self, call: dict[str, Any]) -> ModelTurn:
        messages, tools = list(call["messages"]), list(call["tools"])  # the fn's own lists
        return _turn(self.fn(call["system"], messages, tools, call["model_id"]))
