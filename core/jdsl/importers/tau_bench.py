"""Import tau-bench runs as jdsl traces: tau-bench's own results files and our extraction format.

Two file shapes are read, detected per row (both are JSON lists):

* **results** (what tau-bench's ``run.py`` writes; :mod:`jdsl.importers.tau_results`):
  ``{task_id, reward, info: {task: {...}}, traj: [...], trial}``, any of the ``tool-calling``,
  ``act`` and ``react`` strategies;
* **episodes** (our extraction format, ``tau_airline/episodes.json``):
  ``{episode_id, domain, task_split, task_id, trial, reward, agent_model, user_id, instruction,
  gold_actions, gold_outputs, steps[{role, content, tool_calls[{id, name, arguments}],
  tool_results[{id, name, content}]}]}``; a call id may be null (an act/react run extracted
  into this format): calls then get synthetic ids and results pair with calls in order.

Each run becomes one jdsl episode (events: :mod:`jdsl.importers.conversation`): its id is
``tau_<family>_<trial>``, its ``task_family`` ``<domain>_<split>_<task id>`` (the runs of one
task form one family), its run inputs ``{"user_id": ...}`` only when a user message states it
(:func:`~jdsl.importers.tau_results.stated_inputs`; the hidden ``info.task.user_id`` is
metadata), its metadata ``group_by: "intent"`` (``jdsl compile`` groups the runs by what they
change unless told otherwise: :mod:`jdsl.compiler.families`) and ``initial_state:
"tau_<domain>"`` (the database every run starts from, which answers the reads a run never made
in held-out validation: :mod:`jdsl.commands.validate`); what the user simulator said is kept
as ``user.message`` events (the compiler reads them as the ``conversation``). A results file
names neither domain nor split: the domain is the shipped one whose tools the run calls (or its
system prompt names), the split the one of the shipped task with the same id and instruction.
A failed run (reward < 1) is imported with its reward as the outcome (``environment.reward``
``{"reward", "passed": false}``, ``episode.finished`` status failure); the compiler never builds
from it. A malformed run is skipped with an :class:`ImportSkipWarning` naming the file, the run
and the field, and counted in :attr:`TauImport.skipped`; ``strict=True`` raises instead.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from jdsl.errors import InputError
from jdsl.importers.common import ImportFormatError, emit_conversations, read_rows
from jdsl.importers.conversation import AssistantTurn, Conversation, ToolOutcome, UserTurn
from jdsl.importers.tau_domains import (
    DOMAINS,
    check_domain,
    detect_domain,
    domain_tools,
    task_splits,
)
from jdsl.importers.tau_results import (
    ParsedRun,
    RunFormatError,
    parse_run,
    stated_inputs,
    unanswered,
)
from jdsl.trace import EventSource, Trace, TraceSink

__all__ = [
    "DOMAINS",
    "ImportSkipWarning",
    "SkippedEpisode",
    "TauEpisode",
    "TauImport",
    "import_tau_bench",
    "read_tau_bench",
    "tau_bench_conversations",
]

DOMAIN_NAME = r"^[a-z][a-z0-9_]{0,63}$"
"""What an episode's ``domain`` may be (``retail``): one lower-case name, never a path part."""


class ImportSkipWarning(UserWarning):
    """A run of a tau-bench file was skipped because it is malformed (the message names the
    file, the run and the field; pass ``strict=True`` / ``--strict`` to make it an error)."""


class _Call(BaseModel):
    id: str | None = None
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class _Result(BaseModel):
    id: str | None = None
    name: str | None = None
    content: str


class _Step(BaseModel):
    role: Literal["user", "assistant"]
    content: str | None = None
    tool_calls: list[_Call] = Field(default_factory=list)
    tool_results: list[_Result] = Field(default_factory=list)


class TauEpisode(BaseModel):
    """One tau-bench episode in our extraction format (unknown extra keys are kept)."""

    model_config = ConfigDict(extra="allow")

    episode_id: str
    domain: str = Field(pattern=DOMAIN_NAME)
    task_split: str = "test"
    task_id: int | str
    trial: int = 0
    reward: float | None = Field(default=None, ge=0.0, le=1.0)  # tau-bench: 1.0 solved
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


