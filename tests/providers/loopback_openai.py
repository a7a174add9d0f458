"""OpenAI chat completions on the loopback server: auth, tool_call_id rules, JSON and SSE."""

from __future__ import annotations

import json
from typing import Any

END_FRAMES = 3  # the finish chunk, the usage chunk, [DONE] (without usage: finish, [DONE], +1)
_FINISH = {
    "stop": "stop",
    "length": "length",
    "tool_call": "tool_calls",
    "filter": "content_filter",
}
_ROLES = {"system", "developer", "user", "assistant", "tool"}


def _error(status: int, code: str, message: str) -> tuple[int, dict[str, Any]]:
    return status, {"error": {"message": message, "type": "invalid_request_error", "code": code}}


def check_auth(headers: dict[str, str], path: str, key: str) -> tuple[int, dict[str, Any]] | None:
    sent = headers.get("authorization", "")
    if sent != f"Bearer {key}":
        return _error(401, "invalid_api_key", f"Incorrect API key provided: {sent} RAW-BODY-MARKER")
    return None


def validate(body: dict[str, Any], path: str) -> tuple[int, dict[str, Any]] | None:
    problem = _shape(body) or _tool_history(body["messages"])
    return _error(400, "invalid_request", problem) if problem else None


def _shape(body: dict[str, Any]) -> str | None:
    if not isinstance(body.get("model"), str):
        return "you must provide a model parameter"
    if not body.get("messages"):
        return "messages: must be a non-empty array"
    if body.get("n", 1) != 1:
        return "n: only 1 is supported here"
    if "stream_options" in body and not body.get("stream"):
        return "stream_options: only allowed when stream is true"
    for tool in body.get("tools") or []:
        if tool.get("type") != "function" or not tool.get("function", {}).get("name"):
            return "tools: each tool must be {type: function, function: {name, ...}}"
    return None


def _tool_history(messages: list[dict[str, Any]]) -> str | None:
    pending: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role")
        if role not in _ROLES:
            return f"messages[{index}].role: invalid value {role!r}"
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                return (
                    f"messages[{index}]: messages with role 'tool' must be a response to a "
                    f"preceding message with 'tool_calls' (tool_call_id {call_id!r})"
                )
            pending.discard(call_id)
            continue
        if pending:
            return (
                "an assistant message with 'tool_calls' must be followed by tool messages "
                f"responding to each 'tool_call_id'; missing {sorted(pending)}"
            )
        for call in message.get("tool_calls") or []:
            if not isinstance(call.get("function", {}).get("arguments"), str):
                return f"messages[{index}].tool_calls: function.arguments must be a JSON string"
            pending.add(call.get("id"))
    return None


def is_stream(body: dict[str, Any], path: str) -> bool:
    return bool(body.get("stream"))


def _usage(reply: Any) -> dict[str, Any]:
    u = reply.usage
    usage: dict[str, Any] = {}
    if "input" in u:
        usage["prompt_tokens"] = u["input"]
    if "output" in u:
        usage["completion_tokens"] = u["output"]
    if "input" in u and "output" in u:
        usage["total_tokens"] = u["input"] + u["output"]
    if "cached" in u:
        usage["prompt_tokens_details"] = {"cached_tokens": u["cached"]}
    if "reasoning" in u:
        usage["completion_tokens_details"] = {"reasoning_tokens": u["reasoning"]}
    return usage


def _calls(reply: Any) -> list[dict[str, Any]]:
    return [
        {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, n, a in reply.tool_calls
    ]


def render(reply: Any, body: dict[str, Any], path: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = _calls(reply)
    response = {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": _FINISH[reply.finish_reason],
                "logprobs": None,
            }
        ],
    }
    if reply.usage:
        response["usage"] = _usage(reply)
    return response


def _chunk(body: dict[str, Any], delta: dict[str, Any] | None, finish: str | None = None) -> str:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    chunk = {
        "id": "chatcmpl-loopback",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": body["model"],
        "choices": choices,
    }
    return "data: " + json.dumps(chunk, ensure_ascii=False)


def frames(reply: Any, body: dict[str, Any], path: str) -> list[str]:
    out = [_chunk(body, {"role": "assistant", "content": ""})]
    text = reply.text
    step = max(len(text) // 3, 1)
    out += [_chunk(body, {"content": text[i : i + step]}) for i in range(0, len(text), step)]
    for index, call in enumerate(_calls(reply)):
        head = {
            **call,
            "index": index,
            "function": {"name": call["function"]["name"], "arguments": ""},
        }
        out.append(_chunk(body, {"tool_calls": [head]}))
        args = call["function"]["arguments"]
        for i in range(0, len(args), 5):
            piece = {"index": index, "function": {"arguments": args[i : i + 5]}}
            out.append(_chunk(body, {"tool_calls": [piece]}))
    out.append(_chunk(body, {}, _FINISH[reply.finish_reason]))
    if (body.get("stream_options") or {}).get("include_usage"):
        usage_chunk = json.loads(_chunk(body, None)[len("data: ") :])
        usage_chunk["usage"] = _usage(reply)
        out.append("data: " + json.dumps(usage_chunk))
    else:
        out.append(": keep-alive")
    out.append("data: [DONE]")
    return out
