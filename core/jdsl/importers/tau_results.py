"""tau-bench's own results files (what its ``run.py`` writes) read into neutral conversations.

A results file is a JSON list of runs ``{task_id, reward, info: {task: {user_id, actions
[{name, kwargs}], instruction, outputs}, ...}, traj: [chat messages], trial}``. The agent
strategy of a run is read from its ``traj``:

* ``tool-calling``: OpenAI chat messages; assistant messages carry ``tool_calls`` (with ids),
  results come back as ``tool`` messages with the ``tool_call_id``;
* ``act``: each assistant message ends in ``Action:\\n{"name": ..., "arguments": {...}}``
  (tau-bench's ``chat_react_agent.py``); a tool action's result is the next *user* message,
  ``API output: <result>``; the action ``respond`` is the agent speaking
  (``arguments.content``), and the next user message is the user simulator's reply;
* ``react``: the same, with a ``Thought:`` block before ``Action:``.

Act and react calls have no ids; each gets the stable synthetic id ``call_<message index>``.
tau-bench answers every call it runs, so a call no result answers (its ``tool`` message or
``API output:`` missing) marks a run cut short: it is malformed (:func:`unanswered`).
A run that does not fit raises :class:`RunFormatError` naming the field (``traj.5.content``),
which :mod:`jdsl.importers.tau_bench` turns into a skip with a warning, or an error under
``strict``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from jdsl.importers import jsondata
from jdsl.importers.conversation import AssistantTurn, ToolOutcome, UserTurn
from jdsl.importers.openai_chat import ChatBuilder

__all__ = [
    "stated_inputs",
    "unanswered",
    "API_OUTPUT",
    "RESPOND_ACTION",
    "ParsedRun",
    "RunFormatError",
    "Strategy",
    "as_action_traj",
    "detect_strategy",
    "parse_run",
]

Strategy = Literal["tool-calling", "act", "react"]
API_OUTPUT = "API output: "
"""The prefix tau-bench's act/react agents put before a tool result (a user message)."""
RESPOND_ACTION = "respond"
"""tau-bench's action name for the agent speaking to the user (``arguments.content``)."""
_ACTION = "Action:"
_THOUGHT = "Thought:"


class RunFormatError(ValueError):
    """A run that does not have the results-file shape.

    Attributes:
        field: the dotted field at fault, e.g. ``"traj.5.content"``.
        detail: what is wrong with it.
    """

    def __init__(self, field: str, detail: str) -> None:
        self.field = field
        self.detail = detail
        super().__init__(f"{field}: {detail}")


@dataclass(frozen=True)
class ParsedRun:
    """One run: its task metadata, strategy, system prompt and conversation turns."""

    task_id: int | str
    trial: int
    reward: float
    user_id: str | None
    instruction: str
    gold_actions: list[dict[str, Any]]
    gold_outputs: list[str]
    strategy: Strategy
    system: str
    turns: list[UserTurn | AssistantTurn]


def unanswered(call: ToolOutcome, field: str, answer: str) -> RunFormatError:
    """The error of a run whose tool call got no result (``answer``: what would have carried
    it). tau-bench answers every call it runs, so the run was cut short or edited: without the
    result neither what the call did nor what the agent saw next is known."""
    return RunFormatError(
        field, f"tool call {call.name!r} ({call.call_id}) has no result (no {answer} answers "
        "it): the run is incomplete; restore its results or drop the run"
    )  # fmt: skip


def _require(row: Mapping[str, Any], key: str, kinds: type | tuple[type, ...], where: str) -> Any:
    value = row.get(key)
    if not isinstance(value, kinds) or isinstance(value, bool):
        names = (
            kinds.__name__ if isinstance(kinds, type) else " or ".join(k.__name__ for k in kinds)
        )
        raise RunFormatError(f"{where}{key}", f"expected {names}, got {type(value).__name__}")
    return value


def _action_text(content: str) -> str | None:
    """The text after the last ``Action:``, as tau-bench parses it; None when there is none."""
    return content.split(_ACTION)[-1].strip() if _ACTION in content else None