@dataclass(frozen=True)
class SkippedEpisode:
    """A malformed run left out of an import.

    Attributes:
        path: the file.
        index: the run's position in the file (0-based).
        episode: how the run names itself (``task 5 trial 1``, an episode id) or ``run <n>``
            (its place counted from 1).
        field: the dotted field at fault (``traj.5.content``, ``steps.1.tool_calls.0.name``).
        message: what is wrong with it.
    """

    path: str
    index: int
    episode: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.run}: {self.field}: {self.message}"

    @property
    def run(self) -> str:
        """``run 3 (task 5 trial 1)``, or ``run 3`` for a run that names itself no better: its
        place in the file counted from 1, as the user counts runs."""
        number = f"run {self.index + 1}"
        return f"{number} ({self.episode})" if self.episode != number else number


@dataclass(frozen=True)
class TauImport:
    """What :func:`read_tau_bench` read.

    Attributes:
        path: the file.
        conversations: one per imported run, in file order.
        skipped: the malformed runs left out.
        formats: ``{"results" | "episodes": runs}``.
        strategies: ``{"tool-calling" | "act" | "react": runs}``.
        renamed_ids: the runs of a task and trial an earlier run already had (kept, their
            episode id suffixed with their row: ``tau_airline_test_1_0_20``).
    """

    path: str
    conversations: tuple[Conversation, ...]
    skipped: tuple[SkippedEpisode, ...]
    formats: Mapping[str, int]
    strategies: Mapping[str, int]
    renamed_ids: tuple[str, ...] = ()

    @property
    def renamed(self) -> int:
        """How many runs were renamed (see ``renamed_ids``)."""
        return len(self.renamed_ids)

    @property
    def succeeded(self) -> int:
        """Runs with reward 1.0 (or no reward recorded)."""
        return sum(c.passed is not False for c in self.conversations)

    def summary(self) -> str:
        """``87 runs (54 succeeded, 33 failed; tool-calling 87), 1 skipped``."""
        n = len(self.conversations)
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.strategies.items())) or "-"
        return (
            f"{n} runs ({self.succeeded} succeeded, {n - self.succeeded} failed; {kinds}), "
            f"{len(self.skipped)} skipped"
        ) + (
            f", {self.renamed} renamed (the same task and trial as an earlier run: "
            f"{self.renamed_ids[0]} ...)"
            if self.renamed_ids
            else ""
        )


# -- our extraction format ------------------------------------------------------------------------
def _turn(step: _Step, at: int) -> UserTurn | AssistantTurn:
    if step.role == "user":
        return UserTurn(step.content or "")
    by_id = {r.id: r.content for r in step.tool_results if r.id is not None}
    calls = []
    for k, call in enumerate(step.tool_calls):
        if call.id is not None:
            result = by_id.get(call.id)
        else:  # no ids (an act/react run): results answer the calls in order
            result = step.tool_results[k].content if k < len(step.tool_results) else None
        calls.append(ToolOutcome(call.id or f"call_{at}_{k}", call.name, call.arguments, result))
    if calls and all(c.result is None for c in calls):
        raise unanswered(calls[0], f"steps.{at}.tool_results", "tool result")
    return AssistantTurn(step.content or "", tuple(calls))


def _episode_conversation(episode: TauEpisode, capture_id: str) -> Conversation:
    extra = episode.model_dump(exclude={"steps", "episode_id", "reward"})
    metadata = {
        **extra,
        "task_family": episode.family,
        "group_by": "intent",
        "initial_state": _initial_state(episode.domain),
        "source_episode_id": episode.episode_id,
        "reward": episode.reward,
    }
    turns = [_turn(step, at) for at, step in enumerate(episode.steps)]
    return Conversation(
        episode_id=f"tau_{episode.family}_{episode.trial}",
        capture_id=capture_id,
        skill=f"tau_bench.{episode.domain}",
        source=EventSource(host="tau-bench", adapter="import.tau_bench", model=episode.agent_model),
        inputs=stated_inputs(episode.user_id, turns),
        metadata=metadata,
        tools=domain_tools(episode.domain),
        turns=turns,
        reward=episode.reward,
        passed=_passed(episode.reward),
    )


def _initial_state(domain: str) -> str:
    """The name of the database every run of ``domain`` starts from (``tau_airline``), recorded
    as the imported episodes' ``initial_state`` metadata: ``jdsl compile --holdout`` and
    ``jdsl package validate`` answer a read a run never made from it
    (``--initial-state``, :mod:`jdsl.commands.validate`)."""
    return f"tau_{domain}"


def _passed(reward: float | None) -> bool | None:
    """tau-bench counts a run as solved only at reward 1.0; anything less failed."""
    return None if reward is None else reward >= 1.0


