"""Gemini generateContent on the loopback server: auth, functionResponse rules, JSON and SSE."""

from __future__ import annotations

import base64
import json
from typing import Any

END_FRAMES = 1  # the chunk that carries finishReason
_FINISH = {"stop": "STOP", "tool_call": "STOP", "length": "MAX_TOKENS", "filter": "SAFETY"}


def _error(status: int, message: str) -> tuple[int, dict[str, Any]]:
    kind = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED"}.get(status, "UNKNOWN")
    return status, {"error": {"code": status, "message": message, "status": kind}}


def check_auth(headers: dict[str, str], path: str, key: str) -> tuple[int, dict[str, Any]] | None:
    sent = headers.get("x-goog-api-key", "")
    if sent != key:
        return _error(401, f"API key not valid: {sent} RAW-BODY-MARKER")
    return None


def validate(body: dict[str, Any], path: str) -> tuple[int, dict[str, Any]] | None:
    if ":generateContent" not in path and ":streamGenerateContent" not in path:
        return _error(400, f"unknown method in {path}")
    contents = body.get("contents") or []
    if not contents:
        return _error(400, "contents is not specified")
    config = body.get("generationConfig") or {}
    if config.get("candidateCount", 1) != 1:
        return _error(400, "candidateCount: only 1 is supported here")
    problem = _contents(contents)
    return _error(400, problem) if problem else None


def _contents(contents: list[dict[str, Any]]) -> str | None:
    calls: list[dict[str, Any]] = []
    for index, content in enumerate(contents):
        role = content.get("role")
        if role not in ("user", "model"):
            return f"contents[{index}].role: must be 'user' or 'model', got {role!r}"
        parts = content.get("parts") or []
        if not parts:
            return f"contents[{index}]: must include at least one part"
        responses = [p["functionResponse"] for p in parts if "functionResponse" in p]
        problem = _responses(index, responses, calls) if role == "user" else None
        if problem:
            return problem
        if responses and len(responses) != len(calls):
            return (
                f"contents[{index}]: the number of function response parts must equal the "
                "number of function call parts of the previous turn"
            )
        calls = [p["functionCall"] for p in parts if "functionCall" in p]
    return None


def _responses(
    index: int, responses: list[dict[str, Any]], calls: list[dict[str, Any]]
) -> str | None:
    names = [c.get("name") for c in calls]
    ids = {c.get("id") for c in calls if c.get("id")}
    for response in responses:
        if response.get("name") not in names:
            return (
                f"contents[{index}]: functionResponse name {response.get('name')!r} does not "
                f"match a functionCall of the previous turn ({names})"
            )
        if not isinstance(response.get("response"), dict):
            return f"contents[{index}]: functionResponse.response must be an object"
        if response.get("id") and response["id"] not in ids:
            return f"contents[{index}]: functionResponse id {response['id']!r} matches no call"
    return None


def is_stream(body: dict[str, Any], path: str) -> bool:
    return ":streamGenerateContent" in path


def _usage(reply: Any) -> dict[str, int]:
    names = {
        "input": "promptTokenCount",
        "output": "candidatesTokenCount",
        "reasoning": "thoughtsTokenCount",
        "cached": "cachedContentTokenCount",
    }
    usage = {names[k]: v for k, v in reply.usage.items() if k in names}
    if "input" in reply.usage and "output" in reply.usage:
        usage["totalTokenCount"] = (
            reply.usage["input"] + reply.usage["output"] + reply.usage.get("reasoning", 0)
        )
    return usage


def _parts(reply: Any) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    signature = None
    if reply.thinking:
        parts.append({"text": reply.thinking[0], "thought": True})
        signature = base64.b64encode(reply.thinking[1].encode()).decode()
    if reply.text:
        parts.append({"text": reply.text})
    for call_id, name, args in reply.tool_calls:
        call: dict[str, Any] = {"name": name, "args": args}
        if reply.native_ids:
            call["id"] = call_id
        parts.append({"functionCall": call})
    if signature:
        parts[-1]["thoughtSignature"] = signature
    return parts


def _response(
    parts: list[dict[str, Any]], finish: str | None, usage: dict[str, int] | None
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    response: dict[str, Any] = {"candidates": [candidate], "modelVersion": "loopback"}
    if usage:
        response["usageMetadata"] = usage
    return response


def render(reply: Any, body: dict[str, Any], path: str) -> dict[str, Any]:
    return _response(_parts(reply), _FINISH[reply.finish_reason], _usage(reply))


def frames(reply: Any, body: dict[str, Any], path: str) -> list[str]:
    parts = _parts(reply)
    out: list[dict[str, Any]] = []
    for part in parts:
        text = part.get("text")
        if text and not part.get("thought") and len(parts) == 1:
            step = max(len(text) // 3, 1)
            out += [
                _response([{"text": text[i : i + step]}], None, None)
                for i in range(0, len(text), step)
            ]
        else:
            out.append(_response([part], None, None))
    out.append(_response([{"text": ""}], _FINISH[reply.finish_reason], _usage(reply)))
    return ["data: " + json.dumps(r, ensure_ascii=False) for r in out]
