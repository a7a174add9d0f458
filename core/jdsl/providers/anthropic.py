"""The Anthropic messages API through the official ``anthropic`` SDK (extra ``anthropic``).

Wire mapping (reference ditto.md §3):

- system messages are hoisted into the top-level ``system``; consecutive messages with the same
  role are merged (tool results become user-side ``tool_result`` blocks, placed first);
- assistant tool calls become ``tool_use{id, name, input}`` blocks;
- an assistant message whose ``metadata["anthropic"]["content"]`` holds the native blocks (a turn
  that had thinking blocks) is replayed verbatim, so signed thinking survives multi-turn use;
- ``max_tokens`` defaults to 4096; ``seed`` is not supported and is rejected when the model is
  created (:class:`jdsl.errors.BadRequest`);
- stop reasons: end_turn / stop_sequence -> stop, max_tokens -> length, tool_use -> tool_call,
  refusal -> content_filter, pause_turn -> stop, anything else -> error;
- usage: input = input + cache creation + cache read, cached input = cache read, total only when
  input and output are both known.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from jdsl.errors import BadRequest
from jdsl.providers.base import Call, SDKModel
from jdsl.providers.errors import (
    incomplete_stream,
    parsing_response,
    require_sdk,
    response_data,
)
from jdsl.providers.messages import (
    FinishReason,
    GenerationSettings,
    Message,
    ModelTurn,
    ToolCall,
    Usage,
)

__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicModel", "to_anthropic_messages"]

DEFAULT_MAX_TOKENS = 4096
_STOP: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_call",
    "refusal": "content_filter",
}
_THINKING = ("thinking", "redacted_thinking")


class AnthropicModel(SDKModel):
    """Claude models over the messages API. See :class:`jdsl.providers.base.SDKModel` for args.

    Example:
        >>> model = AnthropicModel("claude-sonnet-4-5", api_key="sk-ant-...")  # doctest: +SKIP
        >>> model.converse("Be brief.", [Message.user("Hi")]).text  # doctest: +SKIP
    """

    provider = "anthropic"
    key_env = "ANTHROPIC_API_KEY"

    def _make_client(self) -> Any:
        sdk = require_sdk("anthropic", "anthropic")
        s = self.settings
        return sdk.Anthropic(
            api_key=s.key(), base_url=s.base_url, max_retries=s.max_retries, timeout=s.timeout_s
        )

    def _check_generation(self, generation: GenerationSettings) -> None:
        if generation.seed is not None:
            raise BadRequest(
                "Anthropic does not support a sampling seed; remove GenerationSettings.seed",
                provider=self.provider,
            )

    def _request(self, call: Call) -> dict[str, Any]:
        system, messages, tools, model, _ = call
        hoisted, wire = to_anthropic_messages(system, messages)
        g = self.settings.generation
        body: dict[str, Any] = {
            "model": model,
            "messages": wire,
            "max_tokens": g.max_tokens or DEFAULT_MAX_TOKENS,
        }
        if hoisted:
            body["system"] = hoisted
        if tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in tools
            ]
        optional = {"temperature": g.temperature, "top_p": g.top_p}
        body.update({k: v for k, v in optional.items() if v is not None})
        if g.stop:
            body["stop_sequences"] = list(g.stop)
        return body

    def _converse(self, call: Call) -> ModelTurn:
        response = self.client.messages.create(**self._request(call))
        with parsing_response(self.provider):
            data = response_data(self.provider, response, required="content")
            return _turn(data["content"], data.get("stop_reason"), data.get("usage"))

    def _stream(self, call: Call) -> Iterator[str | ModelTurn]:
        request = self._request(call)
        state = _StreamState()
        # Only the reading of the answer is guarded (a TypeError from the call is a local bug).
        with self.client.messages.create(**request, stream=True) as events:
            for event in events:
                with parsing_response(self.provider):
                    delta = state.apply(response_data(self.provider, event, required=None))
                if delta:
                    yield delta
                if state.stopped:
                    break
            with parsing_response(self.provider):
                turn = state.turn()
        yield turn


def to_anthropic_messages(system: str, messages: list[Message]) -> tuple[str, list[dict[str, Any]]]:
    """(system text, wire messages): system hoisted, same roles merged, tool_result first."""
    systems = [system] if system else []
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            systems.append(message.content)
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": role, "content": blocks})
    for item in wire:
        if item["role"] == "user":
            item["content"].sort(key=lambda b: b.get("type") != "tool_result")
    return "\n\n".join(s for s in systems if s), wire


def _blocks(message: Message) -> list[dict[str, Any]]:
    if message.role == "tool":
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id,
            "content": message.content,
        }
        if message.is_error:
            block["is_error"] = True
        return [block]
    if message.role == "assistant":
        native = message.metadata.get("anthropic")
        if isinstance(native, Mapping) and native.get("content"):
            return [dict(b) for b in native["content"]]
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        blocks.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
        )
    return blocks


def _turn(
    blocks: list[dict[str, Any]], stop_reason: str | None, usage: Mapping[str, Any] | None
) -> ModelTurn:
    text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    calls = tuple(
        ToolCall(id=b["id"], name=b["name"], arguments=dict(b.get("input") or {}))
        for b in blocks
        if b.get("type") == "tool_use"
    )
    keep = any(b.get("type") in _THINKING for b in blocks)
    return ModelTurn(
        text=text,
        tool_calls=calls,
        usage=_usage(usage),
        finish_reason=_STOP.get(stop_reason or "", "error"),
        metadata={"anthropic": {"content": blocks}} if keep else {},
    )


def _usage(raw: Mapping[str, Any] | None) -> Usage | None:
    if not raw:
        return None
    parts = [
        raw.get(k)
        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    ]
    known = [p for p in parts if isinstance(p, int)]
    input_tokens = sum(known) if known else None
    output = raw.get("output_tokens")
    total = input_tokens + output if input_tokens is not None and output is not None else None
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output,
        total_tokens=total,
        cached_input_tokens=raw.get("cache_read_input_tokens"),
    )


class _StreamState:
    """Accumulates Anthropic stream events into content blocks, usage and a stop reason."""

    def __init__(self) -> None:
        self.blocks: dict[int, dict[str, Any]] = {}
        self.partial_json: dict[int, list[str]] = {}
        self.open: set[int] = set()
        self.usage: dict[str, Any] = {}
        self.stop_reason: str | None = None
        self.stopped = False

    def apply(self, event: dict[str, Any]) -> str:
        """Fold one event in; returns the public text delta it carried ("" when none)."""
        kind = event.get("type")
        if kind == "message_start":
            self.usage.update(event.get("message", {}).get("usage") or {})
        elif kind == "content_block_start":
            index = event["index"]
            self.blocks[index] = dict(event["content_block"])
            self.open.add(index)
        elif kind == "content_block_delta":
            return self._delta(event["index"], event.get("delta", {}))
        elif kind == "content_block_stop":
            self._close(event["index"])
        elif kind == "message_delta":
            self.stop_reason = event.get("delta", {}).get("stop_reason") or self.stop_reason
            self.usage.update(
                {k: v for k, v in (event.get("usage") or {}).items() if v is not None}
            )
        elif kind == "message_stop":
            self.stopped = True
        return ""

    def _delta(self, index: int, delta: dict[str, Any]) -> str:
        block = self.blocks[index]
        kind = delta.get("type")
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta.get("text", "")
            return str(delta.get("text", ""))
        if kind == "input_json_delta":
            self.partial_json.setdefault(index, []).append(delta.get("partial_json", ""))
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
        elif kind == "signature_delta":
            block["signature"] = block.get("signature", "") + delta.get("signature", "")
        return ""

    def _close(self, index: int) -> None:
        self.open.discard(index)
        block = self.blocks[index]
        if block.get("type") == "tool_use":
            text = "".join(self.partial_json.pop(index, []))
            block["input"] = json.loads(text) if text.strip() else dict(block.get("input") or {})

    def turn(self) -> ModelTurn:
        if not self.stopped:
            raise incomplete_stream("anthropic", "message_stop")
        if self.open:
            raise incomplete_stream("anthropic", f"content block {min(self.open)} was closed")
        blocks = [self.blocks[i] for i in sorted(self.blocks)]
        return _turn(blocks, self.stop_reason, self.usage)