def detect_strategy(traj: Sequence[Any]) -> Strategy:
    """``tool-calling`` when any assistant message has ``tool_calls`` or a ``tool`` message
    exists; else ``react`` when an assistant message has ``Thought:`` before ``Action:``; else
    ``act`` when one has ``Action:``; else ``tool-calling`` (a run with no calls at all)."""
    messages = [m for m in traj if isinstance(m, Mapping)]
    if any(m.get("tool_calls") or m.get("role") == "tool" for m in messages):
        return "tool-calling"
    texts = [
        str(m["content"])
        for m in messages
        if m.get("role") == "assistant" and isinstance(m.get("content"), str)
    ]
    texts = [t for t in texts if _ACTION in t]
    if any(_THOUGHT in t.split(_ACTION)[0] for t in texts):
        return "react"
    return "act" if texts else "tool-calling"


def parse_run(row: Any, *, index: int) -> ParsedRun:
    """Read one run of a results file.

    Raises:
        RunFormatError: a missing or mistyped field, or a traj that does not fit its strategy.
    """
    if not isinstance(row, Mapping):
        raise RunFormatError("(the run)", f"expected an object, got {type(row).__name__}")
    task_id = _require(row, "task_id", (int, str), "")
    traj = _require(row, "traj", list, "")
    info: Mapping[str, Any] = row["info"] if isinstance(row.get("info"), Mapping) else {}
    task: Mapping[str, Any] = info["task"] if isinstance(info.get("task"), Mapping) else {}
    if not traj and info.get("error"):  # run.py's record of a run whose agent raised
        raise RunFormatError(
            "info.error", f"tau-bench recorded an error and no traj ({str(info['error'])[:160]}): "
            "the run never happened; rerun the task"
        )  # fmt: skip
    reward = row.get("reward")
    if reward is None:  # run.py writes a reward for every run; a run without one is not solved
        raise RunFormatError("reward", "missing: give the run's reward (1.0 solved, 0.0 failed)")
    if isinstance(reward, bool) or not isinstance(reward, int | float):
        raise RunFormatError("reward", f"expected a number, got {type(reward).__name__}")
    if not 0.0 <= reward <= 1.0:  # tau-bench scores a run 1.0 (solved) or 0.0 (failed)
        raise RunFormatError(
            "reward", f"{reward} is not between 0 and 1 (tau-bench: 1.0 solved, 0.0 failed)"
        )
    strategy = detect_strategy(traj)
    system, turns = (_chat_turns if strategy == "tool-calling" else _action_turns)(traj)
    gold = [
        {"name": a.get("name"), "arguments": dict(a.get("kwargs") or a.get("arguments") or {})}
        for a in task.get("actions") or ()
        if isinstance(a, Mapping)
    ]
    trial = row.get("trial")
    return ParsedRun(
        task_id=task_id,
        trial=trial if isinstance(trial, int) and not isinstance(trial, bool) else 0,
        reward=float(reward),
        user_id=task.get("user_id") if isinstance(task.get("user_id"), str) else None,
        instruction=str(task.get("instruction") or ""),
        gold_actions=gold,
        gold_outputs=[str(o) for o in task.get("outputs") or ()],
        strategy=strategy,
        system=system,
        turns=turns,
    )


def stated_inputs(user_id: str | None, turns: Sequence[UserTurn | AssistantTurn]) -> dict[str, Any]:
    """The run inputs a run's user gave the agent: ``{"user_id": ...}`` when a user message
    states the task's ``user_id``, else nothing. tau-bench's ``info.task.user_id`` is the
    task's hidden answer key: an airline user states it, a retail user gives an email or a
    name and zip code and the agent looks the id up, so it is an input only when said (it
    stays in the episode's metadata either way). A run without it (other tau-bench revisions
    write ``info`` without ``task``) takes the first ``user_id`` a call passes or a result holds
    that a user message states."""
    said = "\n".join(t.content for t in turns if isinstance(t, UserTurn))
    if user_id is None:
        user_id = next((v for v in _user_ids(turns) if v in said), None)
    return {"user_id": user_id} if user_id and user_id in said else {}


_USER_ID = re.compile(r'"user_id"\s*:\s*"([^"]+)"')


