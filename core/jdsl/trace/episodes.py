"""Episodes: the events of one run, and views of them (tool calls, model calls, blackboard).

An episode is every event sharing an ``episode_id`` (and ``capture_id``), up to the next
``episode.started`` of that id: a run that reused an earlier run's id is its own episode (see
:func:`segment_episodes`). The views read the payloads of docs/ARCHITECTURE.md ("Event payloads
the runtime emits").
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jdsl.trace.blobs import BlobStore, hydrate
from jdsl.trace.chain import check_chain
from jdsl.trace.events import EventKind, TraceEvent
from jdsl.trace.messages import RequestMessages

__all__ = [
    "Episode",
    "EpisodeSegmenter",
    "ModelCall",
    "ToolInvocation",
    "new_episode_id",
    "part_id",
    "segment_episodes",
]


def new_episode_id() -> str:
    """A fresh episode id, ``ep_<12 hex>`` (random; what a run uses when given none)."""
    return f"ep_{os.urandom(6).hex()}"


_PASSING_VERDICTS = frozenset({"pass", "passed", "success", "succeeded", "true", "ok", "yes"})
_FINISHED = (EventKind.TOOL_CALL_COMPLETED, EventKind.TOOL_CALL_FAILED)
_STARTS = (EventKind.TOOL_CALL_STARTED, EventKind.MODEL_REQUESTED)


@dataclass
class ToolInvocation:
    """One tool call: its start paired with its completion or failure.

    Attributes:
        logical_id / host_name: the tool's names (``tool`` of the payload).
        arguments: keyword arguments as called.
        result: the returned value (None when failed or never finished).
        error / error_type: the failure, when it failed.
        ok: True when the call completed.
        finished: False when the episode ends before the call returned.
        sequence: the start event's sequence.
        node_id / store: the calling node and the blackboard key the result went to.
        event_id: the start event's id.
    """

    logical_id: str | None
    host_name: str | None
    arguments: dict[str, Any]
    result: Any = None
    error: Any = None
    error_type: str | None = None
    ok: bool = True
    finished: bool = True
    sequence: int = 0
    node_id: str | None = None
    store: str | None = None
    event_id: str | None = None

    @property
    def name(self) -> str:
        """The logical id, else the host name, else ``"unknown"``."""
        return self.logical_id or self.host_name or "unknown"


@dataclass
class ModelCall:
    """One model request and its response (None when the episode ended before it came back).

    ``request`` is the ``model.requested`` payload as recorded: for a request that continues
    an earlier one (``jdsl.trace.v2``) its ``messages`` are only the new ones; :attr:`messages`
    is the whole list sent.
    """

    request: dict[str, Any]
    response: dict[str, Any] | None
    sequence: int = 0
    event_id: str | None = None
    requests: RequestMessages | None = field(default=None, repr=False, compare=False)

    @property
    def messages(self) -> list[Any]:
        """Every message the request sent (:func:`jdsl.trace.request_messages`).

        Raises:
            RequestMessagesError: the request continues one that is not in the episode.
        """
        event = {"kind": EventKind.MODEL_REQUESTED, "event_id": self.event_id,
                 "payload": self.request}  # fmt: skip
        return (self.requests or RequestMessages()).messages(event)

    @property
    def node_id(self) -> str | None:
        """The Predict / React node that asked."""
        return self.request.get("node_id")

    @property
    def usage(self) -> dict[str, Any] | None:
        """The response's token usage, when reported."""
        return (self.response or {}).get("usage")


