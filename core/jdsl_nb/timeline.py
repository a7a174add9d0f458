"""Timeline data from trace events: node spans, one-line event summaries, blackboard by step.

A *step* is an event's position in the run's ordered event list (0-based), so a slider over
steps walks the run event by event.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jdsl_nb._html import preview
from jdsl_nb.provenance import WriteRecord

__all__ = ["Span", "blackboard_at", "call_text", "event_node", "event_summary", "node_spans"]


@dataclass(frozen=True)
class Span:
    """One visit of a node: the steps of its ``node.enter`` and ``node.exit`` and its status."""

    node_id: str
    start: int
    end: int
    status: str


def event_node(event: Mapping[str, Any]) -> str:
    """The node an event belongs to (``node_id``, else the writer or reader), or ``""``."""
    payload = event.get("payload") or {}
    for name in ("node_id", "writer", "reader"):
        if payload.get(name):
            return str(payload[name])
    return ""


def node_spans(events: Sequence[Mapping[str, Any]]) -> dict[str, list[Span]]:
    """Spans per node id, nodes in order of first entry; an unclosed span ends at the last step."""
    spans: dict[str, list[Span]] = {}
    open_at: dict[str, list[int]] = {}
    for step, event in enumerate(events):
        kind = event.get("kind")
        node_id = str((event.get("payload") or {}).get("node_id", ""))
        if kind == "node.enter" and node_id:
            spans.setdefault(node_id, [])
            open_at.setdefault(node_id, []).append(step)
        elif kind == "node.exit" and node_id and open_at.get(node_id):
            start = open_at[node_id].pop()
            status = str((event.get("payload") or {}).get("status", "")).lower()
            spans.setdefault(node_id, []).append(Span(node_id, start, step, status))
    last = max(len(events) - 1, 0)
    for node_id, starts in open_at.items():
        spans[node_id].extend(Span(node_id, s, last, "running") for s in starts)
    return spans


def _tool_name(payload: Mapping[str, Any]) -> str:
    tool = payload.get("tool")
    if isinstance(tool, Mapping):
        return str(tool.get("host_name") or tool.get("logical_id") or "?")
    return str(tool or "?")


def call_text(name: str, arguments: Any, limit: int = 60) -> str:
    """A call as ``name(a="x", b=2)``, each argument value previewed to ``limit`` chars."""
    if not isinstance(arguments, Mapping):
        return f"{name}({preview(arguments, limit)[0] if arguments is not None else ''})"
    args = ", ".join(f"{k}={preview(_json(v), limit)[0]}" for k, v in arguments.items())
    return f"{name}({args})"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _answer(p: Mapping[str, Any]) -> str:
    calls = [c for c in p.get("tool_calls") or [] if isinstance(c, Mapping)]
    if calls:
        said = f"{preview(p.get('raw_output'), 40)[0]}; " if p.get("raw_output") else ""
        return (
            said
            + "requests "
            + ", ".join(call_text(str(c.get("name", "?")), c.get("arguments")) for c in calls)
        )
    text = f"answer {preview(p.get('raw_output'), 60)[0]}"
    if p.get("error"):
        return f"{text} rejected: {preview(p.get('error'), 100)[0]}"
    parsed = p.get("parsed_output")
    if isinstance(parsed, Mapping) and parsed:
        text += " -> " + ", ".join(f"{k}={preview(_json(v), 40)[0]}" for k, v in parsed.items())
    return text


def _finished(p: Mapping[str, Any]) -> str:
    failure = p.get("failure")
    text = f"finished {p.get('status', '')}"
    if isinstance(failure, Mapping):
        text += f" at {failure.get('node_id')}: {failure.get('reason')}"
    if p.get("error_message"):
        text += f" ({p.get('error_type') or 'Error'}: {p['error_message']})"
    return text


def _guard(p: Mapping[str, Any]) -> str:
    try:
        from jdsl.text import format_expression

        shown = format_expression(p["expression"])
    except Exception:  # noqa: BLE001 - an old trace without an expression
        shown = str(p.get("type") or "guard")
    values = p.get("values") or {}
    seen = ", ".join(f"{k} = {preview(_json(v), 40)[0]}" for k, v in values.items())
    return f"{shown} -> {str(p.get('result')).lower()}" + (f" ({seen})" if seen else "")


def _write(p: Mapping[str, Any]) -> str:
    text = f"{p.get('key')} = {preview(p.get('value'), 60)[0]}"
    if p.get("source") is not None:  # a for_each pass
        where = f"pass {p['index']}, " if isinstance(p.get("index"), int) else ""
        text += f" ({where}from {p['source']})"
    return text


def _summaries() -> dict[str, Any]:
    return {
        "episode.started": lambda p: (
            f"start {p.get('skill', '')} inputs={preview(p.get('inputs'), 60)[0]}"
        ),
        "episode.finished": _finished,
        "node.enter": lambda p: f"enter {p.get('label') or p.get('type', '')}",
        "node.exit": lambda p: f"exit {p.get('status', '')}",
        "blackboard.write": _write,
        "blackboard.read": lambda p: f"read {p.get('path')} -> {preview(p.get('value'), 60)[0]}",
        "tool.call.started": lambda p: f"call {call_text(_tool_name(p), p.get('arguments'))}",
        "tool.call.completed": lambda p: f"{_tool_name(p)} -> {preview(p.get('result'), 60)[0]}",
        "tool.call.failed": lambda p: f"{_tool_name(p)} failed: {preview(p.get('error'), 60)[0]}",
        "model.requested": lambda p: f"ask {p.get('model_id') or 'model'} ({p.get('kind', '')})",
        "model.responded": _answer,
        "guard.evaluated": _guard,
        "react.finished": lambda p: f"react {p.get('status', '')} ({p.get('stop_reason', '')})",
    }


def event_summary(event: Mapping[str, Any]) -> str:
    """A one-line description of an event, e.g. ``call lookup({"email": "a@b.c"})``."""
    kind = str(event.get("kind", ""))
    make = _summaries().get(kind)
    try:
        return str(make(event.get("payload") or {})) if make else kind
    except Exception:  # noqa: BLE001 - a summary never breaks a view
        return kind


def blackboard_at(records: Sequence[WriteRecord], step: int) -> dict[str, WriteRecord]:
    """The blackboard as of ``step`` (writes at or before it), as the latest record per key."""
    state: dict[str, WriteRecord] = {}
    for record in records:
        if record.step > step:
            break
        state[record.key] = record
    return state
