"""The Anthropic messages API on the loopback server: auth, conversation rules, JSON and SSE."""

from __future__ import annotations

import json
from typing import Any

END_FRAMES = 1  # message_stop
_STOP = {"stop": "end_turn", "length": "max_tokens", "tool_call": "tool_use", "filter": "refusal"}
_ROLE_BLOCKS = {
    "user": {"text", "tool_result", "image"},
    "assistant": {"text", "tool_use", "thinking", "redacted_thinking"},
}


def _error(status: int, kind: str, message: str) -> tuple[int, dict[str, Any]]:
    return status, {"type": "error", "error": {"type": kind, "message": message}}


def check_auth(headers: dict[str, str], path: str, key: str) -> tuple[int, dict[str, Any]] | None:
    if headers.get("x-api-key") != key:
        sent = headers.get("x-api-key", "")
        return _error(401, "authentication_error", f"invalid x-api-key {sent} RAW-BODY-MARKER")
    if not headers.get("anthropic-version"):
        return _error(400, "invalid_request_error", "anthropic-version header is required")
    return None


def validate(body: dict[str, Any], path: str) -> tuple[int, dict[str, Any]] | None:
    """The rules the real API enforces on a conversation (the subset jdsl can break)."""
    problem = _shape(body) or _conversation(body["messages"])
    return _error(400, "invalid_request_error", problem) if problem else None


def _shape(body: dict[str, Any]) -> str | None:
    if not isinstance(body.get("model"), str):
        return "model: field required"
    if not isinstance(body.get("max_tokens"), int):
        return "max_tokens: field required"
    if "seed" in body:
        return "seed: extra inputs are not permitted"
    if not body.get("messages"):
        return "messages: at least one message is required"
    for tool in body.get("tools") or []:
        if not tool.get("name") or tool.get("input_schema", {}).get("type") != "object":
            return "tools: each tool needs a name and an object input_schema"
    return None


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])


def _conversation(messages: list[dict[str, Any]]) -> str | None:
    previous_uses: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role")
        if role not in _ROLE_BLOCKS:
            return f"messages.{index}.role: unexpected role {role!r}; use the system parameter"
        if index == 0 and role != "user":
            return "messages: first message must use the user role"
        if index and messages[index - 1]["role"] == role:
            return f"messages: roles must alternate between user and assistant (index {index})"
        problem = _message(index, role, _blocks(message), previous_uses)
        if problem:
            return problem
        blocks = _blocks(message)
        previous_uses = {b["id"] for b in blocks if b.get("type") == "tool_use"}
    if previous_uses:
        return "messages: tool_use ids were found without tool_result blocks immediately after"
    return None


def _message(index: int, role: str, blocks: list[dict[str, Any]], uses: set[str]) -> str | None:
    for block in blocks:
        kind = block.get("type")
        if kind not in _ROLE_BLOCKS[role]:
            return f"messages.{index}: {kind!r} blocks are not allowed in {role} messages"
        if kind == "text" and not block.get("text"):
            return f"messages.{index}: text content blocks must be non-empty"
        if kind == "thinking" and not block.get("signature"):
            return f"messages.{index}: thinking blocks must carry their signature"
    if role != "user":
        return None
    results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
    leading = [b.get("type") for b in blocks[: len(results)]]
    if uses and (set(results) != uses or any(k != "tool_result" for k in leading)):
        return (
            f"messages.{index}: tool_use ids were found without tool_result blocks immediately "
            "after; each tool_use needs a tool_result first in the next user message"
        )
    stray = set(results) - uses
    if stray:
        return f"messages.{index}: unexpected tool_use_id {sorted(stray)[0]!r} in tool_result"
    return None


def is_stream(body: dict[str, Any], path: str) -> bool:
    return bool(body.get("stream"))


def _usage(reply: Any) -> dict[str, int]:
    names = {
        "input": "input_tokens",
        "output": "output_tokens",
        "cache_creation": "cache_creation_input_tokens",
        "cached": "cache_read_input_tokens",
    }
    return {names[k]: v for k, v in reply.usage.items() if k in names}


def _content(reply: Any) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.thinking:
        blocks.append(
            {"type": "thinking", "thinking": reply.thinking[0], "signature": reply.thinking[1]}
        )
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for call_id, name, args in reply.tool_calls:
        blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": args})
    return blocks


def render(reply: Any, body: dict[str, Any], path: str) -> dict[str, Any]:
    return {
        "id": "msg_loopback",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": _content(reply),
        "stop_reason": _STOP[reply.finish_reason],
        "stop_sequence": None,
        "usage": _usage(reply),
    }


def _frame(event: dict[str, Any]) -> str:
    return f"event: {event['type']}\ndata: {json.dumps(event, ensure_ascii=False)}"


def _pieces(text: str, n: int = 3) -> list[str]:
    step = max(len(text) // n, 1)
    return [text[i : i + step] for i in range(0, len(text), step)]


def _block_events(index: int, block: dict[str, Any]) -> list[dict[str, Any]]:
    kind = block["type"]
    if kind == "text":
        start, deltas = (
            {"type": "text", "text": ""},
            [{"type": "text_delta", "text": p} for p in _pieces(block["text"])],
        )
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [{"type": "thinking_delta", "thinking": p} for p in _pieces(block["thinking"])]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    else:
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        deltas = [
            {"type": "input_json_delta", "partial_json": p}
            for p in _pieces(json.dumps(block["input"]))
        ]
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
        {"type": "content_block_stop", "index": index},
    ]


def frames(reply: Any, body: dict[str, Any], path: str) -> list[str]:
    usage = _usage(reply)
    output = usage.pop("output_tokens", None)
    message = {**render(reply, body, path), "content": [], "stop_reason": None, "usage": usage}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": message}, {"type": "ping"}]
    for index, block in enumerate(_content(reply)):
        events.extend(_block_events(index, block))
    delta_usage = {"output_tokens": output} if output is not None else {}
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": _STOP[reply.finish_reason], "stop_sequence": None},
            "usage": delta_usage,
        }
    )
    events.append({"type": "message_stop"})
    return [_frame(e) for e in events]