# -- tau-bench results files ----------------------------------------------------------------------
def _run_conversation(
    run: ParsedRun, index: int, path: Path, capture_id: str, domain: str | None
) -> Conversation:
    check_domain(run, domain, path, index)
    domain = domain or detect_domain(run)
    if domain is None:
        raise RunFormatError(
            "info.task", "cannot tell the domain (no shipped tool set fits its calls); pass "
            "domain='airline' or 'retail' (--domain)"
        )  # fmt: skip
    split = task_splits(domain).get((str(run.task_id), run.instruction))
    family = f"{domain}_{split}_{run.task_id}" if split else f"{domain}_{run.task_id}"
    metadata = {
        "domain": domain, "task_split": split, "task_id": run.task_id, "trial": run.trial,
        "agent_strategy": run.strategy, "user_id": run.user_id, "instruction": run.instruction,
        "gold_actions": run.gold_actions, "gold_outputs": run.gold_outputs,
        "source": {"format": "tau-bench results", "path": path.name, "index": index},
        "task_family": family, "reward": run.reward, "group_by": "intent",
        "initial_state": _initial_state(domain),
    }  # fmt: skip
    return Conversation(
        episode_id=f"tau_{family}_{run.trial}",
        capture_id=capture_id,
        skill=f"tau_bench.{domain}",
        source=EventSource(host="tau-bench", adapter="import.tau_bench"),
        inputs=stated_inputs(run.user_id, run.turns),
        metadata=metadata,
        system=run.system,
        tools=domain_tools(domain),
        turns=run.turns,
        reward=run.reward,
        passed=_passed(run.reward),
    )


# -- reading a file -------------------------------------------------------------------------------
def _name_of(row: Any, index: int) -> str:
    if isinstance(row, Mapping):
        if isinstance(row.get("episode_id"), str):
            return str(row["episode_id"])
        task, trial = row.get("task_id"), row.get("trial", 0)
        if _readable(task) and _readable(trial):  # not "task None" nor "task [1]"
            return f"task {task} trial {trial}"
    return f"run {index + 1}"


def _readable(value: Any) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool) and value != ""


def _read_row(
    row: Any, index: int, path: Path, capture_id: str, domain: str | None
) -> tuple[str, str, Conversation]:
    """``(format, strategy, conversation)`` of one row.

    Raises:
        RunFormatError: the row is malformed (names the field).
    """
    if isinstance(row, Mapping) and "traj" in row:
        run = parse_run(row, index=index)
        return "results", run.strategy, _run_conversation(run, index, path, capture_id, domain)
    if isinstance(row, Mapping) and ("steps" in row or "episode_id" in row):
        try:
            episode = TauEpisode.model_validate(row)
        except ValidationError as exc:
            problem = exc.errors()[0]
            field = ".".join(str(part) for part in problem["loc"])
            raise RunFormatError(field, problem["msg"]) from exc
        strategy = str(row.get("agent_strategy") or "tool-calling")
        return "episodes", strategy, _episode_conversation(episode, capture_id)
    raise RunFormatError(
        "traj", "a run has 'traj' (a tau-bench results file) or 'steps' (jdsl's extraction "
        "format); this one has neither"
    )  # fmt: skip


def read_tau_bench(
    path: str | Path,
    *,
    strict: bool = False,
    domain: str | None = None,
    capture_id: str = "tau_bench",
) -> TauImport:
    """Read a tau-bench file (results or extraction format, detected per run).

    Args:
        path: a JSON list of runs (a file of one run, or JSON Lines of runs, reads as the list).
        strict: raise on the first malformed run instead of skipping it with a warning.
        domain: ``"airline"`` / ``"retail"`` for a results file whose domain cannot be told.
        capture_id: the capture id of every event.

    Returns:
        A :class:`TauImport` (conversations, skipped runs, counts; ``summary()``).

    Raises:
        ImportFormatError: the file is not a JSON list, no run in it could be read, or
            (``strict``) a run is malformed; the message names the file, run and field.

    Warns:
        ImportSkipWarning: once per malformed run skipped.
    """
    if domain is not None and domain not in DOMAINS:
        raise InputError(
            f"domain {domain!r} is not a tau-bench domain jdsl ships; pass one of: "
            f"{', '.join(DOMAINS)} (or none, to tell it from the runs' tools)",
            key="domain",
        )
    path = Path(path)
    rows = read_rows(path, lambda row: isinstance(row, dict) and ("traj" in row or "steps" in row))
    if not isinstance(rows, list):
        otlp = isinstance(rows, dict) and "resourceSpans" in rows
        hint = " (this is OTLP JSON: import it with `jdsl import otel`)" if otlp else ""
        raise ImportFormatError(
            f"expected a JSON list of runs (a tau-bench results file or episodes){hint}",
            path=path,
        )
    conversations, skipped, formats, strategies, renamed = _read_rows(
        rows, path, strict, domain, capture_id
    )
    if rows and not conversations:
        raise ImportFormatError(
            f"none of its {len(rows)} runs could be read (first: {skipped[0].run}: "
            f"{skipped[0].field}: {skipped[0].message}); check that it is a tau-bench results "
            "file (runs with task_id and traj) or jdsl's extraction format (episodes with "
            "episode_id and steps), or fix that field in each run (--strict / strict=True stops "
            "at the first)", path=path,
        )  # fmt: skip
    return TauImport(
        str(path), tuple(conversations), tuple(skipped), formats, strategies, tuple(renamed)
    )


