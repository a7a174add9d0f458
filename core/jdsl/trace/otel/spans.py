"""Events in, OpenTelemetry spans out: :class:`SpanBuilder`, the one mapping both ways use.

A recorded trace (:func:`jdsl.trace.otel.export_otel`) and a live run
(:class:`jdsl.trace.otel.OtelSink`) feed their events, in order, to a builder, which starts a
span when an episode, node, model call or tool call starts and ends it when it finishes:

* ``episode.started`` opens the episode's ``invoke_agent`` span (a new trace);
* ``node.enter`` opens a span under the innermost open node (``node.exit`` ends it);
* ``model.requested`` / ``tool.call.started`` open a span under the open span of the node named
  by ``node_id`` (else the innermost node, else the agent); the event that answers them
  (``parent_event_id``) ends it. A model span's input messages are the request's whole list,
  rebuilt from the episode's earlier requests (:mod:`jdsl.trace.messages`);
* ``guard.evaluated`` sets ``jdsl.guard.result`` on its node's span; ``blackboard.write`` adds a
  span event (the value only with content capture; a for_each's item write adds
  ``jdsl.loop.index`` and, with capture, ``jdsl.blackboard.source``); ``environment.reward`` sets
  ``jdsl.reward`` on the agent span;
* ``episode.finished`` ends whatever is still open, then the agent span (status ERROR when the
  episode ended in an error, with ``error.type``).

Span times are the events' timestamps (milliseconds), made strictly increasing by a nanosecond
where events share a millisecond, so a backend orders spans and ends as they happened. A behavior-tree FAILURE is an outcome,
not an error: it is the attribute ``jdsl.node.status``, and the span status stays unset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from jdsl.trace.events import EventKind, TraceEvent
from jdsl.trace.messages import RequestMessages, RequestMessagesError
from jdsl.trace.otel import attributes as attrs

__all__ = ["SpanBuilder", "event_time_ns"]

K = EventKind
_ENDS = {
    K.MODEL_RESPONDED: "model",
    K.TOOL_CALL_COMPLETED: "tool",
    K.TOOL_CALL_FAILED: "tool",
}


def event_time_ns(event: TraceEvent) -> int:
    """An event's timestamp (``2026-01-02T03:04:05.678Z``) in Unix nanoseconds."""
    return int(datetime.fromisoformat(event.timestamp).timestamp() * 1000) * 1_000_000


@dataclass
class _Open:
    """The spans of one episode that have started and not ended."""

    agent: Any
    nodes: list[tuple[Any, Any]] = field(default_factory=list)  # (node_id, span), innermost last
    by_event: dict[str, Any] = field(default_factory=dict)  # start event id -> span
    requests: RequestMessages = field(default_factory=RequestMessages)  # whole message lists

    def innermost(self) -> Any:
        """The innermost open node's span, else the agent span."""
        return self.nodes[-1][1] if self.nodes else self.agent

    def node_span(self, node_id: Any) -> Any:
        """The innermost open span of node ``node_id``, else :meth:`innermost`."""
        for nid, span in reversed(self.nodes):
            if nid == node_id:
                return span
        return self.innermost()


