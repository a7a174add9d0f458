"""Helpers for the flow tests: a scripted model, a fake clock and simple registered tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jdsl.interaction import RegisteredTool, ToolContext, ToolResult
from jdsl.providers.messages import ModelTurn, ToolCall, Usage
from jdsl.testing import ScriptedModel


class Scripted(ScriptedModel):
    """:class:`jdsl.testing.ScriptedModel` whose str turns are final answers with usage, and
    whose callable turns are called when their turn comes (to raise, say)."""

    def __init__(self, *turns: ModelTurn | str | Callable[[], ModelTurn]) -> None:
        super().__init__()
        self.script = [ModelTurn(text=t, usage=_USAGE) if isinstance(t, str) else t for t in turns]  # type: ignore[misc]

    def _answer(self, call: dict[str, Any]) -> ModelTurn:
        turn: Any = super()._answer(call)
        return turn() if callable(turn) else turn


_USAGE = Usage(input_tokens=3, output_tokens=4)


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
