"""The chat messages an LLM span records, in the chat-completions shape the importers share.

Three encodings are read (the first one present wins):

* OpenInference (``openinference-instrumentation-*``, Phoenix): flattened attributes
  ``llm.input_messages.{i}.message.role`` / ``.content`` / ``.contents.{k}.message_content.text``
  / ``.tool_calls.{j}.tool_call.{id,function.name,function.arguments}`` / ``.tool_call_id``,
  and ``llm.output_messages.{i}.message.*``; tools in ``llm.tools.{i}.tool.json_schema``;
* OpenTelemetry GenAI (semantic conventions v1.37+): JSON attributes ``gen_ai.input.messages``,
  ``gen_ai.output.messages`` (``{role, parts: [{type: text | tool_call |
  tool_call_response}]}``), ``gen_ai.system_instructions`` and ``gen_ai.tool.definitions``;
* GenAI before v1.37 (OpenLLMetry): ``gen_ai.prompt.{i}.role`` / ``.content`` and
  ``gen_ai.completion.{i}.*`` with ``tool_calls.{j}.{id,name,arguments}``.

A message comes out as ``{"role", "content", "tool_calls": [{"id", "type": "function",
"function": {"name", "arguments"}}], "tool_call_id"}``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from jdsl.importers import jsondata

__all__ = ["input_messages", "output_messages", "tool_definitions"]

Message = dict[str, Any]
_INDEXED = re.compile(r"^(\d+)\.(.+)$")


def _indexed(attributes: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """``{prefix}.{i}.{rest}`` attributes -> ``[{rest: value}]`` ordered by ``i``."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        if key.startswith(prefix + "."):
            match = _INDEXED.match(key[len(prefix) + 1 :])
            if match:
                found.setdefault(int(match.group(1)), {})[match.group(2)] = value
    return [found[i] for i in sorted(found)]


def _call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {}, sort_keys=True)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _message(
    role: Any, content: Any, calls: list[dict[str, Any]], tool_call_id: Any = None
) -> Message:
    """One chat message; ``tool_calls`` and ``tool_call_id`` only when there are some."""
    message: Message = {"role": role, "content": content or ""}
    if calls:
        message["tool_calls"] = calls
    if tool_call_id:
        message["tool_call_id"] = tool_call_id
    return message


def _openinference(attributes: Mapping[str, Any], prefix: str) -> list[Message]:
    messages = []
    for fields in _indexed(attributes, prefix):
        content = fields.get("message.content")
        if content is None:
            texts = _indexed({k.removeprefix("message."): v for k, v in fields.items()}, "contents")
            content = "".join(str(t.get("message_content.text") or "") for t in texts)
        calls = [
            _call(c.get("tool_call.id"), c.get("tool_call.function.name"),
                  c.get("tool_call.function.arguments"))
            for c in _indexed({k.removeprefix("message."): v for k, v in fields.items()},
                              "tool_calls")
        ]  # fmt: skip
        messages.append(
            _message(fields.get("message.role"), content, calls, fields.get("message.tool_call_id"))
        )
    return messages


def _genai_parts(raw: Any) -> list[Message]:
    """GenAI ``{role, parts}`` messages (JSON text or data) -> chat messages."""
    data = jsondata.loads(raw) if isinstance(raw, str) else raw
    messages: list[Message] = []
    for item in data or []:
        role, parts = item.get("role"), item.get("parts") or []
        texts = [str(p.get("content") or "") for p in parts if p.get("type") == "text"]
        calls = [
            _call(p.get("id"), p.get("name"), p.get("arguments"))
            for p in parts
            if p.get("type") == "tool_call"
        ]
        responses = [p for p in parts if p.get("type") == "tool_call_response"]
        for part in responses:
            response = part.get("response")
            text = response if isinstance(response, str) else json.dumps(response, sort_keys=True)
            messages.append({"role": "tool", "tool_call_id": part.get("id"), "content": text})
        if texts or calls or not responses:
            messages.append(_message(role, "".join(texts), calls))
    return messages


def _legacy(attributes: Mapping[str, Any], prefix: str) -> list[Message]:
    messages = []
    for fields in _indexed(attributes, prefix):
        calls = [
            _call(c.get("id"), c.get("name"), c.get("arguments"))
            for c in _indexed(fields, "tool_calls")
        ]
        messages.append(
            _message(fields.get("role"), fields.get("content"), calls, fields.get("tool_call_id"))
        )
    return messages


def input_messages(attributes: Mapping[str, Any]) -> list[Message]:
    """The messages an LLM span sent (system instructions first, when recorded apart)."""
    found = _openinference(attributes, "llm.input_messages")
    if found:
        return found
    if "gen_ai.input.messages" in attributes:
        system = attributes.get("gen_ai.system_instructions")
        head = []
        if system:
            parts = jsondata.loads(system) if isinstance(system, str) else system
            text = "".join(str(p.get("content") or "") for p in parts if isinstance(p, dict))
            head = [{"role": "system", "content": text}]
        return head + _genai_parts(attributes["gen_ai.input.messages"])
    return _legacy(attributes, "gen_ai.prompt")


def output_messages(attributes: Mapping[str, Any]) -> list[Message]:
    """The messages an LLM span received (normally one assistant message)."""
    found = _openinference(attributes, "llm.output_messages")
    if found:
        return found
    if "gen_ai.output.messages" in attributes:
        return _genai_parts(attributes["gen_ai.output.messages"])
    return _legacy(attributes, "gen_ai.completion")


def tool_definitions(attributes: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tools offered to the model: ``[{name, description, parameters}]``."""
    schemas = [t.get("tool.json_schema") for t in _indexed(attributes, "llm.tools")]
    raw = attributes.get("gen_ai.tool.definitions")
    if raw:
        schemas.extend(jsondata.loads(raw) if isinstance(raw, str) else raw)
    tools = []
    for schema in schemas:
        data = jsondata.loads(schema) if isinstance(schema, str) else schema
        if isinstance(data, dict):
            function = data.get("function", data)
            if function.get("name"):
                tools.append(
                    {
                        "name": function["name"],
                        "description": function.get("description", ""),
                        "parameters": function.get("parameters", {}),
                    }
                )
    return tools
