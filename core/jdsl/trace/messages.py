"""The messages of ``model.requested`` events, recorded incrementally (``jdsl.trace.v2``).

A React loop, like an imported agent conversation, sends the model the whole conversation on
every turn. A trace that wrote it whole each time grew with the square of the turns (issue 26:
a 1,000-turn tau-bench run wrote 118 MB). A request that continues an earlier request of the
same conversation now records only what is new::

    "messages": [<the messages after the kept ones>],
    "messages_from": {"event_id": "<the earlier model.requested>", "kept": N}

Its full message list is the first ``N`` messages of the earlier request's full list (resolved
the same way) followed by ``messages``. A request without ``messages_from`` (the first of a
conversation, every predict call, every request of a ``jdsl.trace.v1`` trace) carries its
whole list. Redaction and blob offloading apply to ``messages`` as to any payload value, so
each message is screened once, when it is first recorded.

Writing: :class:`MessageLog`, one per conversation, gives each request's two fields and is told
the event the request became. Reading: :func:`request_messages` gives the full list of any
request from the events of its trace; :class:`RequestMessages` does the same for events fed in
order (the OpenTelemetry exporter, replay), each request costing its new messages and a copy of
the list it returns.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from jdsl.errors import JdslError, preview
from jdsl.trace.blobs import BlobStore, hydrate_value, is_blob_marker

__all__ = [
    "MESSAGES_FROM",
    "MessageLog",
    "RequestMessages",
    "RequestMessagesError",
    "request_messages",
]

MESSAGES_FROM = "messages_from"
"""The payload key of a request's reference to the earlier request it continues."""

_REQUESTED = "model.requested"
_RECENT = 8  # resolved lists kept: a reader going in order finds the previous one here

T = TypeVar("T")


class RequestMessagesError(JdslError, ValueError):
    """A ``model.requested`` event whose full message list cannot be rebuilt (a ``ValueError``).

    Attributes:
        event_id: the request being resolved.
    """

    def __init__(self, event_id: str | None, problem: str) -> None:
        self.event_id = event_id
        super().__init__(f"model.requested {event_id!r}: {problem}")


class MessageLog:
    """One conversation's model requests as a trace records them (module docstring).

    The conversation must only grow: each request's messages start with every message of the
    previous request, as a React loop's history does.

    Example:
        >>> log = MessageLog()
        >>> log.fields(["hi"], str)
        {'messages': ['hi']}
        >>> log.sent(type("Event", (), {"event_id": "e1"})(), 1)
        >>> log.fields(["hi", "answer", "more"], str)
        {'messages': ['answer', 'more'], 'messages_from': {'event_id': 'e1', 'kept': 1}}
    """

    __slots__ = ("_count", "_event_id")

    def __init__(self) -> None:
        self._event_id: str | None = None
        self._count = 0

    def fields(self, messages: Sequence[T], dump: Callable[[T], Any]) -> dict[str, Any]:
        """The ``messages`` (and ``messages_from``) of the next request: only the messages
        after those the previous request sent, each made JSON data by ``dump``."""
        kept = self._count if self._event_id is not None and self._count <= len(messages) else 0
        fields: dict[str, Any] = {"messages": [dump(m) for m in messages[kept:]]}
        if kept:
            fields[MESSAGES_FROM] = {"event_id": self._event_id, "kept": kept}
        return fields

    def sent(self, event: Any, count: int) -> None:
        """The request became ``event`` (anything with a string ``event_id``; None when no
        event was recorded) and sent ``count`` messages."""
        event_id = getattr(event, "event_id", None)
        if isinstance(event_id, str) and event_id:
            self._event_id, self._count = event_id, count
        else:
            self._event_id, self._count = None, 0


