"""A foreign agent conversation in neutral form, and the jdsl trace events it becomes.

Both importers (tau-bench episodes, OpenAI chat logs) first read their format into a
:class:`Conversation`: user turns, and assistant turns with their tool calls and the results of
those calls. :func:`conversation_events` then emits one jdsl episode through a trace sink:

==========================  ===========  ================================================
event                       actor        payload
==========================  ===========  ================================================
``episode.started``         system       ``skill``, ``inputs``, ``ir`` (None), ``model_id``, task
                                         metadata (``task_id``, ``task_family``, ...)
``react.started``           system       ``node_id``, ``signature`` (None), ``inputs``,
                                         ``outputs`` ([]), ``tools`` (names)
``toolset.exposed``         system       ``node_id``, ``tools`` [{host_name, description,
                                         parameters}] (when the tool schemas are known)
``user.message``            user         ``content``
``model.requested``         model        ``node_id``, ``kind`` "react", ``model_id``, ``system``,
                                         ``messages`` (new since the previous request, which
                                         ``messages_from`` names: :mod:`jdsl.trace.messages`),
                                         ``tools``
``model.responded``         model        ``node_id``, ``kind``, ``model_id``, ``raw_output``,
                                         ``tool_calls``, ``usage``, ``finish_reason``; parent =
                                         the request
``assistant.message``       model        ``content`` (when the turn has text)
``tool.call.started``       model        ``node_id``, ``store`` (None), ``tool`` {host_name,
                                         logical_id}, ``arguments``, ``call_id``; parent = the
                                         response that asked for it
``tool.call.completed``     tool         ``..., result`` (parsed when it is JSON text)
``tool.call.failed``        tool         ``..., error`` (the text), ``error_type``
``react.finished``          system       ``node_id``, ``status``/``stop_reason`` "completed",
                                         ``answer`` (the last assistant text), ``steps``
``environment.reward``      environment  ``reward`` (when the source recorded one), ``passed``
                                         (when the source says what counts as success)
``episode.finished``        system       ``skill``, ``status``, ``error_type``, ``error_message``
==========================  ===========  ================================================

The whole conversation is one agent (a React leaf, ``node_id`` :data:`AGENT_NODE_ID`), so each
assistant turn is one decision the compiler can see. Event ids and timestamps are derived from
the input, so importing the same file twice gives identical traces.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jdsl.importers import jsondata
from jdsl.providers.messages import Message, ToolCall
from jdsl.trace import EventKind, EventSource, TraceEvent, TraceSink
from jdsl.trace.events import Actor
from jdsl.trace.messages import MessageLog

__all__ = [
    "AGENT_NODE_ID",
    "IMPORTED_TIMESTAMP",
    "AssistantTurn",
    "Conversation",
    "ToolOutcome",
    "UserTurn",
    "conversation_events",
    "is_error_text",
    "parse_result",
]

AGENT_NODE_ID = "agent"
IMPORTED_TIMESTAMP = "1970-01-01T00:00:00.000Z"  # imported data carries no clock
_ERROR_PREFIXES = ("error:", "unknown action ")


def parse_result(text: str) -> Any:
    """A tool result as data: the parsed value when ``text`` is JSON text, else ``text`` itself.

    Text that :func:`jdsl.importers.jsondata.loads` refuses (``NaN``, a lone surrogate, deep
    nesting, anything after the JSON value) stays text.
    """
    stripped = text.strip()
    if not stripped:
        return text
    try:
        return jsondata.loads(stripped)
    except ValueError:
        return text


def is_error_text(text: str) -> bool:
    """Whether a tool result string reports a failure (``"Error: ..."``, ``"Unknown action x"``)."""
    return text.lstrip().lower().startswith(_ERROR_PREFIXES)


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call of an assistant turn and, when recorded, the string it returned."""

    call_id: str
    name: str
    arguments: Mapping[str, Any]
    result: str | None = None

    def __post_init__(self) -> None:
        _require_text(self.call_id, "a tool call's id")
        _require_text(self.name, f"tool call {self.call_id!r}'s name")
        if not isinstance(self.arguments, Mapping):
            raise ValueError(f"tool call {self.call_id!r}'s arguments must be an object")
        if self.result is not None:
            _require_text(self.result, f"tool call {self.call_id!r}'s result")

    @property
    def failed(self) -> bool:
        return self.result is not None and is_error_text(self.result)


@dataclass(frozen=True)
class UserTurn:
    """What the user said."""

    content: str

    def __post_init__(self) -> None:
        _require_text(self.content, "a user message's content")


