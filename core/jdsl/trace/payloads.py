"""The payload contract of runtime events, and a checker for it.

The fields are the table "Event payloads the runtime emits" of docs/ARCHITECTURE.md; readers
(episode views, the compiler, the notebook) rely on them. :func:`payload_problems` lists where
a trace departs from the table, so a test can pin the runtime to the contract.
"""

from __future__ import annotations

from collections.abc import Iterable

from jdsl.trace.events import EventKind, TraceEvent
from jdsl.trace.messages import MESSAGES_FROM

__all__ = ["PAYLOAD_FIELDS", "PARENT_KINDS", "payload_problems"]

K = EventKind
_TOOL = ("node_id", "store", "tool")

PAYLOAD_FIELDS: dict[str, tuple[str, ...]] = {
    K.EPISODE_STARTED: ("skill", "inputs", "ir", "model_id"),
    K.EPISODE_FINISHED: ("skill", "status", "error_type", "error_message"),
    K.NODE_ENTER: ("node_id", "type", "label"),
    K.NODE_EXIT: ("node_id", "type", "label", "status"),
    K.BLACKBOARD_WRITE: ("key", "value", "writer", "writer_label", "overwrote", "previous"),
    K.BLACKBOARD_READ: ("path", "reader", "value"),
    K.TOOL_CALL_STARTED: (*_TOOL, "arguments"),
    K.TOOL_CALL_COMPLETED: (*_TOOL, "result"),
    K.TOOL_CALL_FAILED: (*_TOOL, "error", "error_type"),
    K.MODEL_REQUESTED: ("node_id", "kind", "signature", "model_id", "system", "messages", "tools"),
    K.MODEL_RESPONDED: (
        "node_id",
        "kind",
        "model_id",
        "raw_output",
        "tool_calls",
        "usage",
        "finish_reason",
        "elapsed_ms",
    ),  # fmt: skip
    K.REACT_STARTED: ("node_id", "signature", "inputs", "outputs", "tools"),
    K.TOOLSET_EXPOSED: ("node_id", "tools"),
    K.REACT_FINISHED: ("node_id", "status", "stop_reason", "usage", "pending_actions", "answer"),
    K.GUARD_EVALUATED: ("node_id", "type", "expression", "result", "values"),
}
"""Fields every payload of a kind carries (a value may be None)."""

_PREDICT_FIELDS = {
    K.MODEL_REQUESTED: ("input_fields", "inputs", "output_fields", "prompt"),
    K.MODEL_RESPONDED: ("parsed_output", "status", "error"),
}

PARENT_KINDS: dict[str, tuple[str, ...]] = {
    K.NODE_EXIT: (K.NODE_ENTER,),
    K.TOOL_CALL_COMPLETED: (K.TOOL_CALL_STARTED,),
    K.TOOL_CALL_FAILED: (K.TOOL_CALL_STARTED,),
    K.MODEL_RESPONDED: (K.MODEL_REQUESTED,),
}
"""The kind of event that ``parent_event_id`` must point to."""

_STATUSES = {
    K.EPISODE_FINISHED: ("success", "failure", "error", "cancelled"),
    K.REACT_FINISHED: ("completed", "partial", "failed"),
}


def payload_problems(events: Iterable[TraceEvent]) -> list[str]:
    """Every departure from the payload contract: missing fields, bad links, unknown statuses.

    Kinds outside :data:`PAYLOAD_FIELDS` (e.g. imported ``user.message``) are not checked.

    Args:
        events: the events of one or more runs.

    Returns:
        One line per problem naming the event (kind, episode, sequence); empty when all match.
    """
    events = list(events)
    kinds = {e.event_id: e.kind for e in events}
    problems: list[str] = []
    for event in events:
        at = f"{event.kind} (episode {event.episode_id!r}, sequence {event.sequence})"
        problems.extend(f"{at}: {p}" for p in _event_problems(event, kinds))
    return problems


def _event_problems(event: TraceEvent, kinds: dict[str, str]) -> list[str]:
    fields = PAYLOAD_FIELDS.get(event.kind)
    if fields is None:
        return []
    if event.payload.get("kind") == "predict":
        fields = (*fields, *_PREDICT_FIELDS.get(event.kind, ()))
    problems = [f"payload lacks {name!r}" for name in fields if name not in event.payload]
    allowed = _STATUSES.get(event.kind)
    if allowed is not None and event.payload.get("status") not in allowed:
        problems.append(f"status {event.payload.get('status')!r} is not one of {allowed}")
    parents = PARENT_KINDS.get(event.kind)
    if parents is not None and kinds.get(event.parent_event_id or "") not in parents:
        problems.append(f"parent_event_id does not point to a {' or '.join(parents)} event")
    continued = event.payload.get(MESSAGES_FROM)  # a request's new messages only (v2)
    if event.kind == K.MODEL_REQUESTED and continued is not None:
        earlier = continued.get("event_id") if isinstance(continued, dict) else None
        if kinds.get(earlier if isinstance(earlier, str) else "") != K.MODEL_REQUESTED:
            problems.append(f"{MESSAGES_FROM} does not point to a {K.MODEL_REQUESTED} event")
    return problems
