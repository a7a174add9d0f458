"""What the compiler reads: episodes as plain ordered event records.

The passes work on :class:`EventRecord` s (kind, sequence, payload, ids, actor) so they run the
same over a :class:`jdsl.trace.Episode` read from a JSONL trace, over events built by hand in a
test, or over dicts parsed straight from JSON. Payloads follow docs/ARCHITECTURE.md ("Event
payloads the runtime emits").
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from jdsl.compiler.errors import CompileInputError
from jdsl.errors import preview
from jdsl.trace import Episode, TraceEvent, hydrate

__all__ = [
    "EpisodeLike",
    "EpisodeRecords",
    "EventLike",
    "EventRecord",
    "as_records",
    "records_of",
]


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One event, reduced to what the compiler reads."""

    kind: str
    sequence: int
    payload: Mapping[str, Any]
    event_id: str | None = None
    parent_event_id: str | None = None
    actor: str = "system"


class EventLike(Protocol):
    """What the passes read of an event: an :class:`EventRecord` or a ``TraceEvent``."""

    @property
    def kind(self) -> str: ...
    @property
    def sequence(self) -> int: ...
    @property
    def payload(self) -> Mapping[str, Any]: ...
    @property
    def event_id(self) -> str | None: ...
    @property
    def parent_event_id(self) -> str | None: ...


@dataclass(frozen=True)
class EpisodeRecords:
    """One episode's events by sequence (trace events are used as they are, not copied)."""

    episode_id: str
    events: tuple[EventLike, ...]


@runtime_checkable
class _HasEvents(Protocol):
    episode_id: str
    events: Any


EpisodeLike = Episode | EpisodeRecords | Mapping[str, Any]
"""An :class:`~jdsl.trace.Episode`, an :class:`EpisodeRecords`, or a mapping
``{"episode_id": str, "events": [event dict, ...]}``."""


def as_records(episode: EpisodeLike | Any) -> EpisodeRecords:
    """Read any supported episode form as :class:`EpisodeRecords` (events by sequence).

    Events of a trace :class:`~jdsl.trace.Episode` with a blob store get their full values
    back (the compiler needs the whole tool result, not its preview).

    Raises:
        CompileInputError: an object that is none of the supported forms (a TypeError too).
    """
    if isinstance(episode, EpisodeRecords):
        return episode
    if isinstance(episode, Episode):
        events: Iterable[TraceEvent] = episode.ordered()
        store = episode.blob_store
        if store is not None:
            events = [hydrate(e, store) if e.blob_refs else e for e in events]
        return EpisodeRecords(episode.episode_id, tuple(events))
    if isinstance(episode, Mapping) and "events" in episode:
        records = sorted((_record(e) for e in episode["events"]), key=lambda r: r.sequence)
        return EpisodeRecords(str(episode.get("episode_id", "episode")), tuple(records))
    if isinstance(episode, _HasEvents):
        records = sorted((_record(e) for e in episode.events), key=lambda r: r.sequence)
        return EpisodeRecords(str(episode.episode_id), tuple(records))
    hint = (" (trace paths are given alone or all together, not mixed with episodes)"
            if isinstance(episode, str | os.PathLike) else "")  # fmt: skip
    raise CompileInputError(
        f"cannot read {type(episode).__name__} as an episode ({preview(episode)}){hint}; pass "
        "a jdsl.trace.Episode (e.g. read_events(path).episodes) or "
        "{'episode_id': ..., 'events': [...]}"
    )


def _record(event: TraceEvent | Mapping[str, Any]) -> EventRecord:
    if isinstance(event, TraceEvent):
        return EventRecord(
            event.kind,
            event.sequence,
            event.payload,
            event.event_id,
            event.parent_event_id,
            event.actor,
        )
    return EventRecord(
        str(event["kind"]),
        int(event.get("sequence", 0)),
        event.get("payload") or {},
        event.get("event_id"),
        event.get("parent_event_id"),
        str(event.get("actor", "system")),
    )


def records_of(episodes: Sequence[EpisodeLike | Any]) -> list[EpisodeRecords]:
    """:func:`as_records` over many episodes, dropping control episodes (ids starting ``_``)."""
    return [r for r in map(as_records, episodes) if not r.episode_id.startswith("_")]