@dataclass
class Episode:
    """The events of one episode, with views over them.

    Attributes:
        episode_id: the episode. For a later run recorded under a reused id it is derived
            (``ep_local#2``); the events keep the id they were recorded with
            (:attr:`recorded_id`).
        events: its events as stored, in the order given (see :meth:`ordered`).
        blob_store: when set, the views (:meth:`of_kind` and everything built on it) load
            values that were moved to the blob store, so a 5 MB tool result comes back whole.
        chain_start: ``(sequence, prev_event_hash)`` its first event must have: ``(0, None)``,
            or for a later run that continued an earlier run's hash chain under the same id,
            the next sequence and the hash of that run's last event (see :meth:`verify`).
    """

    episode_id: str
    events: list[TraceEvent] = field(default_factory=list)
    blob_store: BlobStore | None = field(default=None, repr=False, compare=False)
    chain_start: tuple[int, str | None] = field(default=(0, None), repr=False, compare=False)

    def __iter__(self) -> Iterator[TraceEvent]:
        return iter(self.ordered())

    def __len__(self) -> int:
        return len(self.events)

    def ordered(self) -> list[TraceEvent]:
        """The events by ``sequence``."""
        return sorted(self.events, key=lambda e: e.sequence)

    def of_kind(self, *kinds: str) -> list[TraceEvent]:
        """The events of the given kinds, by sequence, with blob values loaded (if a store)."""
        found = [e for e in self.ordered() if e.kind in kinds]
        store = self.blob_store
        return found if store is None else [hydrate(e, store) for e in found]

    @property
    def recorded_id(self) -> str:
        """The ``episode_id`` its events carry (differs from :attr:`episode_id` when split)."""
        return self.events[0].episode_id if self.events else self.episode_id

    def verify(self) -> list[str]:
        """The problems in this episode's hash chain, from :attr:`chain_start`; empty = intact.

        Unlike :func:`~jdsl.trace.verify_chain` over its events alone, this verifies a later
        run split off a reused episode id (whose chain continues the earlier run's).
        """
        where = f"episode {self.episode_id!r} of capture {self.capture_id!r}"
        start_sequence, start_hash = self.chain_start
        return check_chain(where, self.ordered(), start_sequence, start_hash)

    @property
    def capture_id(self) -> str | None:
        """The capture the episode belongs to."""
        return self.events[0].capture_id if self.events else None

    @property
    def is_control(self) -> bool:
        """Control episodes (ids starting with ``_``) hold capture bookkeeping, not a run."""
        return self.episode_id.startswith("_")

    @property
    def started(self) -> dict[str, Any]:
        """The ``episode.started`` payload (empty when missing)."""
        found = self.of_kind(EventKind.EPISODE_STARTED)
        return dict(found[0].payload) if found else {}

    @property
    def finished(self) -> dict[str, Any]:
        """The ``episode.finished`` payload (empty when the run never finished)."""
        found = self.of_kind(EventKind.EPISODE_FINISHED)
        return dict(found[-1].payload) if found else {}

    @property
    def complete(self) -> bool:
        """Whether the run's end is recorded: an ``episode.finished`` (a reward or verdict
        alone is not the end: the line after it may be what a cut file lost). False for a run
        cut off mid-run (a truncated trace file, a killed process): its :attr:`status` is None
        too, and so is the status of a finished run that recorded none, which is complete."""
        return any(e.kind == EventKind.EPISODE_FINISHED for e in self.events)

    @property
    def skill(self) -> str | None:
        """The root's name."""
        return self.started.get("skill")

    @property
    def inputs(self) -> dict[str, Any]:
        """The run inputs."""
        return dict(self.started.get("inputs") or {})

    @property
    def ir(self) -> dict[str, Any] | None:
        """The tree's Behavior IR, when recorded."""
        return self.started.get("ir")

    @property
    def status(self) -> str | None:
        """How the run ended: success / failure / error / cancelled; None if unfinished
        (or the finish recorded no status: :attr:`complete` tells the two apart)."""
        return self.finished.get("status")

    def tool_calls(self) -> list[ToolInvocation]:
        """Tool calls in start order, each paired with its completion or failure.

        Pairing follows ``parent_event_id``; an end event without a known parent closes the
        most recent open call.
        """
        events = self.of_kind(EventKind.TOOL_CALL_STARTED, *_FINISHED)
        return [_invocation(start, end) for start, end in _pairs(events)]

    def model_calls(self) -> list[ModelCall]:
        """Model requests in order, each with its response (paired like tool calls)."""
        events = self.of_kind(EventKind.MODEL_REQUESTED, EventKind.MODEL_RESPONDED)
        requests = RequestMessages(events)
        return [
            ModelCall(
                request=dict(start.payload) if start else {},
                response=dict(end.payload) if end else None,
                sequence=_anchor(start, end).sequence,
                event_id=start.event_id if start else None,
                requests=requests,
            )
            for start, end in _pairs(events)
        ]

    def blackboard_states(self) -> list[tuple[int, dict[str, Any]]]:
        """``(sequence, blackboard)`` after each ``blackboard.write``, cumulative.

        Each state is its own dict, so this costs writes x keys; for the end state alone use
        :meth:`final_blackboard` (one pass). Seeded run inputs are not writes and are not
        included (see :attr:`inputs`).
        """
        state: dict[str, Any] = {}
        return [(sequence, dict(state)) for sequence in self._fold_writes(state)]

    def final_blackboard(self, *, include_inputs: bool = False) -> dict[str, Any]:
        """The blackboard after the last write (with the run inputs under it, if asked)."""
        written: dict[str, Any] = {}
        for _ in self._fold_writes(written):
            pass
        return {**self.inputs, **written} if include_inputs else written

    def _fold_writes(self, state: dict[str, Any]) -> Iterator[int]:
        """Apply each write to ``state`` in order, yielding its sequence after applying it."""
        for event in self.of_kind(EventKind.BLACKBOARD_WRITE):
            key = event.payload.get("key")
            if isinstance(key, str):
                state[key] = event.payload.get("value")
                yield event.sequence

    def outcome(self) -> dict[str, Any] | None:
        """The last ``environment.reward`` / ``environment.verdict`` payload, or None."""
        found = self.of_kind(EventKind.ENVIRONMENT_REWARD, EventKind.ENVIRONMENT_VERDICT)
        return dict(found[-1].payload) if found else None

    def succeeded(self) -> bool | None:
        """Whether the episode succeeded.

        Order of evidence: an outcome's ``passed`` flag (the source's own reading of its
        reward, e.g. tau-bench's reward 1.0), a reward (> 0 succeeds), a verdict (pass / success / true / ok
        succeed), then the ``episode.finished`` status. None when there is no evidence.
        """
        outcome = self.outcome()
        if outcome is not None and isinstance(outcome.get("passed"), bool):
            return bool(outcome["passed"])
        if outcome is not None and outcome.get("reward") is not None:
            return float(outcome["reward"]) > 0
        if outcome is not None and outcome.get("verdict") is not None:
            return str(outcome["verdict"]).strip().lower() in _PASSING_VERDICTS
        status = self.status
        return None if status is None else status == "success"


