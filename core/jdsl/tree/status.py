"""The two statuses a tick returns (docs/design.md appendix A)."""

from __future__ import annotations

from enum import Enum

__all__ = ["Status"]


class Status(Enum):
    """How a tick ended. ``SUCCESS`` is truthy, ``FAILURE`` falsy; there is no RUNNING.

    A tool may return ``Status.FAILURE`` to let a parent selector recover without raising.
    """

    SUCCESS = "success"
    FAILURE = "failure"

    def __bool__(self) -> bool:
        return self is Status.SUCCESS
