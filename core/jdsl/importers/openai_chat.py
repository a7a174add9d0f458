"""Import OpenAI chat-completions logs (JSONL, one conversation per line) as jdsl traces.

Each non-blank line is one conversation::

    {"messages": [
        {"role": "system", "content": "..."},
        {"role": "user", "content": "..."},
        {"role": "assistant", "content": null,
         "tool_calls": [{"id": "call_1", "type": "function",
                         "function": {"name": "get_order", "arguments": "{\\"id\\": \\"#W1\\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "{\\"status\\": \\"pending\\"}"},
        {"role": "assistant", "content": "Your order is pending."}],
     "tools": [...], "model": "gpt-4o", "id": "...", "metadata": {"task_id": ..., "reward": ...}}

Only ``messages`` is required. ``content`` may be a string or a list of ``{"type": "text"}``
parts; ``developer`` counts as ``system``; the legacy ``function_call`` / ``role: "function"``
form is read too. Arguments that are not valid JSON are kept as ``{"_raw_arguments": text}``.
The episode id is the line's ``id`` or ``<file stem>_<line number>``; ``metadata.task_id`` /
``metadata.task_family`` / ``metadata.inputs`` / ``metadata.reward`` go to ``episode.started``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jdsl.importers import jsondata
from jdsl.importers.common import ImportFormatError, emit_conversations
from jdsl.importers.conversation import AssistantTurn, Conversation, ToolOutcome, UserTurn
from jdsl.trace import EventSource, Trace, TraceSink

__all__ = [
    "ChatBuilder",
    "chat_turns",
    "import_openai_chat",
    "openai_chat_conversations",
    "raw_argument_calls",
]


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type") in ("text", "input_text", "output_text")
        )
    raise ValueError(f"content must be a string or a list of parts, not {type(content).__name__}")


def _arguments(raw: Any, keep_raw: bool = True) -> dict[str, Any]:
    """A call's arguments; text that is no JSON object becomes ``{"_raw_arguments": text}``,
    or (``keep_raw=False``) a ValueError naming the text."""
    if isinstance(raw, dict):
        return raw
    try:
        value = jsondata.loads(raw) if raw else {}
    except (TypeError, ValueError):
        value = None
    if isinstance(value, dict):
        return value
    if not keep_raw:
        raise ValueError(f"arguments are not JSON of an object: {str(raw)[:80]!r}")
    return {"_raw_arguments": raw}


@dataclass
class _OpenCall:
    call_id: str
    name: str
    arguments: dict[str, Any]
    result: str | None = None


class ChatBuilder:
    """Collects one conversation's turns, attaching tool messages to the calls they answer."""

    def __init__(self, *, keep_raw_arguments: bool = True) -> None:
        """``keep_raw_arguments=False``: arguments that are not JSON raise ValueError (tau-bench
        parses every call's arguments, so its runs never hold such calls)."""
        self.keep_raw = keep_raw_arguments
        self.system: list[str] = []
        self.turns: list[UserTurn | tuple[str, list[_OpenCall]]] = []
        self.calls: dict[str, _OpenCall] = {}
        self.waiting: dict[str, list[_OpenCall]] = {}  # by name, calls in order (legacy results)
        self.latest: list[_OpenCall] = []  # the calls of the latest assistant message

    def add(self, message: dict[str, Any]) -> None:
        role = message.get("role")
        if role in ("system", "developer"):
            self.system.append(_text(message.get("content")))
        elif role == "user":
            self.turns.append(UserTurn(_text(message.get("content"))))
        elif role == "assistant":
            self._assistant(message)
        elif role in ("tool", "function"):
            self._result(message)
        else:
            raise ValueError(f"unknown role {role!r}; expected system, user, assistant or tool")

    def _call(self, call_id: str | None, function: dict[str, Any]) -> _OpenCall:
        call_id = call_id or f"call_{len(self.calls)}"
        if not isinstance(function, dict):
            raise ValueError(
                f"a tool call's function must be an object, not {type(function).__name__}"
            )
        try:
            arguments = _arguments(function.get("arguments"), self.keep_raw)
        except ValueError as exc:
            raise ValueError(f"tool call {call_id} {function.get('name')!r}: {exc}") from None
        call = _OpenCall(call_id, function.get("name", ""), arguments)
        self.calls[call_id] = call
        if isinstance(call.name, str):
            self.waiting.setdefault(call.name, []).append(call)
        return call

    def _assistant(self, message: dict[str, Any]) -> None:
        calls = [
            self._call(c.get("id"), c.get("function") or {})
            for c in message.get("tool_calls") or []
        ]
        if message.get("function_call"):
            calls.append(self._call(None, message["function_call"]))
        self.latest = calls
        self.turns.append((_text(message.get("content")), calls))

    def _result(self, message: dict[str, Any]) -> None:
        call_id = message.get("tool_call_id")
        if not call_id:  # no id, or "" (model servers that give calls the id "")
            call_id = self._unnamed_result(message.get("name"))
        call = self.calls.get(call_id) if call_id is not None else None
        if call is None:
            raise ValueError(
                f"tool message answers no earlier tool call (tool_call_id {call_id!r})"
            )
        call.result = _text(message.get("content"))

    def _unnamed_result(self, name: Any) -> str | None:
        """The id of the call a result without a call id answers: the first unanswered call
        (of that ``name``, when given) of the latest assistant message, in call order (parallel
        calls are answered in order); else the latest unanswered call of that name (the legacy
        ``function`` result)."""
        named = isinstance(name, str) and bool(name)
        for call in self.latest:
            if call.result is None and (not named or call.name == name):
                return call.call_id
        waiting = self.waiting.get(name, []) if isinstance(name, str) else []
        while waiting and waiting[-1].result is not None:  # answered: never again waiting
            waiting.pop()
        return waiting[-1].call_id if waiting else None

    def build(self) -> tuple[str, list[UserTurn | AssistantTurn]]:
        turns: list[UserTurn | AssistantTurn] = []
        for turn in self.turns:
            if isinstance(turn, UserTurn):
                turns.append(turn)
            else:
                content, calls = turn
                outcomes = (ToolOutcome(c.call_id, c.name, c.arguments, c.result) for c in calls)
                turns.append(AssistantTurn(content, tuple(outcomes)))
        return "\n\n".join(self.system), turns


