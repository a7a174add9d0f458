"""Trace sinks: where events go. A sink stamps each event (sequence, hash chain) and keeps it.

The protocol is one method, ``emit(event) -> TraceEvent``, returning the stamped event so the
caller can link later events to it (``parent_event_id``). The sinks here split ``emit`` into
three steps so they compose: ``prepare`` (make the payload JSON, redact, move large values to
the blob store), stamping (:class:`~jdsl.trace.events.Chainer`), and ``append`` (keep an event
that is already stamped). Redaction happens before stamping, so the chain covers what is kept.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol, runtime_checkable

from jdsl.trace.blobs import DEFAULT_BLOB_THRESHOLD, BlobStore, offload
from jdsl.trace.events import (
    ACTORS,
    RUNTIME_ACTORS,
    Actor,
    Chainer,
    Timestamps,
    TraceEvent,
    actor_error,
)
from jdsl.trace.interrupts import interrupts_held
from jdsl.trace.redact import Redactor
from jdsl.trace.shared import thaw
from jdsl.trace.values import jsonable

__all__ = [
    "BaseTraceSink",
    "EmitRecorder",
    "FanoutSink",
    "ListTraceSink",
    "NullTraceSink",
    "Parent",
    "Recorder",
    "SafeSink",
    "TraceSink",
    "recorder_for",
]

Parent = str | int | None
"""What a recorded event answers: an event id, the sequence of an event recorded earlier in the
same episode, or nothing."""

Recorder = Callable[..., int]
"""``record(kind, payload, parent=None, actor=None) -> sequence``: one episode's fast path.

