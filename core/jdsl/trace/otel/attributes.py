"""Span names and attributes for jdsl trace events (pure data; no OpenTelemetry import).

The names follow the OpenTelemetry GenAI semantic conventions (``gen_ai.*``, semantic
conventions v1.37+, "Development" status) and, beside them, OpenInference's
(``openinference.span.kind``, ``llm.*``, ``tool.*``, ``input.value``), which Arize Phoenix
reads to draw agent, LLM and tool spans:

=========================  ===============================  ====================================
span                       name                             GenAI attributes
=========================  ===============================  ====================================
episode                    ``invoke_agent {skill}``         ``gen_ai.operation.name``
                                                            ``invoke_agent``, ``gen_ai.agent.name``,
                                                            ``gen_ai.conversation.id``
tree node                  the node's label                 ``jdsl.node.*`` (id, type, status)
model call                 ``chat {model}``                 ``gen_ai.operation.name`` ``chat``,
                                                            ``gen_ai.provider.name``,
                                                            ``gen_ai.request.model``,
                                                            ``gen_ai.usage.input_tokens`` /
                                                            ``output_tokens``,
                                                            ``gen_ai.response.finish_reasons``
tool call                  ``execute_tool {name}``          ``gen_ai.tool.name``,
                                                            ``gen_ai.tool.call.id``
=========================  ===============================  ====================================

Content (messages, system instructions, tool arguments and results, blackboard values) is
recorded only when content capture is on, as the conventions ask: ``gen_ai.input.messages``,
``gen_ai.output.messages``, ``gen_ai.system_instructions``, ``gen_ai.tool.call.arguments``,
``gen_ai.tool.call.result`` (JSON text), and OpenInference's flattened ``llm.input_messages.N``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "Attributes",
    "agent_attributes",
    "json_text",
    "model_end_attributes",
    "model_start_attributes",
    "node_attributes",
    "node_span_name",
    "provider_name",
    "request_model",
    "tool_attributes",
    "tool_end_attributes",
]

Attributes = dict[str, Any]
"""OpenTelemetry attribute values: str, bool, int, float or a homogeneous list of them."""

_PROVIDERS = (
    ("claude", "anthropic"),
    ("anthropic:", "anthropic"),
    ("gpt-", "openai"),
    ("chatgpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("openai:", "openai"),
    ("gemini", "gcp.gemini"),
    ("deepseek", "deepseek"),
)


def request_model(model_id: str | None) -> str:
    """The model name a span shows: a vendor qualifier and a base URL dropped.

    ``"openai-compatible:llama3.1@http://127.0.0.1:11434/v1"`` -> ``"llama3.1"``; None ->
    ``"unknown"``.
    """
    if not model_id:
        return "unknown"
    head, sep, rest = model_id.partition(":")
    name = rest if sep and head.replace("-", "").isalpha() and rest else model_id
    return name.rsplit("@http", 1)[0] or model_id


def provider_name(model_id: str | None) -> str:
    """``gen_ai.provider.name`` of a jdsl model id (the well-known values of the conventions:
    ``anthropic``, ``openai``, ``gcp.gemini``, ``deepseek``), else the id's vendor qualifier,
    else ``"unknown"``."""
    if not model_id:
        return "unknown"
    for prefix, provider in _PROVIDERS:
        if model_id.startswith(prefix):
            return provider
    head, sep, _ = model_id.partition(":")
    return head if sep else "unknown"


def json_text(value: Any) -> str:
    """Canonical JSON text of a value (what a content attribute holds)."""
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def agent_attributes(payload: Mapping[str, Any], episode_id: str, capture: bool) -> Attributes:
    """Attributes of an episode's ``invoke_agent`` span from ``episode.started``."""
    skill = str(payload.get("skill") or "behavior")
    attrs: Attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": skill,
        "gen_ai.conversation.id": episode_id,
        "openinference.span.kind": "AGENT",
        "session.id": episode_id,
        "jdsl.episode.id": episode_id,
    }
    model_id = payload.get("model_id")
    if model_id:
        attrs["gen_ai.request.model"] = request_model(model_id)
        attrs["gen_ai.provider.name"] = provider_name(model_id)
    for key in ("task_id", "task_family"):
        if payload.get(key) is not None:
            attrs[f"jdsl.{key}"] = str(payload[key])
    if capture:
        attrs["input.value"] = json_text(payload.get("inputs") or {})
        attrs["input.mime_type"] = "application/json"
    return attrs


def node_span_name(payload: Mapping[str, Any]) -> str:
    """A tree node's span name: its label (``act(lookup) -> customer``, ``seq``), else its
    kind."""
    return str(payload.get("label") or payload.get("type") or "node")


def node_attributes(payload: Mapping[str, Any]) -> Attributes:
    """Attributes of a tree node's span from ``node.enter``."""
    return {
        "jdsl.node.id": str(payload.get("node_id")),
        "jdsl.node.type": str(payload.get("type")),
        "jdsl.node.label": str(payload.get("label") or ""),
        "openinference.span.kind": "CHAIN",
    }


