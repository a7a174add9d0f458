""":class:`Takeover`: a react leaf that took a run over from a failure (a compiled package's
fallback after its compiled program stopped: ``jdsl.compiler.fallback``)."""

from __future__ import annotations

from typing import NamedTuple

from jdsl.tree.context import Failure

__all__ = ["Takeover"]


class Takeover(NamedTuple):
    """A react ticked while a failure was pending (a selector's later child): it took the run
    over from that failure. The run's :attr:`~jdsl.tree.context.RunContext.takeover` is the
    first one, and the trace's ``react.started`` names the same failure (``after_failure``).

    Attributes:
        by: the react's effective id (``fallback`` for a compiled package's fallback).
        failure: the failure it took over from: where the run stopped, and why.
    """

    by: str
    failure: Failure

    def __str__(self) -> str:
        return f"{self.by} took over at {self.failure.node_id}: {self.failure.reason}"
