"""The trace event envelope, event kinds and hash chaining.

Every event a run emits is a :class:`TraceEvent`. A sink stamps each event with its per-episode
``sequence`` and links it into a SHA-256 hash chain (``prev_event_hash`` -> ``event_hash``), so
tampering with any stored event is detectable (:func:`jdsl.trace.verify_chain`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "SCHEMA_VERSION",
    "Actor",
    "Chainer",
    "EventKind",
    "EventSource",
    "TraceEvent",
    "canonical_json",
]

SCHEMA_VERSION = "jdsl.trace.v1"
Actor = Literal["model", "user", "environment", "system", "tool"]


class EventKind:
    """Event kind names (reference jdsl-py §3.2)."""

    CAPTURE_STARTED = "capture.started"
    CAPTURE_FINISHED = "capture.finished"
    EPISODE_STARTED = "episode.started"
    EPISODE_FINISHED = "episode.finished"
    USER_MESSAGE = "user.message"
    ASSISTANT_MESSAGE = "assistant.message"
    MODEL_REQUESTED = "model.requested"
    MODEL_RESPONDED = "model.responded"
    TOOLSET_EXPOSED = "toolset.exposed"
    TOOL_CALL_PROPOSED = "tool.call.proposed"
    TOOL_CALL_STARTED = "tool.call.started"
    TOOL_CALL_COMPLETED = "tool.call.completed"
    TOOL_CALL_FAILED = "tool.call.failed"
    STATE_SNAPSHOT = "state.snapshot"
    STATE_DELTA = "state.delta"
    ENVIRONMENT_REWARD = "environment.reward"
    ENVIRONMENT_VERDICT = "environment.verdict"
    ANNOTATION = "annotation"
    HOST_COMPACTION = "host.compaction"
    HOST_SUBAGENT_STARTED = "host.subagent.started"
    HOST_SUBAGENT_FINISHED = "host.subagent.finished"
    NODE_ENTER = "node.enter"
    NODE_EXIT = "node.exit"
    BLACKBOARD_READ = "blackboard.read"
    BLACKBOARD_WRITE = "blackboard.write"
    REACT_STARTED = "react.started"
    REACT_FINISHED = "react.finished"
    GUARD_EVALUATED = "guard.evaluated"

    CONTROL = frozenset({CAPTURE_STARTED, CAPTURE_FINISHED, EPISODE_STARTED, EPISODE_FINISHED})


def canonical_json(value: Any) -> str:
    """Deterministic compact JSON: sorted keys, no spaces, non-JSON values via ``str``."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class EventSource(BaseModel):
    """Where an event came from: the host, the adapter, and the model when known."""

    model_config = ConfigDict(frozen=True)

    host: str = "jdsl"
    adapter: str = "runtime"
    model: str | None = None


class TraceEvent(BaseModel):
    """One trace event.

    Attributes:
        kind: an :class:`EventKind` value.
        capture_id / episode_id: the capture and episode it belongs to.
        sequence: per-episode order, assigned by the sink (0-based).
        timestamp: UTC ISO-8601 with milliseconds and a trailing ``Z``.
        actor: who acted ("model", "user", "environment", "system", "tool").
        parent_event_id: the event this one answers (e.g. a tool call's start).
        payload: kind-specific JSON data (see docs/ARCHITECTURE.md, "Event payloads").
        state_before_ref / state_after_ref: blob refs of environment state, when captured.
        blob_refs: ``sha256:<hex>`` refs of values moved to the blob store.
        prev_event_hash / event_hash: the hash chain.
    """

    model_config = ConfigDict(extra="ignore")

    kind: str
    capture_id: str = "cap_local"
    episode_id: str = "ep_local"
    payload: dict[str, Any] = Field(default_factory=dict)
    schema_version: str = SCHEMA_VERSION
    event_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    sequence: int = 0
    timestamp: str = Field(default_factory=_now)
    source: EventSource = Field(default_factory=EventSource)
    actor: Actor = "system"
    parent_event_id: str | None = None
    state_before_ref: str | None = None
    state_after_ref: str | None = None
    blob_refs: list[str] = Field(default_factory=list)
    prev_event_hash: str | None = None
    event_hash: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The event as plain JSON data."""
        return self.model_dump(mode="json")

    def to_json(self) -> str:
        """Deterministic one-line JSON."""
        return canonical_json(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TraceEvent:
        """Rebuild an event from :meth:`to_dict` output; unknown fields are ignored."""
        return cls.model_validate(data)

    def is_control(self) -> bool:
        """Whether this is a capture/episode start or finish event."""
        return self.kind in EventKind.CONTROL

    def compute_hash(self) -> str:
        """``sha256:<hex>`` over every field but ``event_hash`` (so the chain link is covered)."""
        body = self.to_dict()
        body.pop("event_hash", None)
        return "sha256:" + hashlib.sha256(canonical_json(body).encode()).hexdigest()

    def verify_hash(self) -> bool:
        """Whether ``event_hash`` matches the event's content."""
        return self.event_hash == self.compute_hash()


class Chainer:
    """Per-episode sequence counters and hash-chain tails; thread-safe. One per sink."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._next: dict[str, int] = {}
        self._tail: dict[str, str | None] = {}

    def stamp(self, event: TraceEvent) -> TraceEvent:
        """Assign the next sequence and link the event into its episode's chain, in place."""
        with self._lock:
            key = f"{event.capture_id}/{event.episode_id}"
            event.sequence = self._next.get(key, 0)
            self._next[key] = event.sequence + 1
            event.prev_event_hash = self._tail.get(key)
            event.event_hash = event.compute_hash()
            self._tail[key] = event.event_hash
        return event

    def rollback(self, event: TraceEvent) -> None:
        """Undo :meth:`stamp` of ``event`` if it is still its episode's tail (it was not kept)."""
        with self._lock:
            key = f"{event.capture_id}/{event.episode_id}"
            if event.event_hash is not None and self._tail.get(key) == event.event_hash:
                self._tail[key] = event.prev_event_hash
                self._next[key] = event.sequence

    def observe(self, event: TraceEvent) -> None:
        """Continue the chain after an already stamped event (e.g. one read back from a file)."""
        with self._lock:
            key = f"{event.capture_id}/{event.episode_id}"
            if event.sequence >= self._next.get(key, 0):
                self._next[key] = event.sequence + 1
                self._tail[key] = event.event_hash
