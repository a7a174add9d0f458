"""Everything a run view shows, computed once from a RunContext, a trace, an episode or events.

``RunData.build`` accepts what the notebook holds after a run: the ``RunContext`` returned by
``Root.run`` (events from its sink, else from ``ctx.blackboard.activity``), a ``Trace`` or an
episode (the last episode is shown), or a list of event dicts.

What it shows passes the trace's default :class:`~jdsl.trace.Redactor`, as a trace file does,
and follows every value it hides (a value stored under ``password`` is hidden in the tool
result, later arguments, the prompt and the error too): a view's HTML and text are kept in the
saved notebook.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jdsl.drawing import node_statuses
from jdsl.ir.walk import as_ir
from jdsl.trace import Redactor

from jdsl_nb._coerce import as_events
from jdsl_nb.provenance import (
    ModelChoice,
    WriteRecord,
    events_from_activity,
    model_choices,
    provenance,
)

__all__ = ["RunData", "error_text", "last_episode"]


def last_episode(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events of the last episode in ``events`` (all of them when only one episode)."""
    ids = [e.get("episode_id") for e in events if e.get("episode_id") is not None]
    if not ids or len(set(ids)) == 1:
        return events
    last = ids[-1]
    return [e for e in events if e.get("episode_id") == last]


def _status_text(value: Any) -> str:
    if value is None:
        return ""
    text = getattr(value, "value", value)
    return str(text).lower()


def error_text(error: Any) -> str | None:
    """An exception as ``Type: message`` plus its PEP 678 notes, a string as it is, or None."""
    if error is None:
        return None
    if isinstance(error, BaseException):
        notes = "".join(f"\n{n}" for n in getattr(error, "__notes__", []) or [])
        return f"{type(error).__name__}: {error}{notes}"
    return str(error)


def _context_events(ctx: Any) -> list[dict[str, Any]]:
    sink = getattr(ctx, "trace_sink", None)
    if sink is not None and getattr(sink, "events", None) is not None:
        events = as_events(sink)
        episode_id = getattr(ctx, "episode_id", None)
        mine = [e for e in events if e.get("episode_id") in (episode_id, None)]
        return mine or last_episode(events)
    board = getattr(ctx, "blackboard", None)
    return events_from_activity(getattr(board, "activity", None) or [])


@dataclass
class RunData:
    """One run, ready to show.

    Attributes:
        events: the run's events as dicts, in order (steps index into this list).
        ir: the tree's IR (from ``episode.started``, or given), or None.
        status: how the run ended ("success", "failure", "error", ...; "" when unknown).
        error: the error text when the run raised, else None.
        records: blackboard writes with provenance (:func:`jdsl_nb.provenance.provenance`).
        statuses: last status per node id.
        choices: tool calls whose arguments the model chose (react leaves), in order.
        failure: where and why a failed run stopped, ``{node_id, label, reason}`` (from
            ``ctx.failure`` or the ``episode.finished`` event), else None.
        notes: lines shown under the header (how ``--input`` values were read, ...).
    """

    events: list[dict[str, Any]]
    ir: dict[str, Any] | None = None
    status: str = ""
    error: str | None = None
    records: list[WriteRecord] = field(default_factory=list)
    statuses: dict[str, str] = field(default_factory=dict)
    choices: list[ModelChoice] = field(default_factory=list)
    failure: dict[str, str] | None = None
    notes: list[str] = field(default_factory=list)

    @classmethod
    def build(
        cls, source: Any, *, tree: Any = None, error: Any = None, notes: list[str] | None = None
    ) -> RunData:
        """Collect a run from a RunContext, Trace, episode or event list (see module doc).

        ``notes``: lines the view shows under its header (e.g. how magic inputs were read).
        """
        source = _hydrated(source)
        is_context = hasattr(source, "blackboard") and hasattr(source, "bindings")
        if is_context:
            events = _context_events(source)
        else:
            events = last_episode(as_events(source))
        redactor = _redactor(events)
        events = [_redacted(e, redactor) for e in events]
        ir = _find_ir(events, tree)
        ir = redactor.redact(ir) if ir is not None else None
        status, error_message = _outcome(events, source if is_context else None, error)
        error_message = redactor.redact_text(error_message) if error_message else error_message
        statuses = node_statuses(events)
        failure = _failure(events, source if is_context else None)
        if failure is not None:
            failure = {k: redactor.redact_text(v) for k, v in failure.items()}
        shown_notes = [redactor.redact_text(n) for n in notes or []]
        return cls(
            events,
            ir,
            status,
            error_message,
            provenance(events, ir),
            statuses,
            model_choices(events, ir),
            failure,
            shown_notes,
        )


def _redactor(events: list[dict[str, Any]]) -> Redactor:
    """The default trace :class:`~jdsl.trace.Redactor`, having read the whole run once: every
    value it hides anywhere in the run (by key, named field or store name) is then hidden in
    every event, error and note the view shows, before or after it (a view shows all steps)."""
    redactor = Redactor()
    for event in events:
        redactor.redact(event.get("payload"))
    return redactor


def _redacted(event: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    if not isinstance(event, Mapping) or "payload" not in event:
        return event
    return {**event, "payload": redactor.redact(event["payload"])}


def _hydrated(source: Any) -> Any:
    """A trace loaded from a file with its blob markers replaced by the stored values."""
    if getattr(source, "blob_store", None) is None or not callable(
        getattr(source, "hydrated", None)
    ):
        return source
    try:
        return source.hydrated()
    except Exception:  # noqa: BLE001 - a missing blob: show the markers' previews instead
        return source


def _find_ir(events: list[dict[str, Any]], tree: Any) -> dict[str, Any] | None:
    if tree is not None:
        try:
            return as_ir(tree)
        except TypeError:
            pass
    for event in events:
        ir = (event.get("payload") or {}).get("ir")
        if event.get("kind") == "episode.started" and isinstance(ir, Mapping):
            return dict(ir)
    return None


def _failure(events: list[dict[str, Any]], ctx: Any) -> dict[str, str] | None:
    found = getattr(ctx, "failure", None)
    if found is not None and hasattr(found, "_asdict"):
        return {k: str(v) for k, v in found._asdict().items()}
    for event in reversed(events):
        if event.get("kind") == "episode.finished":
            failure = (event.get("payload") or {}).get("failure")
            return {k: str(v) for k, v in failure.items()} if isinstance(failure, Mapping) else None
    return None


def _outcome(events: list[dict[str, Any]], ctx: Any, error: Any) -> tuple[str, str | None]:
    status, message = "", error_text(error)
    for event in reversed(events):
        if event.get("kind") == "episode.finished":
            payload = event.get("payload") or {}
            status = _status_text(payload.get("status"))
            if payload.get("error_message") and message is None:
                message = f"{payload.get('error_type') or 'Error'}: {payload['error_message']}"
            break
    if ctx is not None:
        status = status or _status_text(getattr(ctx, "status", None))
        message = message or error_text(getattr(ctx, "error", None))
    if message and status not in ("error", "cancelled"):
        status = "error"
    return status, message