class SpanBuilder:
    """Turns jdsl trace events into spans of an OpenTelemetry ``Tracer``.

    Args:
        tracer: an ``opentelemetry.trace.Tracer`` (from the SDK's ``TracerProvider``).
        capture_content: record messages, tool arguments and results, and blackboard values
            (off by default, as the GenAI conventions ask).

    Feed every event of a run, in order, to :meth:`add`; :meth:`close` ends what a torn trace
    left open.
    """

    def __init__(self, tracer: Any, *, capture_content: bool = False) -> None:
        from opentelemetry import trace

        self._trace = trace
        self.tracer = tracer
        self.capture = capture_content
        self._episodes: dict[tuple[str, str], _Open] = {}
        self._last_ns = 0

    def _time(self, event: TraceEvent) -> int:
        """The event's time, one nanosecond after the previous event's at least."""
        self._last_ns = max(event_time_ns(event), self._last_ns + 1)
        return self._last_ns

    def add(self, event: TraceEvent) -> None:
        """Start, annotate or end the span ``event`` concerns (other kinds are ignored)."""
        key = (event.capture_id, event.episode_id)
        if event.kind == K.EPISODE_STARTED:
            self._start_episode(key, event)
            return
        episode = self._episodes.get(key)
        if episode is None:
            return  # an event of an episode whose start we did not see
        payload, at = event.payload, self._time(event)
        if event.kind == K.EPISODE_FINISHED:
            self._finish_episode(key, payload, at)
        elif event.kind == K.NODE_ENTER:
            span = self._start(episode.innermost(), attrs.node_span_name(payload), at)
            span.set_attributes(attrs.node_attributes(payload))
            episode.nodes.append((payload.get("node_id"), span))
            episode.by_event[event.event_id] = span
        elif event.kind == K.NODE_EXIT:
            self._end_node(episode, event, at)
        elif event.kind == K.MODEL_REQUESTED:
            self._start_call(episode, event, "model", at)
        elif event.kind == K.TOOL_CALL_STARTED:
            self._start_call(episode, event, "tool", at)
        elif event.kind in _ENDS:
            self._end_call(episode, event, at)
        else:
            self._annotate(episode, event, at)

    def close(self) -> None:
        """End every span still open (a trace that stops before its episodes finish)."""
        for key in list(self._episodes):
            self._finish_episode(key, {"status": "unfinished"}, self._last_ns + 1)

    # -- episodes -------------------------------------------------------------------------
    def _start_episode(self, key: tuple[str, str], event: TraceEvent) -> None:
        if key in self._episodes:  # a second start under the same id: close the first
            self._finish_episode(key, {"status": "unfinished"}, self._time(event))
        payload = event.payload
        span = self.tracer.start_span(
            f"invoke_agent {payload.get('skill') or 'behavior'}",
            kind=self._trace.SpanKind.INTERNAL,
            start_time=self._time(event),
            attributes=attrs.agent_attributes(payload, event.episode_id, self.capture),
        )
        span.set_attribute("jdsl.capture.id", event.capture_id)
        self._episodes[key] = _Open(agent=span)

    def _finish_episode(self, key: tuple[str, str], payload: dict[str, Any], at: int) -> None:
        episode = self._episodes.pop(key)
        for span in reversed(list(episode.by_event.values())):
            span.end(end_time=at)
        status = str(payload.get("status"))
        episode.agent.set_attribute("jdsl.status", status)
        if status == "error":
            episode.agent.set_attribute("error.type", str(payload.get("error_type")))
            self._error(episode.agent, payload.get("error_message"))
        episode.agent.end(end_time=at)

    # -- nodes and calls ------------------------------------------------------------------
    def _start(self, parent: Any, name: str, at: int, *, client: bool = False) -> Any:
        kind = self._trace.SpanKind.CLIENT if client else self._trace.SpanKind.INTERNAL
        context = self._trace.set_span_in_context(parent)
        return self.tracer.start_span(name, context=context, kind=kind, start_time=at)

    def _end_node(self, episode: _Open, event: TraceEvent, at: int) -> None:
        span = episode.by_event.pop(event.parent_event_id or "", None)
        if span is None:
            return
        episode.nodes = [(nid, s) for nid, s in episode.nodes if s is not span]
        status = str(event.payload.get("status"))
        span.set_attribute("jdsl.node.status", status)
        if status == "error":
            self._error(span, event.payload.get("error"))
        span.end(end_time=at)

    def _start_call(self, episode: _Open, event: TraceEvent, what: str, at: int) -> None:
        payload = event.payload
        parent = episode.node_span(payload.get("node_id"))
        if what == "model":
            name = f"chat {attrs.request_model(payload.get('model_id'))}"
            values = attrs.model_start_attributes(
                payload, self.capture, self._messages(episode, event) if self.capture else None
            )
        else:
            values = attrs.tool_attributes(payload, self.capture)
            name = f"execute_tool {values['gen_ai.tool.name']}"
        span = self._start(parent, name, at, client=what == "model")
        span.set_attributes(values)
        episode.by_event[event.event_id] = span

    @staticmethod
    def _messages(episode: _Open, event: TraceEvent) -> list[Any] | None:
        """The whole message list of a ``model.requested`` (a v2 trace records only the new
        ones); None when the earlier requests it continues were not seen."""
        episode.requests.add(event)
        try:
            return episode.requests.messages(event)
        except RequestMessagesError:
            return None

    def _end_call(self, episode: _Open, event: TraceEvent, at: int) -> None:
        span = episode.by_event.pop(event.parent_event_id or "", None)
        if span is None:
            return
        payload = event.payload
        if event.kind == K.MODEL_RESPONDED:
            span.set_attributes(attrs.model_end_attributes(payload, self.capture))
            if payload.get("error"):
                self._error(span, payload.get("error") if self.capture else "model output error")
        else:
            failed = event.kind == K.TOOL_CALL_FAILED
            span.set_attributes(attrs.tool_end_attributes(payload, failed, self.capture))
            if failed:
                self._error(span, payload.get("error") if self.capture else None)
        span.end(end_time=at)

    def _annotate(self, episode: _Open, event: TraceEvent, at: int) -> None:
        payload = event.payload
        if event.kind == K.GUARD_EVALUATED:
            episode.node_span(payload.get("node_id")).set_attribute(
                "jdsl.guard.result", bool(payload.get("result"))
            )
        elif event.kind == K.BLACKBOARD_WRITE:
            values: dict[str, Any] = {"jdsl.blackboard.key": str(payload.get("key"))}
            if isinstance(payload.get("index"), int):  # a for_each's item: the pass
                values["jdsl.loop.index"] = payload["index"]
            if self.capture:
                values["jdsl.blackboard.value"] = attrs.json_text(payload.get("value"))
                if payload.get("source") is not None:  # the element's path (may hold values)
                    values["jdsl.blackboard.source"] = str(payload["source"])
            span = episode.node_span(payload.get("writer"))
            span.add_event("blackboard.write", attributes=values, timestamp=at)
        elif event.kind == K.ENVIRONMENT_REWARD and payload.get("reward") is not None:
            episode.agent.set_attribute("jdsl.reward", float(payload["reward"]))

    def _error(self, span: Any, message: Any) -> None:
        description = str(message) if message and self.capture else None
        span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, description))
