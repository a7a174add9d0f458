"""Import tau-bench episodes (the neutral format of ``tau_airline/episodes.json``) as jdsl traces.

The file is a JSON list of episodes::

    {episode_id, domain, task_split, task_id, trial, reward, agent_model, user_model,
     agent_strategy, source{...}, user_id, instruction, gold_actions[{name, arguments}],
     gold_outputs[], notes{...},
     steps[{role: "user" | "assistant", content, tool_calls[{id, name, arguments}],
            tool_results[{id, name, content}]}]}

The results of an assistant step's calls are attached to that same step. Each episode becomes one
jdsl episode (see :mod:`jdsl.importers.conversation` for the events): its id is
``tau_<domain>_<split>_<task id>_<trial>``, its ``task_family`` is ``<domain>_<split>_<task id>``
(the episodes of one task form one family), its run inputs are ``{"user_id": ...}`` and its
``episode.started`` keeps the task metadata (``task_id``, ``task_split``, ``trial``, ``domain``,
``instruction``, ``gold_actions``, ``gold_outputs``, ``source``, ...). The tool schemas of the
domain are exposed when jdsl ships them (``tau_airline``, ``tau_retail``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from jdsl.envs.data import DataNotFoundError, load_json
from jdsl.importers.common import ImportFormatError, emit_conversations, read_json
from jdsl.importers.conversation import AssistantTurn, Conversation, ToolOutcome, UserTurn
from jdsl.trace import EventSource, Trace, TraceSink

__all__ = ["TauEpisode", "import_tau_bench", "tau_bench_conversations"]


class _Call(BaseModel):
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class _Result(BaseModel):
    id: str
    name: str
    content: str


class _Step(BaseModel):
    role: Literal["user", "assistant"]
    content: str | None = None
    tool_calls: list[_Call] = Field(default_factory=list)
    tool_results: list[_Result] = Field(default_factory=list)


class TauEpisode(BaseModel):
    """One tau-bench episode in the neutral format (unknown extra keys are kept)."""

    model_config = ConfigDict(extra="allow")

    episode_id: str
    domain: str
    task_split: str = "test"
    task_id: int | str
    trial: int = 0
    reward: float | None = None
    agent_model: str | None = None
    user_id: str | None = None
    instruction: str = ""
    gold_actions: list[dict[str, Any]] = Field(default_factory=list)
    gold_outputs: list[str] = Field(default_factory=list)
    steps: list[_Step]

    @property
    def family(self) -> str:
        """``<domain>_<split>_<task id>``: the episodes of one task."""
        return f"{self.domain}_{self.task_split}_{self.task_id}"


def _turn(step: _Step) -> UserTurn | AssistantTurn:
    if step.role == "user":
        return UserTurn(step.content or "")
    results = {result.id: result.content for result in step.tool_results}
    calls = tuple(
        ToolOutcome(call.id, call.name, call.arguments, results.get(call.id))
        for call in step.tool_calls
    )
    return AssistantTurn(step.content or "", calls)


def _domain_tools(domain: str) -> list[dict[str, Any]]:
    try:
        tools: list[dict[str, Any]] = load_json(f"tau_{domain}", "tools.schema.json")
    except DataNotFoundError:
        return []
    return tools


def _conversation(episode: TauEpisode, capture_id: str) -> Conversation:
    extra = episode.model_dump(exclude={"steps", "episode_id", "reward"})
    metadata = {
        **extra,
        "task_family": episode.family,
        "source_episode_id": episode.episode_id,
        "reward": episode.reward,
    }
    return Conversation(
        episode_id=f"tau_{episode.family}_{episode.trial}",
        capture_id=capture_id,
        skill=f"tau_bench.{episode.domain}",
        source=EventSource(host="tau-bench", adapter="import.tau_bench", model=episode.agent_model),
        inputs={"user_id": episode.user_id} if episode.user_id else {},
        metadata=metadata,
        tools=_domain_tools(episode.domain),
        turns=[_turn(step) for step in episode.steps],
        reward=episode.reward,
    )


def tau_bench_conversations(
    path: str | Path, *, capture_id: str = "tau_bench"
) -> list[Conversation]:
    """Read a tau-bench episodes file into neutral conversations (one per episode, file order).

    Raises:
        ImportFormatError: the file is not a JSON list of episodes of this format (names the
            episode and the field at fault).
    """
    rows = read_json(path)
    if not isinstance(rows, list):
        raise ImportFormatError("expected a JSON list of episodes", path=path)
    conversations = []
    for index, row in enumerate(rows):
        try:
            episode = TauEpisode.model_validate(row)
        except ValidationError as exc:
            problem = exc.errors()[0]
            field = ".".join(str(part) for part in problem["loc"])
            raise ImportFormatError(
                f"{field}: {problem['msg']}", path=path, where=f"episode {index}"
            ) from exc
        conversations.append(_conversation(episode, capture_id))
    return conversations


def import_tau_bench(
    path: str | Path, *, sink: TraceSink | None = None, capture_id: str = "tau_bench"
) -> Trace:
    """Import a tau-bench episodes file as jdsl trace events, one episode per tau-bench episode.

    Args:
        path: a JSON list of episodes (e.g. ``data_path("tau_airline", "episodes.json")``).
        sink: where to emit the events too (e.g. a :class:`~jdsl.trace.JsonlTraceSink`);
            a list sink by default.
        capture_id: the capture id of every event.

    Returns:
        A :class:`~jdsl.trace.Trace` of the stamped events of every episode, in file order.

    Raises:
        ImportFormatError: the file does not have this format.
    """
    return emit_conversations(tau_bench_conversations(path, capture_id=capture_id), sink)