``payload`` is JSON data the event now owns (see :func:`jsonable`), or a payload the runtime
shares between the runs of one tree: a :class:`~jdsl.trace.shared.JsonText` or a
:class:`~jdsl.trace.shared.Filled` template (``node.enter`` / ``node.exit``, the tool-call
events, ``episode.started``). Neither may be changed; :func:`~jdsl.trace.shared.thaw` gives
plain data the recorder owns (:class:`EmitRecorder` thaws them, so ``emit`` always receives
plain data). It is still redacted and offloaded as the sink is configured. ``parent`` is a
:data:`Parent`; ``actor`` None picks the
runtime's actor for the kind (:data:`~jdsl.trace.events.RUNTIME_ACTORS`). The event's id is
derived from its episode and sequence. Get one from :func:`recorder_for`.
"""


@runtime_checkable
class TraceSink(Protocol):
    """Anything with ``emit(event) -> TraceEvent``."""

    def emit(self, event: TraceEvent) -> TraceEvent: ...


class BaseTraceSink:
    """A sink that prepares, stamps and appends; subclasses implement :meth:`append`.

    Two ways in: :meth:`emit` takes a :class:`TraceEvent` and returns it stamped; a sink may
    also offer ``recorder(capture_id, episode_id) -> Recorder | None``, the runtime's fast path
    (see :data:`Recorder` and :func:`recorder_for`), which takes the parts of each event and
    lets the sink build, hash or write it as it sees fit.

    Args:
        redactor: applied to every payload before it is stamped; None keeps payloads as given.
        blob_store: where payload values over ``blob_threshold_bytes`` go; None keeps them inline.
        blob_threshold_bytes: bytes of canonical JSON above which a value is moved.
    """

    def __init__(
        self,
        *,
        redactor: Redactor | None = None,
        blob_store: BlobStore | None = None,
        blob_threshold_bytes: int = DEFAULT_BLOB_THRESHOLD,
    ) -> None:
        self.redactor = redactor
        self.blob_store = blob_store
        self.blob_threshold_bytes = blob_threshold_bytes
        self._chainer = Chainer()
        self._lock = threading.RLock()
        self._clock = Timestamps()

    def prepare(self, event: TraceEvent) -> TraceEvent:
        """Make the payload JSON data, redact it, and move large values out, in place."""
        payload, refs = self.finish_payload(jsonable(event.payload))
        if refs:
            event.blob_refs = [*event.blob_refs, *(r for r in refs if r not in event.blob_refs)]
        event.payload = payload
        return event

    def finish_payload(self, payload: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """Redact JSON data and move large values to the blob store: ``(payload, blob refs)``."""
        if self.redactor is not None:
            payload = self.redactor.redact(payload)
        if self.blob_store is not None:
            return offload(payload, self.blob_store, self.blob_threshold_bytes)
        return payload, []

    def append(self, event: TraceEvent) -> None:
        """Keep an event that is already stamped."""
        raise NotImplementedError

    def emit(self, event: TraceEvent) -> TraceEvent:
        """Prepare, stamp and append ``event``; returns it (the same object, stamped).

        If ``append`` fails, the stamp is rolled back, so the events that were kept still form
        an unbroken chain.
        """
        with self._lock:
            self.prepare(event)
            chain = self._chainer.chain(event.capture_id, event.episode_id)
            sequence, previous = chain.next, chain.tail
            event_hash = self._chainer.seal(chain, event)
            kept = self._keeper(event)
            if kept is not None:  # commit and keep with no interruption point in between
                chain.next = sequence + 1
                chain.tail = event_hash
                kept[0].append(kept[1])
                return event
            chain.next = sequence + 1
            chain.tail = event_hash
            try:
                self.append(event)
            except BaseException:
                if chain.tail == event_hash:  # an event not kept leaves no gap in the chain
                    chain.next, chain.tail = sequence, previous
                raise
        return event

    def _keeper(self, event: TraceEvent) -> tuple[list[Any], Any] | None:
        """``(list, item)``: keeping the stamped ``event`` is appending ``item`` to ``list``.

        A sink that keeps events that way lets :meth:`emit` commit the chain and keep the
        event in one uninterruptible step; None (the default) calls :meth:`append`.
        """
        return None

    def _overrides(self, cls: type, *names: str) -> bool:
        """Whether a subclass of ``cls`` replaced one of the named methods."""
        return any(getattr(type(self), n) is not getattr(cls, n) for n in names)


class ListTraceSink(BaseTraceSink):
    """Keeps events in memory, in emission order, in ``.events``.

    Events that come through a :meth:`recorder` (the runtime's node, tool and blackboard
    events) are kept as their parts, numbered at once; they become :class:`TraceEvent` objects
    hashed into the chain when the events are read (``.events``, :meth:`seal`), so a run pays
    for hashing once, when its events are used. Events given to :meth:`emit` are returned
    stamped at once, as from any sink.
    """

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._events: list[TraceEvent] = []
        self._pending: list[tuple[Any, ...]] = []

    @property
    def events(self) -> list[TraceEvent]:
        """Every event kept, stamped and hashed, in emission order (the live list)."""
        if self._pending:
            self.seal()
        return self._events

    @events.setter
    def events(self, events: list[TraceEvent]) -> None:
        with self._lock:
            self.seal()
            self._events = events

    def append(self, event: TraceEvent) -> None:
        """Keep a stamped event."""
        self._events.append(event)

    def _keeper(self, event: TraceEvent) -> tuple[list[Any], Any] | None:
        return None if self._overrides(ListTraceSink, "append") else (self._events, event)

    def emit(self, event: TraceEvent) -> TraceEvent:
        """Stamp and keep ``event`` after the recorded events before it; returns it."""
        with self._lock:
            if self._pending:
                self.seal()
            return super().emit(event)

    def recorder(self, capture_id: str, episode_id: str) -> Recorder | None:
        """A :data:`Recorder` for one episode: numbers each event and keeps its parts.

        None when a subclass changed ``prepare``, ``append`` or ``emit`` (use ``emit`` then).
        """
        if self._overrides(ListTraceSink, "prepare", "append", "emit"):
            return None
        chain = self._chainer.chain(capture_id, episode_id)
        keep = self._pending.append
        finish = self.finish_payload
        plain = self.redactor is None and self.blob_store is None
        now = time.time_ns

        def record(
            kind: str, payload: dict[str, Any], parent: Parent = None, actor: Actor | None = None
        ) -> int:
            if actor is not None and actor not in ACTORS:
                raise actor_error(actor)
            refs = None
            if not plain:
                payload, refs = finish(thaw(payload))
            ns = now()
            # Numbering and keeping with no call or jump between: neither a Ctrl-C nor a
            # thread switch can come between them (see EpisodeChain).
            sequence = chain.next
            chain.next = sequence + 1
            keep((chain, sequence, kind, payload, parent, actor, ns, refs))
            return sequence

        return record

    def seal(self) -> None:
        """Build the recorded events onto ``.events`` and hash each episode's chain in order."""
        with self._lock:
            pending = self._pending[:]
            del self._pending[: len(pending)]  # events recorded meanwhile stay pending
            clock, out, made = self._clock, self._events, []
            for chain, seq, kind, payload, parent, actor, ns, refs in pending:
                event = TraceEvent.unchecked(
                    kind, chain.capture_id, chain.episode_id, thaw(payload),
                    event_id=chain.event_id(seq), timestamp=clock.format(ns),
                    actor=actor or RUNTIME_ACTORS.get(kind, "system"),
                    parent_event_id=chain.parent_id(parent), sequence=seq, blob_refs=refs,
                )  # fmt: skip
                made.append((chain, event))
            link = self._chainer.link
            for chain, event in sorted(made, key=_by_sequence):  # a chain links in sequence order
                link(chain, event)
            out.extend(event for _, event in made)

    def episode(self, episode_id: str) -> list[TraceEvent]:
        """The events of one episode, in order."""
        return [e for e in self.events if e.episode_id == episode_id]


class NullTraceSink:
    """Drops every event (returned unstamped)."""

    def emit(self, event: TraceEvent) -> TraceEvent:
        """Drop ``event``."""
        return event

    def append(self, event: TraceEvent) -> None:
        """Drop ``event``."""