def _parts(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A jdsl message as GenAI message parts (text, tool_call, tool_call_response)."""
    parts: list[dict[str, Any]] = []
    if message.get("role") == "tool":
        parts.append(
            {
                "type": "tool_call_response",
                "id": message.get("tool_call_id"),
                "response": message.get("content"),
            }
        )
    elif message.get("content"):
        parts.append({"type": "text", "content": message.get("content")})
    for call in message.get("tool_calls") or []:
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": call.get("name"),
                "arguments": call.get("arguments"),
            }
        )
    return parts


def _openinference_messages(prefix: str, messages: Sequence[Mapping[str, Any]]) -> Attributes:
    attrs: Attributes = {}
    for i, message in enumerate(messages):
        base = f"{prefix}.{i}.message"
        attrs[f"{base}.role"] = str(message.get("role"))
        if message.get("content"):
            attrs[f"{base}.content"] = str(message.get("content"))
        if message.get("tool_call_id"):
            attrs[f"{base}.tool_call_id"] = str(message["tool_call_id"])
        for j, call in enumerate(message.get("tool_calls") or []):
            call_base = f"{base}.tool_calls.{j}.tool_call"
            attrs[f"{call_base}.id"] = str(call.get("id"))
            attrs[f"{call_base}.function.name"] = str(call.get("name"))
            attrs[f"{call_base}.function.arguments"] = json_text(call.get("arguments") or {})
    return attrs


def model_start_attributes(
    payload: Mapping[str, Any], capture: bool, messages: list[Any] | None = None
) -> Attributes:
    """Attributes of a ``chat {model}`` span from ``model.requested``.

    ``messages``: the request's whole message list (:func:`jdsl.trace.request_messages`);
    None takes the payload's ``messages``, which for a request continuing an earlier one are
    only the new ones: the span then says ``jdsl.input.messages.partial``.
    """
    model_id = payload.get("model_id")
    attrs: Attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider_name(model_id),
        "gen_ai.request.model": request_model(model_id),
        "jdsl.node.id": str(payload.get("node_id")),
        "jdsl.model.kind": str(payload.get("kind") or ""),
        "openinference.span.kind": "LLM",
        "llm.model_name": request_model(model_id),
    }
    if not capture:
        return attrs
    if messages is None:
        recorded = payload.get("messages")
        messages = list(recorded) if isinstance(recorded, list) else []
        if payload.get("messages_from") is not None:
            attrs["jdsl.input.messages.partial"] = True
    system = payload.get("system")
    if system:
        attrs["gen_ai.system_instructions"] = json_text([{"type": "text", "content": system}])
    attrs["gen_ai.input.messages"] = json_text(
        [{"role": m.get("role"), "parts": _parts(m)} for m in messages]
    )
    history = ([{"role": "system", "content": system}] if system else []) + messages
    attrs.update(_openinference_messages("llm.input_messages", history))
    attrs["input.value"] = json_text(messages)
    attrs["input.mime_type"] = "application/json"
    return attrs


def model_end_attributes(payload: Mapping[str, Any], capture: bool) -> Attributes:
    """Attributes added when ``model.responded`` closes the span."""
    attrs: Attributes = {}
    if payload.get("model_id"):
        attrs["gen_ai.response.model"] = request_model(payload["model_id"])
    usage = payload.get("usage") or {}
    for ours, semconv, openinference in (
        ("input_tokens", "gen_ai.usage.input_tokens", "llm.token_count.prompt"),
        ("output_tokens", "gen_ai.usage.output_tokens", "llm.token_count.completion"),
        ("total_tokens", None, "llm.token_count.total"),
    ):
        if isinstance(usage.get(ours), int):
            if semconv:
                attrs[semconv] = usage[ours]
            attrs[openinference] = usage[ours]
    if payload.get("finish_reason"):
        attrs["gen_ai.response.finish_reasons"] = [str(payload["finish_reason"])]
    if capture:
        answer = {
            "role": "assistant",
            "content": payload.get("raw_output") or "",
            "tool_calls": payload.get("tool_calls") or [],
        }
        output: dict[str, Any] = {"role": "assistant", "parts": _parts(answer)}
        if payload.get("finish_reason"):
            output["finish_reason"] = payload["finish_reason"]
        attrs["gen_ai.output.messages"] = json_text([output])
        attrs.update(_openinference_messages("llm.output_messages", [answer]))
        attrs["output.value"] = str(payload.get("raw_output") or "")
    return attrs


def tool_attributes(payload: Mapping[str, Any], capture: bool) -> Attributes:
    """Attributes of an ``execute_tool {name}`` span from ``tool.call.started``."""
    tool = payload.get("tool") or {}
    name = str(tool.get("host_name") or tool.get("logical_id") or "tool")
    attrs: Attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.type": "function",
        "jdsl.node.id": str(payload.get("node_id")),
        "openinference.span.kind": "TOOL",
        "tool.name": name,
    }
    if payload.get("call_id"):
        attrs["gen_ai.tool.call.id"] = str(payload["call_id"])
    if tool.get("logical_id"):
        attrs["jdsl.tool.logical_id"] = str(tool["logical_id"])
    if payload.get("store"):
        attrs["jdsl.store"] = str(payload["store"])
    if capture:
        arguments = json_text(payload.get("arguments") or {})
        attrs["gen_ai.tool.call.arguments"] = arguments
        attrs["input.value"] = arguments
        attrs["input.mime_type"] = "application/json"
    return attrs


def tool_end_attributes(payload: Mapping[str, Any], failed: bool, capture: bool) -> Attributes:
    """Attributes added when ``tool.call.completed`` / ``tool.call.failed`` closes the span."""
    attrs: Attributes = {}
    if failed:
        attrs["error.type"] = str(payload.get("error_type") or "tool_error")
    if capture:
        result = payload.get("error") if failed else payload.get("result")
        text = result if isinstance(result, str) else json_text(result)
        attrs["gen_ai.tool.call.result"] = text
        attrs["output.value"] = text
    return attrs
