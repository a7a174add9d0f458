"""The neutral message model every provider adapter speaks (docs/design.md §4).

A conversation is a list of :class:`Message`. An assistant message may carry
:class:`ToolCall` s; each tool result is a ``role="tool"`` message linked by ``tool_call_id``.
Vendor-native data that a replay needs (Anthropic thinking blocks, Gemini thought signatures)
rides in ``metadata`` and is passed back unchanged on the next request.

A model is any object with::

    converse(system: str, messages: Sequence[Message], tools: Sequence[ToolSpec] = (),
             model_id: str | None = None) -> ModelTurn

``generate(...)`` is the text of a ``converse`` without tools (:func:`generate_text`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "FinishReason",
    "GenerationSettings",
    "LanguageModel",
    "Message",
    "ModelTurn",
    "Role",
    "StreamingModel",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "as_messages",
    "as_turn",
    "cut_at_token_limit",
    "generate_text",
]

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal["stop", "length", "tool_call", "error", "cancelled", "content_filter"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolCall(_Frozen):
    """One tool call a model asked for.

    Attributes:
        id: the provider's call id (echoed back on the tool result).
        name: the host tool name.
        arguments: decoded JSON arguments.
        metadata: vendor-native data to send back unchanged (e.g. a Gemini thought signature).
    """

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)


class Message(_Frozen):
    """One message of a conversation.

    Attributes:
        role: "user", "assistant", "tool" (a tool result) or "system".
        content: the text (for tool results, the observation text).
        tool_calls: on assistant messages, the calls the model made.
        tool_call_id: on tool messages, the id of the call this answers.
        name: on tool messages, the tool's name (Gemini needs it).
        is_error: on tool messages, whether the observation reports a failure.
        metadata: vendor-native data (thinking blocks, signatures) to replay unchanged.
    """

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def user(cls, content: str) -> Message:
        return cls(role="user", content=content)

    @classmethod
    def assistant(
        cls, content: str = "", tool_calls: Sequence[ToolCall] = (), **kw: Any
    ) -> Message:
        return cls(role="assistant", content=content, tool_calls=tuple(tool_calls), **kw)

    @classmethod
    def tool(cls, call: ToolCall, content: str, *, is_error: bool = False) -> Message:
        return cls(
            role="tool", content=content, tool_call_id=call.id, name=call.name, is_error=is_error
        )


class Usage(_Frozen):
    """Token counts of one or more model calls. A count the provider did not give stays None.

    ``missing_turns`` counts the model calls summed in that reported no usage at all (see
    :meth:`sum`), so a partial sum says it is partial instead of passing for the whole.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cached_input_tokens: int | None = None
    reasoning_tokens: int | None = None
    missing_turns: int = 0

    def __add__(self, other: Usage) -> Usage:
        def add(a: int | None, b: int | None) -> int | None:
            return None if a is None and b is None else (a or 0) + (b or 0)

        counts = {k: add(getattr(self, k), getattr(other, k)) for k in _COUNTS}
        totals = (self.total, other.total)  # a side without total_tokens counts input + output
        counts["total_tokens"] = None if None in totals else sum(totals)  # type: ignore[arg-type]
        return Usage(**counts, missing_turns=self.missing_turns + other.missing_turns)

    @classmethod
    def sum(cls, usages: Sequence[Usage | None]) -> Usage | None:
        """The usage of several model calls; None when none reported any.

        Example:
            >>> Usage.sum([Usage(input_tokens=3, output_tokens=2), None]).missing_turns
            1
        """
        known = [u for u in usages if u is not None]
        if not known:
            return None
        total = known[0]
        for usage in known[1:]:
            total = total + usage
        missing = len(usages) - len(known)
        return total.model_copy(update={"missing_turns": total.missing_turns + missing})

    @property
    def total(self) -> int | None:
        """total_tokens, else input + output when either is known."""
        if self.total_tokens is not None:
            return self.total_tokens
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)


_COUNTS = ("input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens")


class ModelTurn(_Frozen):
    """What a model said in one call: text and/or tool calls.

    An empty ``tool_calls`` means a final answer.
    """

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    finish_reason: FinishReason | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    def as_message(self) -> Message:
        """The assistant message that records this turn in a conversation."""
        return Message.assistant(self.text, self.tool_calls, metadata=self.metadata)


class ToolSpec(_Frozen):
    """A tool as a model sees it: host name, description, JSON Schema of its arguments."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class GenerationSettings(_Frozen):
    """Sampling settings, validated. None leaves the provider's default."""

    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    max_tokens: int | None = Field(default=None, gt=0)
    stop: tuple[str, ...] = ()
    seed: int | None = None

    @field_validator("stop")
    @classmethod
    def _stop_nonempty(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(not s for s in value):
            raise ValueError("stop sequences must be non-empty strings")
        return value


@runtime_checkable
class LanguageModel(Protocol):
    """The model protocol: anything with ``converse`` is a model."""

    def converse(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        model_id: str | None = None,
    ) -> ModelTurn: ...


@runtime_checkable
class StreamingModel(LanguageModel, Protocol):
    """A model that can also stream: text deltas (str), then one final ModelTurn."""

    def stream(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        model_id: str | None = None,
    ) -> Iterator[str | ModelTurn]: ...


def as_messages(items: Sequence[Message | Mapping[str, Any]]) -> list[Message]:
    """Accept Message objects or plain dicts (``{"role": ..., "content": ...}``)."""
    return [m if isinstance(m, Message) else Message.model_validate(dict(m)) for m in items]


def generate_text(
    model: LanguageModel, system: str, messages: Sequence[Message], model_id: str | None = None
) -> str:
    """The text of one ``converse`` without tools."""
    return model.converse(system, messages, (), model_id).text


def as_turn(model: Any, turn: Any) -> ModelTurn:
    """What ``model.converse`` returned, as a :class:`ModelTurn` (a str is a text turn).

    Raises:
        ModelOutputError: ``converse`` returned anything else; the message names the model type.
    """
    if isinstance(turn, ModelTurn):
        return turn
    if isinstance(turn, str):
        return ModelTurn(text=turn)
    from jdsl.errors import ModelOutputError

    raise ModelOutputError(
        f"{type(model).__name__}.converse must return a ModelTurn (or a str), got "
        f"{type(turn).__name__} {turn!r:.60}; return jdsl.providers.ModelTurn(text=...)",
        raw="" if turn is None else repr(turn),
    )


def cut_at_token_limit(turn: ModelTurn | None) -> str | None:
    """What to say of a reply the model stopped at its token limit (``finish_reason``
    ``"length"``): that it was cut there, how many tokens it wrote when the provider said, and
    how to raise the limit. None for a reply that ended on its own (its text is the answer,
    parseable or not)."""
    if turn is None or turn.finish_reason != "length":
        return None
    written = turn.usage.output_tokens if turn.usage is not None else None
    count = f" after {written} tokens" if written else ""
    return (
        f"the model's reply was cut at its token limit{count} (finish_reason length), before "
        "the answer was complete: raise max_tokens (ProviderSettings(generation="
        "GenerationSettings(max_tokens=...)), or LocalModel(..., generation=...) for a local "
        "model, whose default is 256), or ask for a shorter answer"
    )
