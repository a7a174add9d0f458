"""Retail tasks (``tau_retail/tasks.json``) and the benchmark's reward.

A task is what a simulated user wants (``instruction``), the gold tool calls that satisfy it
(``actions``) and the strings the agent must say (``outputs``). The reward (tau-bench v1) is 1.0
iff the episode's final database equals the database obtained by replaying the gold actions on a
fresh copy (terminal tools skipped) **and** every required output occurs in one of the agent's
replies (case-insensitive, commas removed from the reply, as the benchmark compares); else 0.0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from jdsl.envs.data import load_json
from jdsl.envs.tau_retail.env import RetailEnv
from jdsl.envs.tau_retail.reads import TERMINAL_TOOLS
from jdsl.errors import JdslError

__all__ = [
    "RetailAction",
    "RetailReward",
    "RetailTask",
    "gold_replay",
    "load_tasks",
    "reward",
    "reward_info",
]

Split = Literal["train", "test", "dev"]


class RetailAction(BaseModel):
    """One gold tool call: ``name`` and keyword ``arguments``."""

    model_config = ConfigDict(frozen=True)

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class RetailTask(BaseModel):
    """One benchmark task (a row of ``tasks.json``)."""

    model_config = ConfigDict(frozen=True)

    split: Split
    task_id: int
    user_id: str
    instruction: str
    annotator: str = ""
    actions: tuple[RetailAction, ...] = ()
    outputs: tuple[str, ...] = ()


class RetailReward(BaseModel):
    """The reward and why: ``database_matches``, and ``outputs`` ({required string: said?})."""

    model_config = ConfigDict(frozen=True)

    reward: float
    database_matches: bool
    outputs: dict[str, bool] = Field(default_factory=dict)


def load_tasks(split: Split | None = None) -> list[RetailTask]:
    """The 635 retail tasks in file order, or those of one ``split`` (train 500 / test 115 / dev 20).

    Task ids restart in each split, so a task is named by ``(split, task_id)``.

    Raises:
        JdslError: an unknown ``split``.
    """
    if split not in (None, "train", "test", "dev"):
        raise JdslError(f"unknown retail split {split!r}; use 'train', 'test' or 'dev'")
    rows = load_json("tau_retail", "tasks.json")
    return [
        RetailTask.model_validate(row) for row in rows if split is None or row["split"] == split
    ]


def _as_task(task: RetailTask | Mapping[str, Any]) -> RetailTask:
    return task if isinstance(task, RetailTask) else RetailTask.model_validate(task)


def gold_replay(task: RetailTask | Mapping[str, Any], env: RetailEnv | None = None) -> RetailEnv:
    """Replay ``task``'s gold actions (terminal tools skipped) on a fresh episode and return it.

    Args:
        task: a :class:`RetailTask` or a ``tasks.json`` row.
        env: the environment to reset and replay on (a new :class:`RetailEnv` by default).
    """
    env = env or RetailEnv()
    env.reset()
    for action in _as_task(task).actions:
        if action.name not in TERMINAL_TOOLS:
            env.step(action.name, action.arguments)
    return env


def reward_info(env: RetailEnv, task: RetailTask | Mapping[str, Any]) -> RetailReward:
    """The benchmark's reward for the episode in ``env`` on ``task``, with its two parts."""
    task = _as_task(task)
    gold = gold_replay(task, RetailEnv(env.snapshot))
    matches = env.db.same_data(gold.db)
    said = [reply.lower().replace(",", "") for reply in env.replies]
    outputs = {out: any(out.lower() in reply for reply in said) for out in task.outputs}
    ok = matches and all(outputs.values())
    return RetailReward(reward=1.0 if ok else 0.0, database_matches=matches, outputs=outputs)


def reward(env: RetailEnv, task: RetailTask | Mapping[str, Any]) -> float:
    """1.0 iff the database equals the gold replay's and every required output was said."""
    return reward_info(env, task).reward
