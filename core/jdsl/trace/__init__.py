"""Traces: events, sinks, episodes. See DESIGN.md §5."""

from jdsl.trace.events import (
    SCHEMA_VERSION,
    Chainer,
    EventKind,
    EventSource,
    TraceEvent,
    canonical_json,
)
from jdsl.trace.sinks import ListTraceSink, TraceSink

__all__ = [
    "SCHEMA_VERSION",
    "Chainer",
    "EventKind",
    "EventSource",
    "ListTraceSink",
    "TraceEvent",
    "TraceSink",
    "canonical_json",
]
