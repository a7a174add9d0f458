"""Trace sinks: where events go. A sink stamps each event (sequence, hash chain) and keeps it.

The protocol is one method, ``emit(event) -> TraceEvent``, returning the stamped event so the
caller can link later events to it (``parent_event_id``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from jdsl.trace.events import Chainer, TraceEvent

__all__ = ["ListTraceSink", "TraceSink"]


@runtime_checkable
class TraceSink(Protocol):
    """Anything with ``emit(event) -> TraceEvent``."""

    def emit(self, event: TraceEvent) -> TraceEvent: ...


class ListTraceSink:
    """Keeps events in memory, in emission order, in ``.events``."""

    def __init__(self) -> None:
        self.events: list[TraceEvent] = []
        self._chainer = Chainer()

    def emit(self, event: TraceEvent) -> TraceEvent:
        self._chainer.stamp(event)
        self.events.append(event)
        return event

    def episode(self, episode_id: str) -> list[TraceEvent]:
        """The events of one episode, in order."""
        return [e for e in self.events if e.episode_id == episode_id]