def chat_turns(messages: Sequence[dict[str, Any]]) -> tuple[str, list[UserTurn | AssistantTurn]]:
    """Chat-completions messages -> (system prompt, turns), tool results attached to calls.

    Raises:
        ValueError: an unknown role or a tool message answering no call (names the message).
    """
    builder = ChatBuilder()
    for number, message in enumerate(messages, start=1):  # counted as the user counts them
        try:
            builder.add(message)
        except (ValueError, AttributeError) as exc:
            raise ValueError(f"message {number}: {exc}") from exc
    return builder.build()


def _conversation(row: dict[str, Any], episode_id: str, capture_id: str) -> Conversation:
    system, turns = chat_turns(row["messages"])
    meta = row.get("metadata") or {}
    task_id = meta.get("task_id")
    tools = [t.get("function", t) for t in row.get("tools") or []]
    return Conversation(
        episode_id=episode_id,
        capture_id=capture_id,
        skill=str(meta.get("skill", "openai_chat")),
        source=EventSource(
            host="openai-chat", adapter="import.openai_chat", model=row.get("model")
        ),
        inputs=dict(meta.get("inputs") or {}),
        metadata={
            "task_id": task_id,
            "task_family": meta.get("task_family", None if task_id is None else str(task_id)),
        },
        system=system,
        tools=tools,
        turns=turns,
        reward=meta.get("reward"),
    )


_ONE_REQUEST = (
    'each line must be one chat-completions request, {"messages": [...]}: fix or remove the line'
)


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ImportFormatError(f"cannot read the file ({exc.strerror})", path=path) from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = jsondata.loads(line)
        except jsondata.JsonDataError as exc:
            raise ImportFormatError(
                f"not JSON ({exc}); {_ONE_REQUEST}", path=path, where=f"line {number}"
            ) from exc
        if not isinstance(row, dict) or not isinstance(row.get("messages"), list):
            tau = isinstance(row, list) and any(isinstance(r, dict) and "traj" in r for r in row)
            hint = (
                " (this is a JSON list of runs with 'traj': a tau-bench results file: import it "
                "with `jdsl import tau-bench`)"
                if tau
                else f"; {_ONE_REQUEST}"
            )
            raise ImportFormatError(
                f'expected an object with a "messages" list{hint}',
                path=path,
                where=f"line {number}",
            )
        yield number, row


def openai_chat_conversations(
    path: str | Path, *, capture_id: str = "openai_chat"
) -> list[Conversation]:
    """Read a chat-completions JSONL log into neutral conversations (one per line).

    Raises:
        ImportFormatError: a line that is not JSON, has no ``messages`` list, has an unknown role
            or a tool message answering no call (names the line and the message).
    """
    path = Path(path)
    conversations = []
    for number, row in _rows(path):
        episode_id = row["id"] if isinstance(row.get("id"), str) else f"{path.stem}_{number}"
        try:
            conversations.append(_conversation(row, episode_id, capture_id))
        except (ValueError, TypeError, AttributeError, KeyError) as exc:  # a field's shape
            raise ImportFormatError(str(exc), path=path, where=f"line {number}") from exc
    return conversations


def raw_argument_calls(conversations: Sequence[Conversation]) -> list[str]:
    """``<episode> call <id> <tool> '<text>'`` of every call whose arguments were kept as
    ``{"_raw_arguments": text}`` (not a JSON object), for ``jdsl import`` to warn of."""
    return [
        f"{c.episode_id} call {call.call_id} {call.name} {str(call.arguments['_raw_arguments'])!r}"
        for c in conversations
        for turn in c.turns
        if isinstance(turn, AssistantTurn)
        for call in turn.calls
        if set(call.arguments) == {"_raw_arguments"}
    ]


def import_openai_chat(
    path: str | Path, *, sink: TraceSink | None = None, capture_id: str = "openai_chat"
) -> Trace:
    """Import a chat-completions JSONL log as jdsl trace events, one episode per conversation.

    Args:
        path: the JSONL log.
        sink: where to emit the events too (e.g. a :class:`~jdsl.trace.JsonlTraceSink`);
            a list sink by default.
        capture_id: the capture id of every event.

    Returns:
        A :class:`~jdsl.trace.Trace` of the stamped events of every conversation, in file order.

    Raises:
        ImportFormatError: the log does not have this format.
    """
    return emit_conversations(openai_chat_conversations(path, capture_id=capture_id), sink)
