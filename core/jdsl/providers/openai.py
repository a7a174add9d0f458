"""OpenAI chat completions through the official ``openai`` SDK (extra ``openai``).

Also any OpenAI-compatible server (DeepSeek, vLLM, Ollama, LM Studio): pass ``base_url``.
Wire mapping (reference ditto.md §3):

- the system prompt is a leading ``system`` message; assistant tool calls become
  ``tool_calls[{id, type: "function", function{name, arguments: JSON text}}]``; a tool-call
  turn without text has content ``null`` on api.openai.com (the API reference's shape) and
  ``""`` on other servers (llama-cpp-python's server answers HTTP 500 to ``null``; llama.cpp's
  own server, vLLM and OpenAI accept ``""``); ``tool_call_content=`` overrides; tool results
  become ``{role: "tool", tool_call_id, content}``;
- the token limit goes in ``max_completion_tokens`` for api.openai.com and in ``max_tokens``
  for other servers (``max_tokens_field=`` overrides);
- finish reasons: stop -> stop (tool_call when the message has calls), length -> length,
  tool_calls / function_call -> tool_call, content_filter -> content_filter, else error;
- usage: prompt / completion / total tokens, ``prompt_tokens_details.cached_tokens``,
  ``completion_tokens_details.reasoning_tokens``;
- a ``reasoning_content`` (DeepSeek) is kept in ``metadata["openai"]`` and not sent back;
- streams ask for ``stream_options.include_usage`` (``stream_usage=False`` for servers that
  reject it), assemble tool calls by index, and must end with a finish reason.

Keys: with no ``api_key`` and no ``base_url`` (or an api.openai.com one) the key is
``OPENAI_API_KEY``; with another ``base_url`` the env key is *not* sent there, and a placeholder
``"EMPTY"`` is used (local servers ignore it); pass ``api_key=`` when the server needs one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from jdsl.errors import ModelOutputError
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

__all__ = ["OPENAI_HOST", "OpenAIModel", "to_openai_messages"]

OPENAI_HOST = "api.openai.com"
_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_call",
    "function_call": "tool_call",
    "content_filter": "content_filter",
}
TokenField = Literal["max_completion_tokens", "max_tokens"]


class OpenAIModel(SDKModel):
    """OpenAI and OpenAI-compatible chat models. Args as :class:`~jdsl.providers.base.SDKModel`, plus:

    Args:
        max_tokens_field: which request field carries ``GenerationSettings.max_tokens``.
        stream_usage: send ``stream_options.include_usage`` when streaming.
        structured_outputs: a Predict asks with ``response_format`` ``json_schema`` (for servers
            that constrain decoding to a schema: llama.cpp, vLLM, Ollama); default False.
        provider_name: the name used in errors ("openai", "deepseek", "openai-compatible").
        key_env: the env var named in authentication errors.
        tool_call_content: the ``content`` of an assistant tool-call turn without text:
            ``None`` (JSON null) or ``""``; default null on api.openai.com, ``""`` elsewhere.

    Example:
        >>> local = OpenAIModel("llama3.1", base_url="http://127.0.0.1:11434/v1")  # doctest: +SKIP
    """

    provider = "openai"
    takes_schema = True
    key_env = "OPENAI_API_KEY"

    def __init__(
        self,
        model_id: str | None = None,
        *,
        max_tokens_field: TokenField | None = None,
        stream_usage: bool = True,
        provider_name: str | None = None,
        key_env: str | None = None,
        tool_call_content: str | None | Literal["default"] = "default",
        structured_outputs: bool | None = None,
        **kwargs: Any,
    ) -> None:
        if provider_name:
            self.provider = provider_name
        if key_env:
            self.key_env = key_env
        super().__init__(model_id, **kwargs)
        official = self.settings.base_url is None or OPENAI_HOST in self.settings.base_url
        self.max_tokens_field: TokenField = max_tokens_field or (
            "max_completion_tokens" if official else "max_tokens"
        )
        self.stream_usage = stream_usage
        if structured_outputs is not None:
            self.structured_outputs = structured_outputs
        self.tool_call_content: str | None = (
            (None if official else "") if tool_call_content == "default" else tool_call_content
        )

    def _default_key(self, base_url: str | None) -> str | None:
        if (
            base_url is not None
            and OPENAI_HOST not in base_url
            and self.key_env == "OPENAI_API_KEY"
        ):
            return "EMPTY"
        return super()._default_key(base_url)

    def _make_client(self) -> Any:
        sdk = require_sdk("openai", "openai")
        s = self.settings
        return sdk.OpenAI(
            api_key=s.key(), base_url=s.base_url, max_retries=s.max_retries, timeout=s.timeout_s
        )

    def _request(self, call: Call) -> dict[str, Any]:
        system, messages, tools, model, response_schema = call
        body: dict[str, Any] = {
            "model": model,
            "messages": to_openai_messages(
                system, messages, tool_call_content=self.tool_call_content
            ),
        }
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                    },
                }
                for t in tools
            ]
        if response_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": dict(response_schema)},
            }
        body.update(self._generation(self.settings.generation))
        return body

    def _generation(self, g: GenerationSettings) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "temperature": g.temperature,
            "top_p": g.top_p,
            "seed": g.seed,
            self.max_tokens_field: g.max_tokens,
            "stop": list(g.stop) or None,
        }
        return {k: v for k, v in fields.items() if v is not None}

    def _converse(self, call: Call) -> ModelTurn:
        response = self.client.chat.completions.create(**self._request(call))
        with parsing_response(self.provider):
            data = response_data(self.provider, response, required="choices")
            return self._turn_of(data, call.model)

    def _turn_of(self, data: dict[str, Any], model: str) -> ModelTurn:
        choices = data["choices"]
        if not choices:
            raise ModelOutputError(f"{self.provider} returned no choices for model {model!r}")
        message = choices[0].get("message") or {}
        calls = [
            (
                c.get("id", ""),
                c.get("function", {}).get("name", ""),
                c.get("function", {}).get("arguments", ""),
            )
            for c in message.get("tool_calls") or []
        ]
        return _turn(
            message.get("content") or "",
            calls,
            choices[0].get("finish_reason"),
            data.get("usage"),
            message.get("reasoning_content"),
        )

    def _stream(self, call: Call) -> Iterator[str | ModelTurn]:
        request = self._request(call)
        if self.stream_usage:
            request["stream_options"] = {"include_usage": True}
        state = _StreamState()
        # Only the reading of the answer is guarded: a TypeError from the SDK call itself is
        # a local bug or a bad argument, not a retryable server error.
        with self.client.chat.completions.create(**request, stream=True) as chunks:
            for chunk in chunks:
                with parsing_response(self.provider):
                    delta = state.apply(response_data(self.provider, chunk, required=None))
                if delta:
                    yield delta
            if state.finish_reason is None:
                raise incomplete_stream(self.provider, "a finish_reason")
            with parsing_response(self.provider):
                turn = state.turn()
        yield turn


def to_openai_messages(
    system: str, messages: list[Message], *, tool_call_content: str | None = None
) -> list[dict[str, Any]]:
    """Chat-completions messages: a leading system message, tool calls, tool results.

    ``tool_call_content`` is the content of a tool-call turn without text (null or ``""``).
    """
    wire: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for m in messages:
        if m.role == "tool":
            wire.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content})
        elif m.role == "assistant" and m.tool_calls:
            wire.append(
                {
                    "role": "assistant",
                    "content": m.content or tool_call_content,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                        }
                        for c in m.tool_calls
                    ],
                }
            )
        else:
            wire.append({"role": m.role, "content": m.content})
    return wire


def _arguments(name: str, text: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise ModelOutputError(
            f"the model's arguments for tool {name!r} are not valid JSON", raw=text
        ) from None
    if not isinstance(value, dict):
        raise ModelOutputError(
            f"the model's arguments for tool {name!r} are not an object", raw=text
        )
    return value


def _turn(
    text: str,
    calls: list[tuple[str, str, str]],
    finish: str | None,
    usage: Mapping[str, Any] | None,
    reasoning: str | None,
) -> ModelTurn:
    tool_calls = tuple(ToolCall(id=i, name=n, arguments=_arguments(n, a)) for i, n, a in calls)
    reason: FinishReason = _FINISH.get(finish or "", "error")
    if tool_calls and reason == "stop":
        reason = "tool_call"
    return ModelTurn(
        text=text,
        tool_calls=tool_calls,
        usage=_usage(usage),
        finish_reason=reason,
        metadata={"openai": {"reasoning_content": reasoning}} if reasoning else {},
    )


def _usage(raw: Mapping[str, Any] | None) -> Usage | None:
    if not raw:
        return None
    prompt_details = raw.get("prompt_tokens_details") or {}
    completion_details = raw.get("completion_tokens_details") or {}
    return Usage(
        input_tokens=raw.get("prompt_tokens"),
        output_tokens=raw.get("completion_tokens"),
        total_tokens=raw.get("total_tokens"),
        cached_input_tokens=prompt_details.get("cached_tokens"),
        reasoning_tokens=completion_details.get("reasoning_tokens"),
    )


class _StreamState:
    """Accumulates chat-completion chunks: text, tool calls by index, finish reason, usage."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, list[str]] = {}
        self.finish_reason: str | None = None
        self.usage: Mapping[str, Any] | None = None

    def apply(self, chunk: dict[str, Any]) -> str:
        """Fold one chunk in; returns its public text delta ("" when none)."""
        if chunk.get("usage"):
            self.usage = chunk["usage"]
        out = ""
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            out += delta.get("content") or ""
            self.reasoning.append(delta.get("reasoning_content") or "")
            for call in delta.get("tool_calls") or []:
                slot = self.calls.setdefault(call.get("index", 0), ["", "", ""])
                function = call.get("function") or {}
                slot[0] = slot[0] or call.get("id") or ""
                slot[1] += function.get("name") or ""
                slot[2] += function.get("arguments") or ""
            self.finish_reason = choice.get("finish_reason") or self.finish_reason
        self.text.append(out)
        return out

    def turn(self) -> ModelTurn:
        calls = [(c[0], c[1], c[2]) for _, c in sorted(self.calls.items())]
        reasoning = "".join(self.reasoning) or None
        return _turn("".join(self.text), calls, self.finish_reason, self.usage, reasoning)