@dataclass(frozen=True)
class AssistantTurn:
    """One model response: what it said, the tool calls it made (in call order), and, when
    the source kept more, the model's raw text (an act/react ``Thought: ... Action: ...``
    message) and its reasoning (the ``Thought:``)."""

    content: str = ""
    calls: tuple[ToolOutcome, ...] = ()
    raw: str | None = None
    thought: str = ""

    def __post_init__(self) -> None:
        _require_text(self.content, "an assistant message's content")
        _require_text(self.thought, "an assistant message's thought")
        if self.raw is not None:
            _require_text(self.raw, "an assistant message's raw text")


@dataclass(frozen=True)
class Conversation:
    """One foreign episode in neutral form.

    Attributes:
        episode_id / capture_id: the jdsl ids its events get.
        skill: the name for ``episode.started.skill`` (e.g. ``"tau_bench.airline"``).
        source: host / adapter / model stamped on every event.
        inputs: the run inputs recorded in ``episode.started``.
        metadata: further ``episode.started`` fields (``task_id``, ``task_family``, ...).
        system: the system prompt, when known.
        tools: tool schemas ``[{name, description, parameters}]`` exposed to the agent, if known.
        turns: the conversation, in order.
        reward: the source's reward for the episode, if it recorded one.
        passed: whether that reward counts as success (tau-bench: reward 1.0); None: a reward
            above 0 does.
        status: how the episode ended (``success`` / ``failure`` / ``error``) when the source
            says; None derives it from ``reward`` (no reward, or a positive one: success).
    """

    episode_id: str
    capture_id: str
    skill: str
    source: EventSource
    inputs: Mapping[str, Any] = field(default_factory=dict)
    metadata: Mapping[str, Any] = field(default_factory=dict)
    system: str = ""
    tools: Sequence[Mapping[str, Any]] = ()
    turns: Sequence[UserTurn | AssistantTurn] = ()
    reward: float | None = None
    passed: bool | None = None
    status: str | None = None

    def __post_init__(self) -> None:
        """Refuse what the events could not carry, so emitting never fails half-way.

        Raises:
            ValueError: a field of the wrong type (names it), a reward that is not a finite
                number, a tool schema without a name.
        """
        for name in ("episode_id", "capture_id", "skill", "system"):
            _require_text(getattr(self, name), f"the episode's {name}")
        for name in ("inputs", "metadata"):
            if not isinstance(getattr(self, name), Mapping):
                raise ValueError(f"the episode's {name} must be an object")
        for tool in self.tools:
            if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
                raise ValueError('each tool definition must be an object with a "name" string')
        reward = self.reward
        if reward is not None and (
            isinstance(reward, bool) or not isinstance(reward, int | float)
            or not math.isfinite(reward)
        ):  # fmt: skip
            raise ValueError(f"the reward must be a finite number, not {str(reward)[:40]!r}")
        for turn in self.turns:
            if not isinstance(turn, UserTurn | AssistantTurn):
                raise ValueError(f"a turn must be a UserTurn or AssistantTurn, not {turn!r:.40}")


def _require_text(value: Any, what: str) -> None:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text, not {type(value).__name__} {str(value)[:40]!r}")


class _Emitter:
    """Stamps one conversation's events through a sink with derived ids and a fixed clock."""

    def __init__(self, conversation: Conversation, sink: TraceSink) -> None:
        self.conversation = conversation
        self.sink = sink
        self.events: list[TraceEvent] = []
        self.log = MessageLog()  # the conversation's requests, recorded incrementally

    def emit(
        self,
        kind: str,
        payload: dict[str, Any],
        actor: Actor = "system",
        parent: TraceEvent | None = None,
    ) -> TraceEvent:
        conv = self.conversation
        seed = f"{conv.capture_id}/{conv.episode_id}/{len(self.events)}"
        event = TraceEvent(
            kind=kind,
            capture_id=conv.capture_id,
            episode_id=conv.episode_id,
            payload=payload,
            event_id=hashlib.sha256(seed.encode()).hexdigest()[:32],
            timestamp=IMPORTED_TIMESTAMP,
            source=conv.source,
            actor=actor,
            parent_event_id=parent.event_id if parent else None,
        )
        stamped = self.sink.emit(event)
        self.events.append(stamped)
        return stamped


