"""Tamper detection: checking each episode's hash chain and sequence numbers."""

from __future__ import annotations

from collections.abc import Iterable

from jdsl.trace.events import TraceEvent

__all__ = ["check_chain", "verify_chain"]


def verify_chain(events: Iterable[TraceEvent]) -> list[str]:
    """Every problem in the hash chains of ``events``; an empty list means intact.

    Events are grouped by ``(capture_id, episode_id)`` and ordered by ``sequence``. Within an
    episode, sequences must run 0, 1, 2, ... with no gap or repeat, each event's
    ``event_hash`` must match its content, and each ``prev_event_hash`` must equal the hash of
    the event before it (None for the first). Editing any stored field of any event, or
    dropping or reordering events, therefore shows up as a problem.

    Verify events as stored: hydrated events (:func:`jdsl.trace.hydrate`) no longer match
    their hashes.

    Args:
        events: stamped events, e.g. ``read_events(path)``.

    Returns:
        One readable line per problem, naming the episode, sequence and event id.
    """
    episodes: dict[tuple[str, str], list[TraceEvent]] = {}
    for event in events:
        episodes.setdefault((event.capture_id, event.episode_id), []).append(event)
    problems: list[str] = []
    for (capture_id, episode_id), group in episodes.items():
        where = f"episode {episode_id!r} of capture {capture_id!r}"
        problems.extend(check_chain(where, sorted(group, key=lambda e: e.sequence)))
    return problems


def check_chain(
    where: str, group: list[TraceEvent], expected_seq: int = 0, prev_hash: str | None = None
) -> list[str]:
    """The problems of one episode's events (ordered by sequence) as a chain.

    Args:
        where: names the episode in each problem line.
        group: the events, by sequence.
        expected_seq, prev_hash: what the first event's ``sequence`` and ``prev_event_hash``
            must be (a later run split off a reused episode id continues an earlier chain).
    """
    problems: list[str] = []
    if group and _continues_elsewhere(group[0], expected_seq, prev_hash):
        first = group[0]
        problems.append(
            f"{where}, sequence {first.sequence} ({first.kind}, event {first.event_id}): this "
            "run continues the hash chain of an earlier run recorded under the same episode "
            "id; verify the whole file (verify_chain(read_events(path))) or the split episode "
            "(read_events(path).episodes[i].verify())"
        )
        expected_seq, prev_hash = first.sequence, first.prev_event_hash
    for event in group:
        at = f"{where}, sequence {event.sequence} ({event.kind}, event {event.event_id})"
        if event.sequence != expected_seq:
            gap = "repeated" if event.sequence < expected_seq else f"expected {expected_seq}"
            problems.append(f"{at}: sequence {gap}; events are missing or duplicated")
        if not event.verify_hash():
            problems.append(f"{at}: event_hash does not match the content; the event was edited")
        if event.prev_event_hash != prev_hash:
            problems.append(f"{at}: prev_event_hash does not link to the previous event")
        expected_seq = event.sequence + 1
        prev_hash = event.event_hash
    return problems


def _continues_elsewhere(first: TraceEvent, expected_seq: int, prev_hash: str | None) -> bool:
    """A fresh chain that starts with an ``episode.started`` linked to an unseen event."""
    return (
        expected_seq == 0
        and prev_hash is None
        and first.kind == "episode.started"
        and first.sequence > 0
        and first.prev_event_hash is not None
    )