def segment_episodes(
    events: Iterable[TraceEvent], *, blob_store: BlobStore | None = None
) -> list[Episode]:
    """Group events into episodes by ``(capture_id, episode_id)``, in first-seen order.

    An ``episode.started`` for an id whose current episode already started begins a new
    episode (runs that reused one id, e.g. an old default, stay separate runs): the first keeps
    the id, the later ones get ``<id>#2``, ``<id>#3``... (skipping ids the events use), and a
    ``chain_start`` so :meth:`Episode.verify` checks each one on its own.

    Args:
        events: stamped events in emission order, e.g. a :class:`~jdsl.trace.Trace`.
        blob_store: given to each episode so its views load large values.
    """
    events = list(events)
    taken = {event.episode_id for event in events}
    segmenter = EpisodeSegmenter()
    episodes: list[Episode] = []
    for event in events:
        index, part, start = segmenter.place(event)
        if start is not None:
            episodes.append(
                Episode(
                    part_id(event.episode_id, part, taken),
                    blob_store=blob_store,
                    chain_start=start,
                )
            )
        episodes[index].events.append(event)
    return episodes


class EpisodeSegmenter:
    """Places events into episodes one at a time, as :func:`segment_episodes` does.

    It keeps, per ``(capture_id, episode_id)``, only its current episode's number and chain
    tail, so a reader can segment a file it never holds whole.
    """

    def __init__(self) -> None:
        self._current: dict[tuple[str, str], list[Any]] = {}  # [index, started, last seq, hash]
        self._parts: dict[tuple[str, str], int] = {}
        self.count = 0

    def place(self, event: TraceEvent) -> tuple[int, int, tuple[int, str | None] | None]:
        """``(episode index, part number, chain_start)`` of ``event``.

        ``chain_start`` is None when the event joins an episode already begun; otherwise the
        event begins episode ``index`` (numbered in first-seen order), the ``part``-th under
        its id, whose chain starts at ``chain_start`` (see :attr:`Episode.chain_start`).
        """
        key = (event.capture_id, event.episode_id)
        current = self._current.get(key)
        starts = event.kind == EventKind.EPISODE_STARTED
        begun: tuple[int, str | None] | None = None
        if current is None or (starts and current[1]):
            begun = _continued(current, event)
            self._parts[key] = self._parts.get(key, 0) + 1
            current = self._current[key] = [self.count, False, -1, None]
            self.count += 1
        if event.sequence > current[2]:
            current[2], current[3] = event.sequence, event.event_hash
        current[1] = current[1] or starts
        return current[0], self._parts[key], begun


