"""Helpers for the flow tests: a scripted model, a fake clock and simple registered tools."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from jdsl.interaction import RegisteredTool, ToolContext, ToolResult
from jdsl.providers.messages import Message, ModelTurn, ToolCall, ToolSpec, Usage


class Scripted:
    """Answers each converse() with the next scripted turn (a str is a final answer)."""

    def __init__(self, *turns: ModelTurn | str | Callable[[], ModelTurn]) -> None:
        self.turns = list(turns)
        self.calls: list[dict[str, Any]] = []

    def converse(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        model_id: str | None = None,
    ) -> ModelTurn:
        self.calls.append(
            {"system": system, "messages": list(messages), "tools": [t.name for t in tools]}
        )
        turn = self.turns[min(len(self.calls) - 1, len(self.turns) - 1)]
        if callable(turn):
            turn = turn()
        return (
            ModelTurn(text=turn, usage=Usage(input_tokens=3, output_tokens=4))
            if isinstance(turn, str)
            else turn
        )


def ask(
    *calls: tuple[str, str, dict], usage: Usage | None = Usage(input_tokens=3, output_tokens=4)
) -> ModelTurn:
    return ModelTurn(
        tool_calls=tuple(ToolCall(id=i, name=n, arguments=a) for i, n, a in calls),
        usage=usage,
        finish_reason="tool_call",
    )


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def registered(
    name: str, fn: Callable[[dict[str, Any]], ToolResult], log: list | None = None
) -> RegisteredTool:
    def execute(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if log is not None:
            log.append((name, args))
        return fn(args)

    schema = {"type": "object", "properties": {"x": {"type": "integer"}}}
    return RegisteredTool(name, f"tool {name}", schema, execute)