def _user_ids(turns: Sequence[UserTurn | AssistantTurn]) -> Iterator[str]:
    """The ``user_id`` values the run's calls pass and its results hold, in order."""
    for turn in turns:
        for call in turn.calls if isinstance(turn, AssistantTurn) else ():
            if isinstance(call.arguments.get("user_id"), str):
                yield call.arguments["user_id"]
            yield from _USER_ID.findall(call.result or "")


def _chat_turns(traj: Sequence[Any]) -> tuple[str, list[UserTurn | AssistantTurn]]:
    builder = ChatBuilder(keep_raw_arguments=False)
    for i, message in enumerate(traj):
        try:
            builder.add(message)
        except (ValueError, AttributeError, TypeError) as exc:
            raise RunFormatError(f"traj.{i}", str(exc)) from exc
    try:
        system, turns = builder.build()
    except ValueError as exc:  # a call's name or id that is not text
        raise RunFormatError("traj", str(exc)) from exc
    for turn in turns:  # a message whose calls none answered: not one call of it ran
        if isinstance(turn, AssistantTurn) and turn.calls:
            if all(c.result is None for c in turn.calls):
                call = turn.calls[0]
                raise unanswered(call, _call_field(traj, call.call_id), "tool message")
    return system, [_ran(t) for t in turns]


def _call_field(traj: Sequence[Any], call_id: str) -> str:
    """``traj.<i>`` of the first message asking for call ``call_id`` (``traj`` if none)."""
    for i, message in enumerate(traj):
        calls = message.get("tool_calls") if isinstance(message, Mapping) else None
        if any(isinstance(c, Mapping) and c.get("id") == call_id for c in calls or ()):
            return f"traj.{i}"
    return "traj"


def _ran(turn: UserTurn | AssistantTurn) -> UserTurn | AssistantTurn:
    """The turn with only the calls tau-bench ran: each has a ``tool`` message answering it.
    tau-bench runs one call per assistant message; before it cut ``tool_calls`` to that one,
    a message asking for several kept them all, unanswered and never run."""
    if isinstance(turn, UserTurn) or all(c.result is not None for c in turn.calls):
        return turn
    return replace(turn, calls=tuple(c for c in turn.calls if c.result is not None))


def _message(traj: Sequence[Any], i: int) -> tuple[str, str]:
    message = traj[i]
    if not isinstance(message, Mapping):
        raise RunFormatError(
            f"traj.{i}", f"expected a message object, got {type(message).__name__}"
        )
    role, content = message.get("role"), message.get("content")
    if role not in ("system", "user", "assistant"):
        raise RunFormatError(
            f"traj.{i}.role", f"{role!r} in an act/react run; expected system, user or assistant"
        )
    if not isinstance(content, str):
        raise RunFormatError(f"traj.{i}.content", f"expected text, got {type(content).__name__}")
    return str(role), content


def _parse_action(content: str, i: int, answered: bool) -> tuple[str, dict[str, Any]] | None:
    """``(name, arguments)`` of an assistant message's action; None for plain text, which
    tau-bench treats as ``respond`` with the text after the last ``Action:`` (all of it without
    one). ``answered``: the next message is an ``API output:``, so the environment ran the
    action and its JSON must parse."""
    text = _action_text(content)
    if text is None:
        return None
    try:
        action = jsondata.loads(text)
    except ValueError as exc:
        if answered:  # the environment ran a call this text does not tell: it cannot be read
            raise RunFormatError(
                f"traj.{i}.content",
                f"the Action JSON is not JSON ({exc}), yet traj.{i + 1} answers it with "
                f"{API_OUTPUT!r}: the call it made cannot be read; fix or drop the run",
            ) from exc
        return None  # tau-bench's own fallback: the text is what the agent said
    if not isinstance(action, Mapping) or not isinstance(action.get("name"), str):
        raise RunFormatError(f"traj.{i}.content", 'the Action JSON has no "name" string')
    arguments = action.get("arguments", {})
    if not isinstance(arguments, Mapping):
        raise RunFormatError(f"traj.{i}.content", 'the Action JSON\'s "arguments" is not an object')
    return action["name"], dict(arguments)