class RequestMessages:
    """The full message lists of the ``model.requested`` events of a trace.

    Args:
        events: events to index now (:class:`~jdsl.trace.TraceEvent` s or event dicts); more
            can be added with :meth:`add`, in order.
        blob_store: loads message values a trace file moved to its blob store (None: a blob
            marker is returned as it is).
    """

    def __init__(self, events: Iterable[Any] = (), *, blob_store: BlobStore | None = None) -> None:
        self.blob_store = blob_store
        self._requests: dict[str, Mapping[str, Any]] = {}
        self._recent: OrderedDict[str, list[Any]] = OrderedDict()
        for event in events:
            self.add(event)

    def add(self, event: Any) -> None:
        """Index ``event`` when it is a ``model.requested`` (other kinds are ignored)."""
        kind, event_id, payload = _parts(event)
        if kind == _REQUESTED and event_id is not None:
            self._requests[event_id] = payload

    def messages(self, event: Any) -> list[Any]:
        """The full message list ``event`` (a ``model.requested``) sent, as a new list.

        Raises:
            RequestMessagesError: the event is not a request, or it continues a request that
                is not indexed, or its ``messages`` / ``messages_from`` are malformed.
        """
        kind, event_id, payload = _parts(event)
        if kind != _REQUESTED:
            raise RequestMessagesError(event_id, f"a {preview(kind)} event sends no messages")
        return list(self._resolve(event_id, payload))

    def _resolve(self, event_id: str | None, payload: Mapping[str, Any]) -> list[Any]:
        steps: list[tuple[str | None, int, list[Any]]] = []
        seen = {event_id}
        at, current = event_id, payload
        while True:
            cached = self._recent.get(at) if at is not None else None
            if cached is not None:
                self._recent.move_to_end(at)  # type: ignore[arg-type]
                full = list(cached)
                break
            delta = self._delta(at, current)
            reference = current.get(MESSAGES_FROM)
            if reference is None:
                full = list(delta)
                break
            previous, kept = _reference(at, reference)
            steps.append((at, kept, delta))
            if previous in seen:
                raise RequestMessagesError(event_id, "its messages_from references form a cycle")
            seen.add(previous)
            found = self._requests.get(previous)
            if found is None:
                raise RequestMessagesError(
                    at,
                    f"continues model.requested {previous!r}, which is not among the events "
                    "given; pass every event of the episode (the trace's earlier requests)",
                )
            at, current = previous, found
        for step_id, kept, delta in reversed(steps):
            if kept > len(full):
                raise RequestMessagesError(
                    step_id, f"keeps {kept} messages of a request that sent {len(full)}"
                )
            del full[kept:]
            full.extend(delta)
        if event_id is not None:
            self._recent[event_id] = full
            if len(self._recent) > _RECENT:
                self._recent.popitem(last=False)
        return full

    def _delta(self, event_id: str | None, payload: Mapping[str, Any]) -> list[Any]:
        messages = payload.get("messages")
        if messages is None:
            return []
        if self.blob_store is not None:
            messages = hydrate_value(messages, self.blob_store)
        if isinstance(messages, list):
            return messages
        if is_blob_marker(messages):
            raise RequestMessagesError(
                event_id,
                "its messages are in the blob store; read the trace with its '.blobs' "
                "directory (read_events(path, resolve_blobs=True))",
            )
        raise RequestMessagesError(event_id, f"messages is {preview(messages)}, not a list")


def request_messages(
    event: Any, events: Iterable[Any] = (), *, blob_store: BlobStore | None = None
) -> list[Any]:
    """The full message list a ``model.requested`` event sent (module docstring).

    Old traces (``jdsl.trace.v1``) and the first request of a conversation carry the whole list
    in ``messages``; a later request carries what is new since the request it continues.

    Args:
        event: the request (a :class:`~jdsl.trace.TraceEvent` or an event dict).
        events: the trace it belongs to (a :class:`~jdsl.trace.Trace`, an
            :class:`~jdsl.trace.Episode`, a sink with ``.events``, or any iterable of events
            or event dicts), holding the earlier requests it continues.
        blob_store: where blob markers are loaded from (default: ``events.blob_store``).

    Raises:
        RequestMessagesError: see :meth:`RequestMessages.messages`.

    Example:
        >>> first = {"kind": "model.requested", "event_id": "a",
        ...          "payload": {"messages": [{"role": "user", "content": "hi"}]}}
        >>> second = {"kind": "model.requested", "event_id": "b", "payload": {
        ...     "messages": [{"role": "assistant", "content": "hello"}],
        ...     "messages_from": {"event_id": "a", "kept": 1}}}
        >>> [m["content"] for m in request_messages(second, [first, second])]
        ['hi', 'hello']
    """
    store = blob_store if blob_store is not None else getattr(events, "blob_store", None)
    _, _, payload = _parts(event)
    if payload.get(MESSAGES_FROM) is None:
        return RequestMessages(blob_store=store).messages(event)
    return RequestMessages(getattr(events, "events", events), blob_store=store).messages(event)


def _parts(event: Any) -> tuple[Any, str | None, Mapping[str, Any]]:
    """``(kind, event_id, payload)`` of a TraceEvent or an event dict."""
    if isinstance(event, Mapping):
        kind, event_id, payload = event.get("kind"), event.get("event_id"), event.get("payload")
    else:
        kind = getattr(event, "kind", None)
        event_id, payload = getattr(event, "event_id", None), getattr(event, "payload", None)
    return (
        kind,
        event_id if isinstance(event_id, str) else None,
        payload if isinstance(payload, Mapping) else {},
    )


def _reference(event_id: str | None, reference: Any) -> tuple[str, int]:
    """``(event id, kept)`` of a ``messages_from`` value, checked."""
    if isinstance(reference, Mapping):
        previous, kept = reference.get("event_id"), reference.get("kept")
        if isinstance(previous, str) and type(kept) is int and kept >= 0:
            return previous, kept
    raise RequestMessagesError(
        event_id,
        f"messages_from is {preview(reference)}; expected {{'event_id': str, 'kept': int >= 0}}",
    )
