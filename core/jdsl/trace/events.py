"""The trace event envelope, event kinds and hash chaining.

Every event a run emits is a :class:`TraceEvent`. A sink stamps each event with its per-episode
``sequence`` and links it into a SHA-256 hash chain (``prev_event_hash`` -> ``event_hash``), so
tampering with any stored event is detectable (:func:`jdsl.trace.verify_chain`).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
import uuid
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from jdsl.errors import JdslError, preview
from jdsl.trace.canonical import canonical_json, event_json, event_text

__all__ = [
    "ACTORS",
    "SCHEMA_VERSION",
    "Actor",
    "Chainer",
    "EpisodeChain",
    "EventKind",
    "EventSource",
    "RUNTIME_ACTORS",
    "RUNTIME_SOURCE",
    "ActorError",
    "actor_error",
    "Timestamps",
    "TraceEvent",
    "canonical_json",
    "digest",
    "event_text",
    "format_timestamp",
    "with_hash",
]

SCHEMA_VERSION = "jdsl.trace.v2"
"""The trace format each new event names. ``v2``: a ``model.requested`` that continues an earlier
request records only its new messages (:mod:`jdsl.trace.messages`); ``v1`` events (whole message
lists) still read."""
Actor = Literal["model", "user", "environment", "system", "tool"]
ACTORS: frozenset[str] = frozenset(get_args(Actor))
"""Every valid ``actor``."""


class ActorError(JdslError, ValueError):
    """An event's ``actor`` is not one of :data:`ACTORS` (a ``ValueError`` too)."""


def actor_error(actor: object) -> ActorError:
    """The error for an ``actor`` that is not one of :data:`ACTORS`."""
    return ActorError(f"actor {preview(actor)} is not one of {sorted(ACTORS)}")


class EventKind:
    """Event kind names (docs/design.md §5)."""

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


RUNTIME_ACTORS: dict[str, Actor] = {
    "tool.call.started": "model",
    "tool.call.completed": "tool",
    "tool.call.failed": "tool",
    "model.requested": "model",
    "model.responded": "model",
}
"""The actor of a runtime event by kind when none is given (else ``"system"``)."""


