"""What an execution replay reports: the calls a tree made, the first divergence, the outcome.

:mod:`jdsl.compiler.replay` runs a tree on a recorded episode and returns an :class:`Execution`
(re-exported there).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jdsl.compiler.fallback import Fallback

__all__ = ["UNREPLAYABLE", "Divergence", "Execution", "ReplayedCall", "call_text"]

UNREPLAYABLE = frozenset({"read", "model"})
"""Divergence kinds that say the record cannot answer the tree, not that the tree is wrong."""


@dataclass(frozen=True, slots=True)
class ReplayedCall:
    """One call the tree made: the tool name and keyword arguments."""

    tool: str
    arguments: dict[str, Any]

    def __str__(self) -> str:
        return call_text(self.tool, self.arguments)


@dataclass(frozen=True)
class Divergence:
    """Where a run first left its episode.

    Attributes:
        episode_id: the episode.
        node_id: the node that made the differing call, or where the run stopped (None when
            the run ended without a failing node).
        call_index: 0-based number of the expected call that differs.
        expected: the recorded call (``tool(arg=value)``), the teacher's outcome, or None.
        actual: the call the tree made, its outcome, or None when it made no call.
        reason: one line saying what differs.
        kind: ``write`` (a different or extra write), ``missing`` (a recorded write left
            unmade), ``read`` (a read the episode never made: its result is unknown),
            ``model`` (a model call with no recorded decision), ``error`` or ``outcome``.
    """

    episode_id: str
    node_id: str | None
    call_index: int
    expected: str | None
    actual: str | None
    reason: str
    kind: str = "write"

    def __str__(self) -> str:
        where = f", node {self.node_id!r}" if self.node_id else ""
        return f"episode {self.episode_id!r}{where}, call {self.call_index}: {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "node_id": self.node_id,
            "call_index": self.call_index,
            "expected": self.expected,
            "actual": self.actual,
            "reason": self.reason,
            "kind": self.kind,
        }


@dataclass(frozen=True, slots=True)
class Execution:
    """One episode executed by :func:`execute`.

    Attributes:
        episode_id: the episode.
        calls: the calls the tree made, in order.
        expected: how many recorded calls it had to make.
        status: the run's status (``success`` / ``failure`` / ``error``).
        divergence: the first difference, None when the run matched the episode (or
            handed over to the fallback without a difference before).
        fallback: where the package's fallback would have taken over (the compiled program
            ended FAILURE), None when it served the run end to end.
        model_calls: the model calls the tree made (its predict leaves answered).
    """

    episode_id: str
    calls: tuple[ReplayedCall, ...]
    expected: int
    status: str
    divergence: Divergence | None
    fallback: Fallback | None = None
    model_calls: int = 0

    @property
    def matched(self) -> bool:
        """Served end to end with the episode's writes and outcome."""
        return self.divergence is None and self.fallback is None

    @property
    def outcome(self) -> str:
        """``matched``, ``fallback``, ``unreplayable`` (the tree needed a read or a model
        decision the episode does not hold, so what it would do next is unknown: neither
        matched nor wrong) or ``diverged`` (a write or the outcome differs, or an error)."""
        if self.divergence is not None:
            return "unreplayable" if self.divergence.kind in UNREPLAYABLE else "diverged"
        return "fallback" if self.fallback is not None else "matched"


def call_text(tool: str, arguments: Mapping[str, Any]) -> str:
    """``cancel(order_id='#W1', reason='x')`` (values shortened past 60 characters)."""

    def short(value: Any) -> str:
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."

    return f"{tool}(" + ", ".join(f"{k}={short(v)}" for k, v in arguments.items()) + ")"
