"""ReplayModel: answer from the model calls recorded in a trace, and find where a run diverges.

A recorded run re-executes deterministically: every ``converse`` is answered with the turn of a
recorded ``model.responded`` event (text, tool calls, usage, finish reason), taken in order per
``node_id``. Each call's system prompt and messages are compared with the matching
``model.requested`` event; the first call that matches no recording is a *divergence*.

On a divergence the model records it in ``.divergence`` (only the first) and, with
``strict=True`` (the default), raises :class:`ReplayDivergence`; with ``strict=False`` it
answers with the next recording in trace order anyway, so the rest of the run can be inspected.
Messages are compared on role, content, tool calls (id, name, arguments), tool_call_id, name and
is_error; vendor metadata is ignored. A recorded request without messages matches any call. A
request that records only its new messages (``jdsl.trace.v2``) is compared on its whole list
(:func:`jdsl.trace.request_messages`); traces that carry every list whole replay as before.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, get_args

from jdsl.errors import ProviderError
from jdsl.providers.messages import (
    FinishReason,
    Message,
    ModelTurn,
    ToolCall,
    ToolSpec,
    Usage,
)
from jdsl.trace.messages import MESSAGES_FROM, RequestMessages

__all__ = ["Divergence", "ReplayDivergence", "ReplayModel"]

_REQUESTED = "model.requested"
_RESPONDED = "model.responded"


@dataclass(frozen=True)
class Divergence:
    """Where a new run first left the recording.

    Attributes:
        call_index: 0-based number of the model call in the new run.
        node_id: the node whose recorded call was expected next (None when none was left).
        message_index: the first message that differs (None: the system prompt differs, or
            the recording had no call left).
        expected / actual: the differing recorded and new message (dicts), or system prompts.
        reason: one line saying what differs.
    """

    call_index: int
    node_id: str | None
    message_index: int | None
    expected: Any
    actual: Any
    reason: str

    def __str__(self) -> str:
        return f"model call {self.call_index} diverged from the recording: {self.reason}"


class ReplayDivergence(ProviderError):
    """A model call whose messages match no recorded call (``divergence`` says where)."""

    def __init__(self, divergence: Divergence) -> None:
        super().__init__(
            f"{divergence}; the run no longer follows the trace — compare the node's inputs, "
            "or replay with strict=False to continue and inspect",
            provider="replay",
            divergence=divergence,
        )


@dataclass(frozen=True)
class _Call:
    order: int
    node_id: str
    system: str | None
    messages: list[dict[str, Any]] | None
    turn: ModelTurn


class ReplayModel:
    """A model that replays the model calls of a trace.

    Args:
        trace_or_events: a JSONL trace path, a Trace (blob markers are hydrated from its
            blob store), a sink with ``.events``, or an iterable of TraceEvents or event
            dicts; only ``model.requested`` / ``model.responded`` events are used.
        strict: raise :class:`ReplayDivergence` on the first divergence (else record it and
            answer with the next recording).
        node_of: tells from a call's messages which node asks (None: any); when it names one,
            or several that could be asking (a collection of ids), only their recorded calls
            answer (recordings without messages are otherwise answered in recorded order,
            whichever node asks).

    Attributes:
        divergence: the first :class:`Divergence`, or None while the run follows the trace.
        calls: the new run's calls, as ``{system, messages, tools, model_id}`` dicts.

    Example:
        >>> replay = ReplayModel(recorded_trace)  # doctest: +SKIP
        >>> root.run(model=replay, **inputs)  # doctest: +SKIP
    """

    def __init__(
        self,
        trace_or_events: Any,
        *,
        strict: bool = True,
        node_of: Callable[[Sequence[dict[str, Any]]], str | Collection[str] | None] | None = None,
    ) -> None:
        self.strict = strict
        self.node_of = node_of
        self.divergence: Divergence | None = None
        self.calls: list[dict[str, Any]] = []
        self._queues: dict[str, deque[_Call]] = {}
        for call in _recorded_calls(_events(trace_or_events)):
            self._queues.setdefault(call.node_id, deque()).append(call)

    @property
    def remaining(self) -> int:
        """Recorded calls not yet replayed."""
        return sum(len(q) for q in self._queues.values())

    def converse(
        self,
        system: str,
        messages: Sequence[Message | Mapping[str, Any]],
        tools: Sequence[ToolSpec] = (),
        model_id: str | None = None,
    ) -> ModelTurn:
        """The recorded turn for this call.

        Raises:
            ReplayDivergence: the call matches no recording (strict), or none is left.
        """
        actual = [_normal(m) for m in messages]
        self.calls.append(
            {
                "system": system,
                "messages": actual,
                "tools": [t.name for t in tools],
                "model_id": model_id,
            }
        )
        heads = sorted((q[0] for q in self._queues.values() if q), key=lambda c: c.order)
        asking = self.node_of(actual) if self.node_of is not None else None
        if asking is not None:  # only the asking node's own recorded calls answer it
            names = {asking} if isinstance(asking, str) else set(asking)
            heads = [c for c in heads if c.node_id in names]
        match = next((c for c in heads if _matches(c, system, actual)), None)
        if match is None:
            divergence = _divergence(
                len(self.calls) - 1, heads[0] if heads else None, system, actual
            )
            self.divergence = self.divergence or divergence
            if self.strict or not heads:
                raise ReplayDivergence(divergence)
            match = heads[0]
        self._queues[match.node_id].popleft()
        return match.turn

    def stream(
        self,
        system: str,
        messages: Sequence[Message | Mapping[str, Any]],
        tools: Sequence[ToolSpec] = (),
        model_id: str | None = None,
    ) -> Iterator[str | ModelTurn]:
        """The recorded turn as one text delta (when it has text), then the turn."""
        turn = self.converse(system, messages, tools, model_id)
        if turn.text:
            yield turn.text
        yield turn


def _events(source: Any) -> list[dict[str, Any]]:
    if isinstance(source, str | os.PathLike):
        from jdsl.trace import read_events

        source = read_events(source, resolve_blobs=True)
    elif getattr(source, "blob_store", None) is not None:
        source = source.hydrated()  # a Trace loaded from JSONL: large messages live in blobs
    items: Iterable[Any] = getattr(source, "events", source)
    out = []
    for item in items:
        data = item if isinstance(item, Mapping) else item.model_dump(mode="json")
        out.append(dict(data))
    return out


def _recorded_calls(events: list[dict[str, Any]]) -> list[_Call]:
    requests: dict[str, dict[str, Any]] = {}
    open_by_node: dict[str, list[dict[str, Any]]] = {}
    calls: list[_Call] = []
    # A request of a jdsl.trace.v2 trace records only the messages new since the one before:
    # the resolver rebuilds each whole list (sharing the message dicts, normalized once each).
    resolver = RequestMessages()
    normal: dict[int, dict[str, Any]] = {}
    for event in events:
        payload = event.get("payload") or {}
        node = str(payload.get("node_id") or "")
        if event.get("kind") == _REQUESTED:
            resolver.add(event)
            requests[str(event.get("event_id"))] = event
            open_by_node.setdefault(node, []).append(event)
        elif event.get("kind") == _RESPONDED:
            request = requests.get(str(event.get("parent_event_id")))
            pending = open_by_node.get(node) or []
            if request is None and pending:
                request = pending[0]
            if request is not None and any(r is request for r in pending):
                pending.remove(request)
            asked = (request or {}).get("payload") or {}
            messages = None
            if asked.get("messages") is not None or asked.get(MESSAGES_FROM) is not None:
                messages = [
                    normal.get(id(m)) or normal.setdefault(id(m), _normal(m))
                    for m in resolver.messages(request)
                ]
            calls.append(
                _Call(
                    order=len(calls),
                    node_id=node,
                    system=asked.get("system"),
                    messages=messages,
                    turn=_turn(payload),
                )
            )
    return calls


def _normal(message: Message | Mapping[str, Any]) -> dict[str, Any]:
    data = message.model_dump(mode="json") if isinstance(message, Message) else dict(message)
    return {
        "role": data.get("role"),
        "content": data.get("content") or "",
        "tool_calls": [
            {"id": c.get("id"), "name": c.get("name"), "arguments": c.get("arguments") or {}}
            for c in data.get("tool_calls") or []
        ],
        "tool_call_id": data.get("tool_call_id"),
        "name": data.get("name"),
        "is_error": bool(data.get("is_error")),
    }


def _turn(payload: Mapping[str, Any]) -> ModelTurn:
    finish = payload.get("finish_reason")
    usage = payload.get("usage")
    return ModelTurn(
        text=str(payload.get("raw_output") or ""),
        tool_calls=tuple(
            ToolCall(id=c["id"], name=c["name"], arguments=dict(c.get("arguments") or {}))
            for c in payload.get("tool_calls") or []
        ),
        usage=Usage.model_validate(usage) if isinstance(usage, Mapping) else None,
        finish_reason=finish if finish in get_args(FinishReason) else None,
    )


def _matches(call: _Call, system: str, messages: list[dict[str, Any]]) -> bool:
    if call.messages is None:
        return True
    return (call.system is None or call.system == system) and call.messages == messages


def _short(message: Mapping[str, Any] | None) -> str:
    if message is None:
        return "nothing"
    content = str(message.get("content", ""))
    text = content if len(content) <= 80 else content[:77] + "..."
    calls = [c["name"] for c in message.get("tool_calls", [])]
    return f"{message.get('role')} {text!r}" + (f" calling {calls}" if calls else "")


def _divergence(
    index: int, expected: _Call | None, system: str, actual: list[dict[str, Any]]
) -> Divergence:
    if expected is None:
        reason = "the recording has no model call left"
        return Divergence(index, None, None, None, actual, reason)
    if expected.system is not None and expected.system != system:
        reason = f"node {expected.node_id!r}: the system prompt differs"
        return Divergence(index, expected.node_id, None, expected.system, system, reason)
    recorded = expected.messages or []
    at = next(
        (i for i, (a, b) in enumerate(zip(recorded, actual, strict=False)) if a != b),
        min(len(recorded), len(actual)),
    )
    old = recorded[at] if at < len(recorded) else None
    new = actual[at] if at < len(actual) else None
    reason = f"node {expected.node_id!r}, message {at}: recorded {_short(old)}, got {_short(new)}"
    return Divergence(index, expected.node_id, at, old, new, reason)
