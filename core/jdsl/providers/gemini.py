"""Gemini through the official ``google-genai`` SDK (extra ``gemini``).

Wire mapping (reference ditto.md §3):

- the assistant role becomes ``model``; system text goes to ``system_instruction``; consecutive
  contents with the same role are merged;
- assistant tool calls become ``functionCall{name, args}`` parts; tool results become
  ``functionResponse{name, response}`` parts, ``response`` being the result's JSON object or
  ``{"result": value}`` (``{"error": text}`` for a failed observation);
- a call ``id`` is sent back only when Gemini gave it (``ToolCall.metadata["gemini"]
  ["native_id"]``); calls without one get a fresh ``call_<hex>`` id that never goes on the wire;
- the native parts of a turn with thoughts or thought signatures are kept in
  ``metadata["gemini"]["parts"]`` and replayed verbatim to Gemini;
- finish reasons: STOP -> stop (tool_call when there are calls), MAX_TOKENS -> length,
  SAFETY / RECITATION / BLOCKLIST / PROHIBITED_CONTENT / SPII / IMAGE_* -> content_filter,
  anything else -> error; a stream must end with a finish reason;
- usage: input = prompt, output = candidates + thoughts, total = totalTokenCount,
  reasoning = thoughts, cached input = cachedContentTokenCount.

Keys: ``GEMINI_API_KEY``, else ``GOOGLE_API_KEY``. Retries: google-genai retries nothing by
default; ``max_retries`` becomes ``HttpRetryOptions(attempts=max_retries + 1)``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

from jdsl.errors import BadRequest
from jdsl.providers.base import Call, SDKModel
from jdsl.providers.errors import (
    incomplete_stream,
    malformed_response,
    parsing_response,
    require_sdk,
    response_data,
)
from jdsl.providers.messages import (
    FinishReason,
    Message,
    ModelTurn,
    ToolCall,
    Usage,
)

__all__ = ["GeminiModel", "to_gemini_contents"]

_FILTERED = ("SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_")


class GeminiModel(SDKModel):
    """Gemini models. Args as :class:`~jdsl.providers.base.SDKModel`.

    Example:
        >>> model = GeminiModel("gemini-2.5-flash", api_key="AIza...")  # doctest: +SKIP
    """

    provider = "gemini"
    key_env = "GEMINI_API_KEY"
    key_env_fallbacks = ("GOOGLE_API_KEY",)

    def _make_client(self) -> Any:
        genai = require_sdk("google.genai", "gemini")
        types = require_sdk("google.genai.types", "gemini")
        s = self.settings
        retry = types.HttpRetryOptions(attempts=s.max_retries + 1) if s.max_retries else None
        options = types.HttpOptions(
            base_url=s.base_url, timeout=int(s.timeout_s * 1000), retry_options=retry
        )
        return genai.Client(api_key=s.key(), http_options=options)

    def _config(self, call: Call) -> Any:
        system, messages, tools, _, _ = call
        types = require_sdk("google.genai.types", "gemini")
        g = self.settings.generation
        extra_system = [m.content for m in messages if m.role == "system" and m.content]
        instruction = "\n\n".join(([system] if system else []) + extra_system)
        declarations = [
            types.FunctionDeclaration(
                name=t.name, description=t.description, parameters_json_schema=t.parameters
            )
            for t in tools
        ]
        return types.GenerateContentConfig(
            system_instruction=instruction or None,
            tools=[types.Tool(function_declarations=declarations)] if declarations else None,
            temperature=g.temperature,
            top_p=g.top_p,
            max_output_tokens=g.max_tokens,
            stop_sequences=list(g.stop) or None,
            seed=g.seed,
            candidate_count=1,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        )

    def _converse(self, call: Call) -> ModelTurn:
        state = _TurnState()
        contents, config = to_gemini_contents(call.messages), self._config(call)
        response = self.client.models.generate_content(
            model=call.model, contents=contents, config=config
        )
        with parsing_response(self.provider):  # only the answer's reading is guarded
            state.apply(response_data(self.provider, response, required=None))
            if not state.answered:
                raise malformed_response(self.provider, "no candidates and no block reason")
            return state.turn()

    def _stream(self, call: Call) -> Iterator[str | ModelTurn]:
        state = _TurnState()
        contents, config = to_gemini_contents(call.messages), self._config(call)
        chunks = self.client.models.generate_content_stream(
            model=call.model, contents=contents, config=config
        )
        for chunk in chunks:
            with parsing_response(self.provider):  # only the answer's reading is guarded
                delta = state.apply(response_data(self.provider, chunk, required=None))
            if delta:
                yield delta
        if state.finish is None and not state.blocked:
            raise incomplete_stream(self.provider, "a finishReason")
        with parsing_response(self.provider):
            turn = state.turn()
        yield turn


def to_gemini_contents(messages: list[Message]) -> list[Any]:
    """google-genai ``Content`` objects; system messages are left to ``system_instruction``."""
    types = require_sdk("google.genai.types", "gemini")
    calls = {c.id: c for m in messages for c in m.tool_calls}
    contents: list[Any] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "model" if message.role == "assistant" else "user"
        parts = [types.Part.model_validate(p) for p in _parts(message, calls)]
        if not parts:
            continue
        if contents and contents[-1].role == role:
            contents[-1].parts.extend(parts)
        else:
            contents.append(types.Content(role=role, parts=parts))
    return contents


def _parts(message: Message, calls: Mapping[str, ToolCall]) -> list[dict[str, Any]]:
    if message.role == "tool":
        call = calls.get(message.tool_call_id or "")
        name = message.name or (call.name if call else None)
        if not name:
            raise BadRequest(
                f"tool result {message.tool_call_id!r} has no tool name; Gemini needs it: build "
                "it with Message.tool(call, content)",
                provider="gemini",
            )
        response: dict[str, Any] = {"name": name, "response": _response(message)}
        if call is not None and _native(call):
            response["id"] = call.id
        return [{"function_response": response}]
    if message.role == "assistant":
        native = message.metadata.get("gemini")
        if isinstance(native, Mapping) and native.get("parts"):
            return [dict(p) for p in native["parts"]]
    parts: list[dict[str, Any]] = [{"text": message.content}] if message.content else []
    for call in message.tool_calls:
        function_call: dict[str, Any] = {"name": call.name, "args": call.arguments}
        if _native(call):
            function_call["id"] = call.id
        parts.append({"function_call": function_call})
    return parts


def _native(call: ToolCall) -> bool:
    return bool(call.metadata.get("gemini", {}).get("native_id"))


def _response(message: Message) -> dict[str, Any]:
    if message.is_error:
        return {"error": message.content}
    try:
        value = json.loads(message.content)
    except json.JSONDecodeError:
        return {"result": message.content}
    return value if isinstance(value, dict) else {"result": value}


class _TurnState:
    """Folds GenerateContentResponse dicts (one, or a stream of chunks) into a ModelTurn."""

    def __init__(self) -> None:
        self.parts: list[dict[str, Any]] = []
        self.finish: str | None = None
        self.usage: Mapping[str, Any] | None = None
        self.blocked = False
        self.answered = False  # a candidate or a block reason was seen

    def apply(self, response: dict[str, Any]) -> str:
        """Fold one response in; returns its public (non-thought) text."""
        self.usage = response.get("usage_metadata") or self.usage
        if (response.get("prompt_feedback") or {}).get("block_reason"):
            self.blocked = True
        candidates = response.get("candidates") or []
        self.answered = self.answered or self.blocked or bool(candidates)
        if not candidates:
            return ""
        candidate = candidates[0]
        self.finish = candidate.get("finish_reason") or self.finish
        parts = (candidate.get("content") or {}).get("parts") or []
        self.parts.extend(parts)
        return "".join(p.get("text", "") for p in parts if not p.get("thought"))

    def turn(self) -> ModelTurn:
        text = "".join(p.get("text", "") for p in self.parts if not p.get("thought"))
        calls = tuple(_tool_call(p["function_call"]) for p in self.parts if "function_call" in p)
        keep = any(p.get("thought") or p.get("thought_signature") for p in self.parts)
        return ModelTurn(
            text=text,
            tool_calls=calls,
            usage=_usage(self.usage),
            finish_reason=self._finish(bool(calls)),
            metadata={"gemini": {"parts": self.parts}} if keep else {},
        )

    def _finish(self, has_calls: bool) -> FinishReason:
        if self.blocked and self.finish is None:
            return "content_filter"
        finish = self.finish or ""
        if finish == "STOP":
            return "tool_call" if has_calls else "stop"
        if finish == "MAX_TOKENS":
            return "length"
        return "content_filter" if finish.startswith(_FILTERED) else "error"


def _tool_call(raw: Mapping[str, Any]) -> ToolCall:
    native = bool(raw.get("id"))
    return ToolCall(
        id=raw["id"] if native else f"call_{uuid.uuid4().hex[:16]}",
        name=raw.get("name", ""),
        arguments=dict(raw.get("args") or {}),
        metadata={"gemini": {"native_id": True}} if native else {},
    )


def _usage(raw: Mapping[str, Any] | None) -> Usage | None:
    if not raw:
        return None
    candidates = raw.get("candidates_token_count")
    thoughts = raw.get("thoughts_token_count")
    known = [n for n in (candidates, thoughts) if isinstance(n, int)]
    return Usage(
        input_tokens=raw.get("prompt_token_count"),
        output_tokens=sum(known) if known else None,
        total_tokens=raw.get("total_token_count"),
        cached_input_tokens=raw.get("cached_content_token_count"),
        reasoning_tokens=thoughts,
    )
