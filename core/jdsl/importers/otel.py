"""Import OpenTelemetry traces (OTLP JSON) of agents instrumented with the GenAI semantic
conventions or OpenInference as jdsl traces.

::

    trace = import_otel("agent.otlp.json")             # a jdsl Trace, one episode per agent run
    jdsl import otel agent.otlp.json -o traces.jsonl   # the same from the command line

Spans are recognised by ``gen_ai.operation.name`` (GenAI) or ``openinference.span.kind``:

* an agent span (``invoke_agent`` / ``AGENT``) that no other agent span contains is an episode;
  a trace without one is one episode (its root span). The episode id is the agent span's
  ``jdsl.episode.id``, else ``otel_<trace id>`` (``_<n>`` for the n-th agent of a trace); run
  inputs are its ``input.value`` when that is a JSON object; ``metadata`` (OpenInference, a JSON
  object) or ``jdsl.*`` attributes give ``task_id``, ``task_family`` and ``reward``; skill is
  ``gen_ai.agent.name`` / ``agent.name``, else the span name.
* LLM spans (``chat`` / ``text_completion`` / ``generate_content`` / ``LLM``) become model
  turns: their recorded messages (:mod:`jdsl.importers.otel_messages`) are joined into one
  conversation (each call's input extends the last call's input and output), so tool results
  that only the next call's messages show are found;
* tool spans (``execute_tool`` / ``TOOL``) become tool calls: they give the result of the call
  with the same ``gen_ai.tool.call.id`` (else the next unanswered call of that name), or, when
  the LLM spans recorded no messages, a call of their own. A tool span with status ERROR is a
  failed call.

Without recorded messages (content capture off) and without tool spans, an episode has nothing
to compile; :func:`otel_conversations` skips it and says so in ``skipped``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jdsl.importers import jsondata
from jdsl.importers.common import ImportFormatError, emit_conversations
from jdsl.importers.conversation import AssistantTurn, Conversation
from jdsl.importers.openai_chat import chat_turns
from jdsl.importers.otel_messages import input_messages, output_messages, tool_definitions
from jdsl.importers.otlp_json import OtlpSpan, read_otlp_json
from jdsl.trace import EventSource, Trace, TraceSink

__all__ = ["OtelImport", "import_otel", "otel_conversations", "span_role"]

_LLM_OPERATIONS = {"chat", "text_completion", "generate_content"}
_ROLES = {"invoke_agent": "agent", "execute_tool": "tool", **dict.fromkeys(_LLM_OPERATIONS, "llm")}
_KINDS = {"AGENT": "agent", "LLM": "llm", "TOOL": "tool"}


def span_role(span: OtlpSpan) -> str | None:
    """``"agent"``, ``"llm"``, ``"tool"`` or None, from the GenAI operation or OpenInference
    span kind."""
    attributes = span.attributes
    role = _ROLES.get(str(attributes.get("gen_ai.operation.name")))
    return role or _KINDS.get(str(attributes.get("openinference.span.kind", "")).upper())


@dataclass
class OtelImport:
    """What an OTLP JSON file held: its conversations and the episodes skipped, with why."""

    conversations: list[Conversation] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _json_object(value: Any) -> dict[str, Any] | None:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str):
        try:
            data = jsondata.loads(value)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None
    return None


class _Tree:
    """The spans of one trace, by id, with their children in start order.

    Walks are iterative and visit each span once: a trace of any depth, or with a span id
    repeated or a parent cycle (a file concatenated twice, a broken exporter), is walked in
    linear time.
    """

    def __init__(self, spans: Sequence[OtlpSpan]) -> None:
        self.spans = sorted(spans, key=lambda s: (s.start_ns, s.end_ns))
        self.by_id = {s.span_id: s for s in self.spans}
        self.children: dict[str, list[OtlpSpan]] = {}
        for span in self.spans:
            self.children.setdefault(span.parent_id, []).append(span)

    def roots(self) -> list[OtlpSpan]:
        return [s for s in self.spans if s.parent_id not in self.by_id]

    def below(self, span: OtlpSpan) -> list[OtlpSpan]:
        """Every descendant of ``span``, in start order."""
        out: list[OtlpSpan] = []
        seen = {id(span)}
        expanded = {span.span_id}
        stack = list(self.children.get(span.span_id, []))
        while stack:
            child = stack.pop()
            if id(child) in seen:
                continue
            seen.add(id(child))
            out.append(child)
            if child.span_id not in expanded:  # a repeated id's children are listed once
                expanded.add(child.span_id)
                stack.extend(self.children.get(child.span_id, []))
        return sorted(out, key=lambda s: (s.start_ns, s.end_ns))

    def agents(self) -> list[OtlpSpan]:
        """The agent spans no agent span contains, else the roots."""
        found: list[OtlpSpan] = []
        expanded: set[str] = set()
        stack = list(reversed(self.roots()))
        while stack:  # depth first, in start order, as a recursive walk would go
            span = stack.pop()
            if span_role(span) == "agent":
                found.append(span)
            elif span.span_id not in expanded:
                expanded.add(span.span_id)
                stack.extend(reversed(self.children.get(span.span_id, [])))
        return found or self.roots()


def _segments(llm_spans: Sequence[OtlpSpan]) -> list[tuple[tuple[int, int], list[dict[str, Any]]]]:
    """``((start, end), messages)`` per LLM call: its input messages new since the last call, then
    its output (each call's input normally extends the last call's input and output)."""
    transcript: list[dict[str, Any]] = []
    segments = []
    for span in llm_spans:
        sent = input_messages(span.attributes)
        if len(sent) >= len(transcript) and _same(sent[: len(transcript)], transcript):
            new = sent[len(transcript) :]
        else:  # a windowed or rewritten history (or a stateless call): what follows its last
            # assistant turn, without a system prompt already seen
            last = max((i for i, m in enumerate(sent) if m.get("role") == "assistant"), default=-1)
            new = [m for m in sent[last + 1 :] if m.get("role") != "system" or not transcript]
        segment = new + output_messages(span.attributes)[:1]
        transcript = sent + segment[len(new) :]
        segments.append(((span.start_ns, span.end_ns), segment))
    return segments


def _same(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> bool:
    def key(m: dict[str, Any]) -> tuple[Any, ...]:
        return m.get("role"), m.get("content") or "", m.get("tool_call_id")

    return [key(m) for m in a] == [key(m) for m in b]


def _tool_call(span: OtlpSpan) -> tuple[dict[str, Any], str | None]:
    """A tool span as a chat-completions tool call and the result text (None: not recorded)."""
    attrs = span.attributes
    raw_args = attrs.get("gen_ai.tool.call.arguments", attrs.get("input.value"))
    arguments = raw_args if isinstance(raw_args, str) else json.dumps(raw_args or {})
    result = attrs.get("gen_ai.tool.call.result", attrs.get("output.value"))
    if result is not None and not isinstance(result, str):
        result = json.dumps(result, sort_keys=True)
    if span.status == "ERROR":
        result = f"Error: {result or span.status_message or attrs.get('error.type') or 'failed'}"
    name = attrs.get("gen_ai.tool.name") or attrs.get("tool.name") or span.name
    call = {
        "id": str(attrs.get("gen_ai.tool.call.id") or f"call_{span.span_id}"),
        "type": "function",
        "function": {"name": str(name).removeprefix("execute_tool "), "arguments": arguments},
    }
    return call, result


def _messages(llm: Sequence[OtlpSpan], tools: Sequence[OtlpSpan]) -> list[dict[str, Any]]:
    """The episode's chat messages: the LLM calls' messages, with the tool spans' results
    given to the calls they answer (the next call with the same id, else the next unanswered
    call of that name; a model may reuse a call id within a run)
    and the other tool spans as calls of their own, all in start order."""
    segments = _segments(llm)
    history = [m for _, seg in sorted(segments, key=lambda item: item[0]) for m in seg]
    calls = [c for m in history for c in m.get("tool_calls") or []]
    answered = set(_answers(history).values())  # the calls a recorded tool message answers
    results: dict[int, str] = {}  # by the call's identity: a model may reuse a call id
    used: set[int] = set()
    for span in tools:  # in start order: the k-th span of an id answers its k-th call
        call, result = _tool_call(span)
        name = call["function"]["name"]
        match = next((c for c in calls if c["id"] == call["id"] and id(c) not in used), None) or next(
            (c for c in calls if c["function"]["name"] == name and id(c) not in answered
             and id(c) not in used), None,
        )  # fmt: skip
        if match is None:
            own = [{"role": "assistant", "content": "", "tool_calls": [call]}]
            if result is not None:
                own.append({"role": "tool", "tool_call_id": call["id"], "content": result})
            segments.append(((span.start_ns, span.end_ns), own))
            continue
        used.add(id(match))
        if result is not None and (id(match) not in answered or result.startswith("Error:")):
            results[id(match)] = result
    messages = [m for _, seg in sorted(segments, key=lambda item: item[0]) for m in seg]
    return _with_results(messages, results)


def _with_results(messages: list[dict[str, Any]], results: dict[int, str]) -> list[dict[str, Any]]:
    """Tool results from spans (by the identity of the call they answer): replacing the
    recorded tool message answering that call, or placed after the call."""
    answers = _answers(messages)
    answered = set(answers.values())
    out: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        if answers.get(i) in results:
            out.append({**message, "content": results.pop(answers[i])})
            continue
        out.append(message)
        for call in message.get("tool_calls") or []:
            if id(call) in results and id(call) not in answered:
                out.append(
                    {"role": "tool", "tool_call_id": call["id"], "content": results.pop(id(call))}
                )
    return out


def _answers(messages: Sequence[dict[str, Any]]) -> dict[int, int]:
    """Index of each tool message -> identity of the call it answers: the latest call with
    its id made before it (a model may reuse a call id within a run)."""
    latest: dict[str, int] = {}
    out: dict[int, int] = {}
    for i, message in enumerate(messages):
        for call in message.get("tool_calls") or []:
            latest[call["id"]] = id(call)
        if message.get("role") == "tool" and message.get("tool_call_id") in latest:
            out[i] = latest[message["tool_call_id"]]
    return out


def _metadata(agent: OtlpSpan) -> dict[str, Any]:
    attrs = agent.attributes
    meta = _json_object(attrs.get("metadata")) or {}
    for key in ("task_id", "task_family", "reward"):
        if f"jdsl.{key}" in attrs:
            meta.setdefault(key, attrs[f"jdsl.{key}"])
    return meta


def _conversation(tree: _Tree, agent: OtlpSpan, episode_id: str, capture_id: str) -> Conversation:
    spans = tree.below(agent) if agent.span_id in tree.children else [agent]
    llm = [s for s in [agent, *spans] if span_role(s) == "llm"]
    tools = [s for s in spans if span_role(s) == "tool"]
    system, turns = chat_turns(_messages(llm, tools))
    attrs, meta = agent.attributes, _metadata(agent)
    model = next(
        (s.attributes.get(k) for s in llm for k in ("gen_ai.request.model", "llm.model_name")
         if s.attributes.get(k)), None,
    )  # fmt: skip
    task_id = meta.get("task_id")
    skill = attrs.get("gen_ai.agent.name") or attrs.get("agent.name") or agent.name
    return Conversation(
        episode_id=episode_id,
        capture_id=capture_id,
        skill=str(skill).removeprefix("invoke_agent ") or "otel",
        source=EventSource(host="otel", adapter="import.otel", model=model),
        inputs=_json_object(attrs.get("input.value")) or {},
        metadata={
            "task_id": task_id,
            "task_family": meta.get("task_family", None if task_id is None else str(task_id)),
            "trace_id": agent.trace_id,
        },
        system=system,
        tools=next(
            (tool_definitions(s.attributes) for s in llm if tool_definitions(s.attributes)), []
        ),
        turns=turns,
        reward=meta.get("reward"),
        status=attrs.get("jdsl.status") or ("error" if agent.status == "ERROR" else None),
    )


def otel_conversations(path: str | Path, *, capture_id: str = "otel") -> OtelImport:
    """Read an OTLP JSON file into neutral conversations, one per agent run.

    Raises:
        ImportFormatError: the file is not OTLP JSON, or a span's recorded messages cannot be
            read (names the trace and the problem).
    """
    spans = read_otlp_json(path)
    by_trace: dict[str, list[OtlpSpan]] = {}
    for span in spans:
        by_trace.setdefault(span.trace_id, []).append(span)
    result = OtelImport()
    for trace_id, members in by_trace.items():
        tree = _Tree(members)
        agents = tree.agents()
        for n, agent in enumerate(agents):
            own = agent.attributes.get("jdsl.episode.id")
            episode_id = str(own or f"otel_{trace_id}" + (f"_{n}" if len(agents) > 1 else ""))
            try:
                conversation = _conversation(tree, agent, episode_id, capture_id)
            except (ValueError, TypeError, AttributeError, KeyError, OverflowError) as exc:
                raise ImportFormatError(str(exc), path=path, where=f"trace {trace_id}") from exc
            if any(isinstance(t, AssistantTurn) for t in conversation.turns):
                result.conversations.append(conversation)
            else:
                result.skipped.append(
                    f"{episode_id} ({agent.name!r}): no model turn or tool call recorded (was "
                    "content capture off and no tool span recorded?)"
                )
    return result


def import_otel(
    path: str | Path, *, sink: TraceSink | None = None, capture_id: str = "otel"
) -> Trace:
    """Import an OTLP JSON file of an instrumented agent as jdsl trace events.

    Args:
        path: OTLP JSON (one ``{"resourceSpans": [...]}`` document, or one per line).
        sink: where to emit the events too (e.g. a :class:`~jdsl.trace.JsonlTraceSink`).
        capture_id: the capture id of every event.

    Returns:
        A :class:`~jdsl.trace.Trace`, one episode per agent run, in file order.

    Raises:
        ImportFormatError: the file is not OTLP JSON.
    """
    return emit_conversations(otel_conversations(path, capture_id=capture_id).conversations, sink)