def conversation_events(conversation: Conversation, sink: TraceSink) -> list[TraceEvent]:
    """Emit ``conversation`` as one jdsl episode through ``sink``; returns the stamped events."""
    out = _Emitter(conversation, sink)
    conv, model_id = conversation, conversation.source.model
    out.emit(
        EventKind.EPISODE_STARTED,
        {
            "skill": conv.skill,
            "inputs": dict(conv.inputs),
            "ir": None,
            "model_id": model_id,
            **conv.metadata,
        },
    )
    tool_names = [t["name"] for t in conv.tools]
    out.emit(
        EventKind.REACT_STARTED,
        {
            "node_id": AGENT_NODE_ID,
            "signature": None,
            "inputs": dict(conv.inputs),
            "outputs": [],
            "tools": tool_names,
        },
    )
    if conv.tools:
        tools = [
            {
                "host_name": t["name"],
                "description": t.get("description", ""),
                "parameters": t.get("parameters", {}),
            }
            for t in conv.tools
        ]
        out.emit(EventKind.TOOLSET_EXPOSED, {"node_id": AGENT_NODE_ID, "tools": tools})
    history: list[Message] = []
    for turn in conv.turns:
        if isinstance(turn, UserTurn):
            out.emit(EventKind.USER_MESSAGE, {"content": turn.content}, actor="user")
            history.append(Message.user(turn.content))
        else:
            _emit_assistant_turn(out, turn, history)
    answers = [t.content for t in conv.turns if isinstance(t, AssistantTurn) and t.content]
    out.emit(
        EventKind.REACT_FINISHED,
        {
            "node_id": AGENT_NODE_ID,
            "status": "completed",
            "stop_reason": "completed",
            "usage": None,
            "pending_actions": [],
            "answer": answers[-1] if answers else "",
            "steps": sum(isinstance(t, AssistantTurn) for t in conv.turns),
            "error": None,
        },
    )
    if conv.reward is not None:
        outcome = {
            "reward": conv.reward,
            **({} if conv.passed is None else {"passed": conv.passed}),
        }
        out.emit(EventKind.ENVIRONMENT_REWARD, outcome, actor="environment")
    passed = conv.passed if conv.passed is not None else conv.reward is None or conv.reward > 0
    status = conv.status or ("success" if passed else "failure")
    out.emit(
        EventKind.EPISODE_FINISHED,
        {
            "skill": conv.skill,
            "status": status,
            "error_type": None,
            "error_message": None,
        },
    )
    return out.events


def _emit_assistant_turn(out: _Emitter, turn: AssistantTurn, history: list[Message]) -> None:
    conv, model_id = out.conversation, out.conversation.source.model
    request = out.emit(
        EventKind.MODEL_REQUESTED,
        {
            "node_id": AGENT_NODE_ID,
            "kind": "react",
            "signature": None,
            "model_id": model_id,
            "system": conv.system,
            **out.log.fields(history, _dumped),
            "tools": [t["name"] for t in out.conversation.tools],
        },
        actor="model",
    )
    out.log.sent(request, len(history))
    calls = [ToolCall(id=c.call_id, name=c.name, arguments=dict(c.arguments)) for c in turn.calls]
    response = out.emit(
        EventKind.MODEL_RESPONDED,
        {
            "node_id": AGENT_NODE_ID,
            "kind": "react",
            "model_id": model_id,
            "raw_output": turn.content if turn.raw is None else turn.raw,
            "tool_calls": [c.model_dump(mode="json", exclude={"metadata"}) for c in calls],
            "usage": None,
            "finish_reason": "tool_calls" if calls else "stop",
            "elapsed_ms": None,
        },
        actor="model",
        parent=request,
    )
    if turn.content:
        out.emit(EventKind.ASSISTANT_MESSAGE, {"content": turn.content}, actor="model")
    history.append(Message.assistant(turn.content, calls))
    for outcome, call in zip(turn.calls, calls, strict=True):
        _emit_call(out, outcome, response)
        if outcome.result is not None:
            history.append(Message.tool(call, outcome.result, is_error=outcome.failed))


def _dumped(message: Message) -> dict[str, Any]:
    return message.model_dump(mode="json")


def _emit_call(out: _Emitter, outcome: ToolOutcome, response: TraceEvent) -> None:
    common = {
        "node_id": AGENT_NODE_ID,
        "store": None,
        "tool": {"host_name": outcome.name, "logical_id": None},
        "call_id": outcome.call_id,
    }
    started = out.emit(
        EventKind.TOOL_CALL_STARTED,
        {**common, "arguments": dict(outcome.arguments)},
        actor="model",
        parent=response,
    )
    if outcome.result is None:
        return  # the log ends before the result came back
    if outcome.failed:
        payload = {**common, "error": outcome.result, "error_type": "tool_error"}
        out.emit(EventKind.TOOL_CALL_FAILED, payload, actor="tool", parent=started)
    else:
        payload = {**common, "result": parse_result(outcome.result)}
        out.emit(EventKind.TOOL_CALL_COMPLETED, payload, actor="tool", parent=started)