def format_timestamp(ns: int) -> str:
    """UTC ISO-8601 with milliseconds and a trailing ``Z`` for ``time.time_ns()`` nanoseconds."""
    seconds, millis = divmod(ns // 1_000_000, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def _now() -> str:
    return format_timestamp(time.time_ns())


class Timestamps:
    """Event timestamps from ``time.time_ns()``, formatted once per millisecond.

    Events emitted within the same millisecond share the text, and the date and time of day
    are formatted once per second, so a run emitting thousands of events formats a handful.
    Thread-safe: each cache is one immutable pair.
    """

    __slots__ = ("_last", "_second")

    def __init__(self) -> None:
        self._last: tuple[int, str] = (-1, "")
        self._second: tuple[int, str] = (-1, "")

    def format(self, ns: int) -> str:
        """The timestamp text of ``ns`` (see :func:`format_timestamp`)."""
        ms = ns // 1_000_000
        last = self._last
        if last[0] == ms:
            return last[1]
        seconds, millis = divmod(ms, 1000)
        second = self._second
        if second[0] != seconds:
            second = self._second = (seconds, format_timestamp(seconds * 1_000_000_000)[:-5])
        text = f"{second[1]}.{millis:03d}Z"
        self._last = (ms, text)
        return text

    def now(self) -> str:
        """The current time's text."""
        return self.format(time.time_ns())


class EventSource(BaseModel):
    """Where an event came from: the host, the adapter, and the model when known."""

    model_config = ConfigDict(frozen=True)

    host: str = "jdsl"
    adapter: str = "runtime"
    model: str | None = None


RUNTIME_SOURCE = EventSource()
"""The runtime's source (frozen), shared by the events the runtime records and those read back."""
_RUNTIME_SOURCE_TEXT = event_json(RUNTIME_SOURCE.__dict__)


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

    @classmethod
    def unchecked(
        cls,
        kind: str,
        capture_id: str,
        episode_id: str,
        payload: dict[str, Any],
        *,
        event_id: str,
        timestamp: str,
        actor: Actor = "system",
        parent_event_id: str | None = None,
        sequence: int = 0,
        blob_refs: list[str] | None = None,
    ) -> TraceEvent:
        """An event built without validation: the runtime's fast path.

        The caller guarantees the types (``payload`` is JSON data the event now owns); the
        source is the runtime's, the hash fields are None until a sink stamps the event.
        """
        event = cls.__new__(cls)
        _set = object.__setattr__
        _set(event, "__dict__", {
            "kind": kind, "capture_id": capture_id, "episode_id": episode_id,
            "payload": payload, "schema_version": SCHEMA_VERSION, "event_id": event_id,
            "sequence": sequence, "timestamp": timestamp, "source": RUNTIME_SOURCE,
            "actor": actor, "parent_event_id": parent_event_id, "state_before_ref": None,
            "state_after_ref": None, "blob_refs": [] if blob_refs is None else blob_refs,
            "prev_event_hash": None, "event_hash": None,
        })  # fmt: skip
        _set(event, "__pydantic_fields_set__", {"kind", "capture_id", "episode_id", "payload"})
        _set(event, "__pydantic_extra__", None)
        _set(event, "__pydantic_private__", None)
        return event

    @classmethod
    def trusted(cls, fields: dict[str, Any]) -> TraceEvent:
        """An event from every field, already of its type (a reader's fast path; no checks).

        ``fields`` maps each field name to its value (``source`` an :class:`EventSource`);
        the event owns the dict.
        """
        event = cls.__new__(cls)
        _set = object.__setattr__
        _set(event, "__dict__", fields)
        _set(event, "__pydantic_fields_set__", set(fields))
        _set(event, "__pydantic_extra__", None)
        _set(event, "__pydantic_private__", None)
        return event

    def to_dict(self) -> dict[str, Any]:
        """The event as plain JSON data."""
        return self.model_dump(mode="json")

    def to_json(self) -> str:
        """Deterministic one-line JSON (what :meth:`to_dict` gives, encoded canonically)."""
        return with_hash(self._text(), self.event_hash)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TraceEvent:
        """Rebuild an event from :meth:`to_dict` output; unknown fields are ignored."""
        return cls.model_validate(data)

    def is_control(self) -> bool:
        """Whether this is a capture/episode start or finish event."""
        return self.kind in EventKind.CONTROL

    def compute_hash(self) -> str:
        """``sha256:<hex>`` over every field but ``event_hash`` (so the chain link is covered).

        The hashed text is the canonical JSON of :meth:`to_dict` without ``event_hash``
        (sorted keys, no spaces, UTF-8; :func:`~jdsl.trace.canonical.event_json`).
        """
        return digest(self._text())

    def _text(self) -> str:
        fields = self.__dict__
        source = fields["source"]
        known = source is RUNTIME_SOURCE or source.__dict__ == RUNTIME_SOURCE.__dict__
        return event_text(fields, source_text=_RUNTIME_SOURCE_TEXT if known else None)

    def verify_hash(self) -> bool:
        """Whether ``event_hash`` matches the event's content (as written now, or as earlier
        versions wrote it: see :mod:`jdsl.trace.canonical`)."""
        if self.event_hash == self.compute_hash():
            return True
        legacy = event_text(self.__dict__, encode=canonical_json)
        return self.event_hash == digest(legacy)


def digest(text: str) -> str:
    """``sha256:<hex>`` of UTF-8 ``text``."""
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def with_hash(text: str, event_hash: str | None) -> str:
    """``text`` (from :func:`~jdsl.trace.canonical.event_text`) with ``event_hash`` added at its
    sorted place, just before ``event_id``: the event's full canonical JSON."""
    cut = text.index(',"event_id":')  # no string value before it can hold this: quotes escape
    value = "null" if event_hash is None else f'"{event_hash}"'
    return f'{text[:cut]},"event_hash":{value}{text[cut:]}'


class EpisodeChain:
    """One episode's place in a sink: its next sequence, the chain's tail hash, an id prefix.

    Sinks commit an event with plain attribute stores followed by one list ``append``
    (``chain.next = seq + 1; chain.tail = h; kept.append(item)``): CPython delivers a
    KeyboardInterrupt, and switches threads, only between such steps at calls and jumps, so a
    Ctrl-C either keeps the event and advances the chain, or does neither (no gap, no repeat).
    Events a sink records itself get the id ``prefix + 12 hex digits of the sequence``: the
    prefix is 20 random hex digits per episode per sink, so ids stay unique without a uuid4
    per event.
    """

    __slots__ = ("capture_id", "episode_id", "next", "prefix", "tail")

    def __init__(self, capture_id: str, episode_id: str) -> None:
        self.capture_id = capture_id
        self.episode_id = episode_id
        self.next = 0
        self.tail: str | None = None
        self.prefix = os.urandom(10).hex()

    def restart(self, sequence: int) -> None:
        """Hand out ``sequence`` next."""
        self.next = sequence

    def event_id(self, sequence: int) -> str:
        """The id of this episode's event at ``sequence``."""
        return f"{self.prefix}{sequence:012x}"

    def parent_id(self, parent: str | int | None) -> str | None:
        """``parent`` as an event id: a sequence in this episode is turned into its id."""
        return self.event_id(parent) if isinstance(parent, int) else parent


class Chainer:
    """Per-episode sequence counters and hash-chain tails; thread-safe. One per sink."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._chains: dict[tuple[str, str], EpisodeChain] = {}
        self._resumed: dict[tuple[str, str], int] = {}

    def chain(self, capture_id: str, episode_id: str) -> EpisodeChain:
        """The state of one episode (created on first use)."""
        key = (capture_id, episode_id)
        found = self._chains.get(key)
        if found is None:
            with self._lock:
                found = self._chains.setdefault(key, EpisodeChain(capture_id, episode_id))
        return found

    @staticmethod
    def seal(chain: EpisodeChain, event: TraceEvent) -> str:
        """Give ``event`` the chain's next sequence and tail, and its hash; the chain itself is
        not advanced (the caller commits: ``chain.next = event.sequence + 1; chain.tail =
        hash``, then keeps the event)."""
        fields = event.__dict__
        fields["sequence"] = chain.next
        fields["prev_event_hash"] = chain.tail
        fields["event_hash"] = event_hash = event.compute_hash()
        return event_hash

    def stamp(self, event: TraceEvent) -> TraceEvent:
        """Assign the next sequence and link the event into its episode's chain, in place."""
        chain = self.chain(event.capture_id, event.episode_id)
        with self._lock:
            event_hash = self.seal(chain, event)
            chain.next = event.sequence + 1
            chain.tail = event_hash
        return event

    @staticmethod
    def link(chain: EpisodeChain, event: TraceEvent) -> None:
        """Hash ``event`` (its sequence already set) onto the tail of ``chain``."""
        fields = event.__dict__
        fields["prev_event_hash"] = chain.tail
        fields["event_hash"] = chain.tail = event.compute_hash()

    def observe(self, event: TraceEvent) -> None:
        """Continue the chain after an already stamped event (e.g. one read back from a file).

        For a sink reading its file back before it stamps anything.
        """
        chain = self.chain(event.capture_id, event.episode_id)
        key = (event.capture_id, event.episode_id)
        with self._lock:
            if event.sequence >= self._resumed.get(key, 0):
                self._resumed[key] = event.sequence + 1
                chain.restart(event.sequence + 1)
                chain.tail = event.event_hash