def _action_turns(traj: Sequence[Any]) -> tuple[str, list[UserTurn | AssistantTurn]]:
    """Turns of an act/react run: each tool action paired with the next ``API output:``."""
    system: list[str] = []
    turns: list[UserTurn | AssistantTurn] = []
    i = 0
    while i < len(traj):
        role, content = _message(traj, i)
        if role == "system":
            system.append(content)
        elif role == "user":
            turns.append(UserTurn(content))
        else:
            i = _assistant_action(traj, i, content, turns)
        i += 1
    return "\n\n".join(system), turns


def _assistant_action(
    traj: Sequence[Any], i: int, content: str, turns: list[UserTurn | AssistantTurn]
) -> int:
    """Append the assistant message at ``i`` (and its ``API output:``); return the last index
    consumed."""
    after = traj[i + 1] if i + 1 < len(traj) else None
    answered = (
        isinstance(after, Mapping)
        and after.get("role") == "user"
        and str(after.get("content") or "").startswith(API_OUTPUT)
    )
    action = _parse_action(content, i, answered)
    thought = content.split(_ACTION)[0].strip() if _ACTION in content else ""
    thought = thought.removeprefix(_THOUGHT).strip()
    if action is None or action[0] == RESPOND_ACTION:
        # tau-bench's fallback says the text after the last Action: (all of it when there is none)
        said = (
            (_action_text(content) or content)
            if action is None
            else str(action[1].get("content", ""))
        )
        turns.append(AssistantTurn(said, raw=content, thought=thought))
        return i
    name, arguments = action
    if i + 1 >= len(traj):  # the run ends before the environment answered the action
        raise unanswered(
            ToolOutcome(f"call_{i}", name, arguments, None), f"traj.{i}", f"{API_OUTPUT!r} message"
        )
    role, reply = _message(traj, i + 1)
    if role != "user" or not reply.startswith(API_OUTPUT):
        raise RunFormatError(
            f"traj.{i + 1}.content",
            f"expected the {API_OUTPUT!r} user message answering action {name!r}",
        )
    call = ToolOutcome(f"call_{i}", name, arguments, reply[len(API_OUTPUT) :])
    i += 1
    turns.append(AssistantTurn("", (call,), raw=content, thought=thought))
    return i


def as_action_traj(
    traj: Sequence[Mapping[str, Any]], *, react: bool = False
) -> list[dict[str, Any]]:
    """A ``tool-calling`` traj in the shape tau-bench's ``act`` (or ``react``) agent writes.

    Each tool call becomes an assistant message ``Action:\n{"name", "arguments"}`` (``react``:
    after a ``Thought:`` line, the message's text or ``I should call <tool> now.``) answered by
    the user message ``API output: <result>``; each assistant text becomes the action
    ``respond``. A ``tool`` message answers the latest call with its id made before it (gpt-4o
    reuses call ids within a run). No call keeps an id.
    """
    results: dict[int, str] = {}
    latest: dict[str, int] = {}
    for message in traj:
        for call in message.get("tool_calls") or ():
            latest[call["id"]] = id(call)
        if message.get("role") == "tool":
            results[latest[message["tool_call_id"]]] = str(message.get("content"))
    out: list[dict[str, Any]] = []
    for message in traj:
        if message["role"] in ("system", "user"):
            out.append({"role": message["role"], "content": message["content"]})
            continue
        if message["role"] != "assistant":
            continue
        for call in message.get("tool_calls") or ():
            name = call["function"]["name"]
            arguments = json.loads(call["function"]["arguments"] or "{}")
            thought = (message.get("content") or f"I should call {name} now.") if react else None
            out.append(_action_message(name, arguments, thought))
            out.append({"role": "user", "content": API_OUTPUT + results[id(call)]})
        if message.get("content") and not message.get("tool_calls"):
            thought = "I can answer the user now." if react else None
            out.append(_action_message(RESPOND_ACTION, {"content": message["content"]}, thought))
    return out


def _action_message(name: str, arguments: dict[str, Any], thought: str | None) -> dict[str, Any]:
    text = f"{_ACTION}\n{json.dumps({'name': name, 'arguments': arguments})}"
    return {"role": "assistant", "content": f"{_THOUGHT}\n{thought}\n{text}" if thought else text}