class FanoutSink:
    """Sends each event to several sinks; the first stamps, the others get the stamped event.

    Every sink's ``prepare`` runs before the first sink stamps, so a redacting JSONL sink in
    any position never receives a secret, and all sinks hold the same hashes.

    Args:
        *sinks: one or more sinks. A sink without ``append`` receives ``emit`` (and stamps
            its own copy of the chain).
    """

    def __init__(self, *sinks: TraceSink) -> None:
        if not sinks:
            raise ValueError("FanoutSink needs at least one sink, e.g. FanoutSink(ListTraceSink())")
        self.sinks = sinks
        self._lock = threading.RLock()

    def prepare(self, event: TraceEvent) -> TraceEvent:
        """Every sink's preparation, in order."""
        return _prepare(self.sinks, event)

    def append(self, event: TraceEvent) -> None:
        """Give a stamped event to every sink."""
        for sink in self.sinks:
            _append(sink, event)

    def emit(self, event: TraceEvent) -> TraceEvent:
        """Prepare through every sink, stamp with the first, hand the result to the rest."""
        first, *rest = self.sinks
        with self._lock, interrupts_held():  # a Ctrl-C reaches every sink or none
            event = first.emit(_prepare(rest, event))
            for sink in rest:
                _append(sink, event)
        return event


class SafeSink:
    """Wraps a sink so that its failures never break the run (telemetry fails open).

    A failed ``emit`` returns the event as given, adds one to ``.errors`` and, when ``warn``,
    writes one line to stderr naming the event and the error.

    Args:
        inner: the sink to protect.
        warn: whether to report each dropped event on stderr.
    """

    def __init__(self, inner: TraceSink, *, warn: bool = True) -> None:
        self.inner = inner
        self.warn = warn
        self.errors = 0
        self.last_error: BaseException | None = None

    def prepare(self, event: TraceEvent) -> TraceEvent:
        """The inner sink's preparation, or ``event`` unchanged when it fails."""
        prepare = getattr(self.inner, "prepare", None)
        try:
            return prepare(event) if prepare is not None else event
        except Exception as exc:  # noqa: BLE001 - fail open
            self._dropped(event, exc)
            return event

    def append(self, event: TraceEvent) -> None:
        """Hand a stamped event to the inner sink; failures are counted."""
        try:
            _append(self.inner, event)
        except Exception as exc:  # noqa: BLE001 - fail open
            self._dropped(event, exc)

    def emit(self, event: TraceEvent) -> TraceEvent:
        """Emit through the inner sink; on failure return ``event`` and count the drop."""
        try:
            return self.inner.emit(event)
        except Exception as exc:  # noqa: BLE001 - fail open
            self._dropped(event, exc)
            return event

    def _dropped(self, event: TraceEvent, exc: Exception) -> None:
        self.errors += 1
        self.last_error = exc
        if self.warn:
            print(
                f"jdsl.trace: dropped {event.kind} event of episode {event.episode_id!r} "
                f"({type(exc).__name__}: {exc}); the run continues",
                file=sys.stderr,
            )


class EmitRecorder:
    """A :data:`Recorder` for a sink that only has ``emit`` (a wrapper, a fan-out, a user's).

    Builds each event and emits it, remembering event ids by sequence so a later event can
    name its parent by sequence, as with a sink's own recorder.

    Args:
        sink: any :class:`TraceSink`.
        capture_id, episode_id: the episode the events belong to.
    """

    def __init__(self, sink: TraceSink, capture_id: str, episode_id: str) -> None:
        self.sink = sink
        self.capture_id = capture_id
        self.episode_id = episode_id
        self._prefix = os.urandom(10).hex()
        self._count = itertools.count()
        self._ids: dict[int, str] = {}
        self._clock = Timestamps()

    def __call__(
        self, kind: str, payload: dict[str, Any], parent: Parent = None, actor: Actor | None = None
    ) -> int:
        """Emit one event through the sink; returns the sequence it was given."""
        if actor is not None and actor not in ACTORS:
            raise actor_error(actor)
        event = TraceEvent.unchecked(
            kind, self.capture_id, self.episode_id, thaw(payload),
            event_id=f"{self._prefix}{next(self._count):012x}", timestamp=self._clock.now(),
            actor=actor or RUNTIME_ACTORS.get(kind, "system"),
            parent_event_id=self._ids.get(parent) if isinstance(parent, int) else parent,
        )  # fmt: skip
        stamped = self.sink.emit(event)
        self._ids[stamped.sequence] = stamped.event_id
        return stamped.sequence


def recorder_for(sink: TraceSink, capture_id: str, episode_id: str) -> Recorder:
    """The sink's own :data:`Recorder` for the episode, else an :class:`EmitRecorder`."""
    own = getattr(sink, "recorder", None)
    found = own(capture_id, episode_id) if callable(own) else None
    return found if found is not None else EmitRecorder(sink, capture_id, episode_id)


def _by_sequence(item: tuple[Any, TraceEvent]) -> int:
    return item[1].sequence


def _prepare(sinks: Iterable[Any], event: TraceEvent) -> TraceEvent:
    for sink in sinks:
        prepare = getattr(sink, "prepare", None)
        if prepare is not None:
            event = prepare(event)
    return event


def _append(sink: Any, event: TraceEvent) -> None:
    append = getattr(sink, "append", None)
    if append is not None:
        append(event)
    else:
        sink.emit(event)