def part_id(episode_id: str, part: int, taken: set[str]) -> str:
    """``episode_id`` for the first part, else ``<id>#<n>`` not used by any event (added to
    ``taken``)."""
    if part == 1:
        return episode_id
    derived = f"{episode_id}#{part}"
    while derived in taken:
        part += 1
        derived = f"{episode_id}#{part}"
    taken.add(derived)
    return derived


def _continued(before: list[Any] | None, first: TraceEvent) -> tuple[int, str | None]:
    """Where a new part's chain starts: after ``before``'s last event, unless it starts fresh."""
    if before is None or (first.sequence == 0 and not first.prev_event_hash):
        return (0, None)
    return (before[2] + 1, before[3])


def _tool_names(payload: dict[str, Any]) -> tuple[str | None, str | None]:
    tool = payload.get("tool")
    if isinstance(tool, dict):
        return tool.get("logical_id"), tool.get("host_name")
    return None, tool if isinstance(tool, str) else payload.get("name")


def _pairs(events: list[TraceEvent]) -> list[tuple[TraceEvent | None, TraceEvent | None]]:
    """(start, end) pairs in start order; the first event kind of each pair is a start."""
    pairs: list[list[TraceEvent | None]] = []
    open_pairs: dict[str, list[TraceEvent | None]] = {}
    for event in events:
        if event.kind in _STARTS:
            pair: list[TraceEvent | None] = [event, None]
            pairs.append(pair)
            open_pairs[event.event_id] = pair
            continue
        found = open_pairs.pop(event.parent_event_id or "", None)
        if found is None and open_pairs:
            found = open_pairs.pop(next(reversed(open_pairs)))
        if found is None:
            pairs.append([None, event])
        else:
            found[1] = event
    return [(start, end) for start, end in pairs]


def _anchor(start: TraceEvent | None, end: TraceEvent | None) -> TraceEvent:
    event = start or end
    if event is None:
        raise ValueError("a call pair needs a start or an end event")
    return event


def _invocation(start: TraceEvent | None, end: TraceEvent | None) -> ToolInvocation:
    some = _anchor(start, end)
    logical_id, host_name = _tool_names(some.payload)
    call = ToolInvocation(
        logical_id=logical_id,
        host_name=host_name,
        arguments=dict((start.payload.get("arguments") if start else None) or {}),
        ok=False,
        finished=end is not None,
        sequence=some.sequence,
        node_id=some.payload.get("node_id"),
        store=some.payload.get("store"),
        event_id=start.event_id if start else None,
    )
    if end is not None and end.kind == EventKind.TOOL_CALL_COMPLETED:
        call.ok, call.result = True, end.payload.get("result")
    elif end is not None:
        call.error, call.error_type = end.payload.get("error"), end.payload.get("error_type")
    return call