def _read_rows(
    rows: Sequence[Any], path: Path, strict: bool, domain: str | None, capture_id: str
) -> tuple[list[Conversation], list[SkippedEpisode], Counter[str], Counter[str], list[str]]:
    conversations: list[Conversation] = []
    skipped: list[SkippedEpisode] = []
    formats: Counter[str] = Counter()
    strategies: Counter[str] = Counter()
    seen: set[str] = set()
    renamed: list[str] = []
    for index, row in enumerate(rows):
        try:
            kind, strategy, conversation = _read_row(row, index, path, capture_id, domain)
        except ImportFormatError:  # the whole file's fault (a --domain its calls contradict)
            raise
        except (ValueError, TypeError, AttributeError, KeyError) as exc:  # RunFormatError too
            # a field's shape found past parse_run is the run's fault too
            field, detail = (exc.field, exc.detail) if isinstance(exc, RunFormatError) else (
                "(the run)", str(exc))  # fmt: skip
            bad = SkippedEpisode(str(path), index, _name_of(row, index), field, detail)
            if strict:
                raise ImportFormatError(
                    f"{bad.field}: {bad.message} (without --strict / strict=True the run is "
                    "skipped with a warning)", path=path, where=bad.run,
                ) from exc  # fmt: skip
            warnings.warn(ImportSkipWarning(f"skipped {bad}"), stacklevel=3)
            skipped.append(bad)
            continue
        if conversation.episode_id in seen:  # the same task and trial twice: keep both
            conversation = replace(conversation, episode_id=f"{conversation.episode_id}_{index}")
            renamed.append(conversation.episode_id)
        seen.add(conversation.episode_id)
        conversations.append(conversation)
        formats[kind] += 1
        strategies[strategy] += 1
    return conversations, skipped, formats, strategies, renamed


def tau_bench_conversations(
    path: str | Path,
    *,
    capture_id: str = "tau_bench",
    strict: bool = False,
    domain: str | None = None,
) -> list[Conversation]:
    """The conversations of :func:`read_tau_bench` (malformed runs skipped with a warning).

    Raises:
        ImportFormatError: as :func:`read_tau_bench`.
    """
    found = read_tau_bench(path, strict=strict, domain=domain, capture_id=capture_id)
    return list(found.conversations)


def import_tau_bench(
    path: str | Path,
    *,
    sink: TraceSink | None = None,
    capture_id: str = "tau_bench",
    strict: bool = False,
    domain: str | None = None,
) -> Trace:
    """Import a tau-bench file as jdsl trace events, one episode per run.

    Args:
        path: a tau-bench results file (``run.py`` output, any strategy) or our extraction
            format (e.g. ``data_path("tau_airline", "episodes.json")``).
        sink: where to emit the events too (e.g. a :class:`~jdsl.trace.JsonlTraceSink`);
            a list sink by default.
        capture_id: the capture id of every event.
        strict: raise on a malformed run instead of skipping it with a warning.
        domain: the domain of a results file whose runs do not tell it.

    Returns:
        A :class:`~jdsl.trace.Trace` of the stamped events of every imported run, in file order.

    Raises:
        ImportFormatError: as :func:`read_tau_bench`.

    Example:
        >>> trace = import_tau_bench(data_path("tau_airline", "raw", "gpt-4o-airline.dev.json"))  # doctest: +SKIP
        >>> len(trace.episodes)  # doctest: +SKIP
        87
    """
    found = read_tau_bench(path, strict=strict, domain=domain, capture_id=capture_id)
    return emit_conversations(found.conversations, sink)
