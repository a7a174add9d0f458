"""Trace sinks: where events go. A sink stamps each event (sequence, hash chain) and keeps it.

The protocol is one method, ``emit(event) -> TraceEvent``, returning the stamped event so the
caller can link later events to it (``parent_event_id``). The sinks here split ``emit`` into
three steps so they compose: ``prepare`` (make the payload JSON, redact, move large values to
the blob store), stamping (:class:`~jdsl.trace.events.Chainer`), and ``append`` (keep an event
that is already stamped). Redaction happens before stamping, so the chain covers what is kept.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from jdsl.trace.blobs import DEFAULT_BLOB_THRESHOLD, BlobStore, offload
from jdsl.trace.events import Chainer, TraceEvent
from jdsl.trace.redact import Redactor
from jdsl.trace.values import jsonable

__all__ = [
    "BaseTraceSink",
    "FanoutSink",
    "ListTraceSink",
    "NullTraceSink",
    "SafeSink",
    "TraceSink",
]


@runtime_checkable
class TraceSink(Protocol):
    """Anything with ``emit(event) -> TraceEvent``."""

    def emit(self, event: TraceEvent) -> TraceEvent: ...


class BaseTraceSink:
    """A sink that prepares, stamps and appends; subclasses implement :meth:`append`.

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

    def prepare(self, event: TraceEvent) -> TraceEvent:
        """Make the payload JSON data, redact it, and move large values out, in place."""
        payload = jsonable(event.payload)
        if self.redactor is not None:
            payload = self.redactor.redact(payload)
        if self.blob_store is not None:
            payload, refs = offload(payload, self.blob_store, self.blob_threshold_bytes)
            event.blob_refs = [*event.blob_refs, *(r for r in refs if r not in event.blob_refs)]
        event.payload = payload
        return event

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
            self._chainer.stamp(event)
            try:
                self.append(event)
            except BaseException:
                self._chainer.rollback(event)  # an event not kept leaves no gap in the chain
                raise
        return event


class ListTraceSink(BaseTraceSink):
    """Keeps events in memory, in emission order, in ``.events``."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.events: list[TraceEvent] = []

    def append(self, event: TraceEvent) -> None:
        """Keep a stamped event."""
        self.events.append(event)

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
        with self._lock:
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
