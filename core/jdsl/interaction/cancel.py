"""Cooperative cancellation: a token passed down to flows, tools and executors (docs/design.md §1)."""

from __future__ import annotations

import threading
from typing import Protocol, runtime_checkable

__all__ = ["CancelToken", "Cancellation", "is_cancelled"]


@runtime_checkable
class Cancellation(Protocol):
    """Anything with a ``cancelled`` flag (a :class:`CancelToken`, or a run's token)."""

    @property
    def cancelled(self) -> bool: ...


class CancelToken:
    """A thread-safe, one-way cancellation flag.

    Example:
        >>> token = CancelToken()
        >>> token.cancel()
        >>> token.cancelled
        True
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = ""

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self._event.is_set()

    def cancel(self, reason: str = "cancelled") -> None:
        """Set the flag; waiting code notices at its next check."""
        self.reason = reason
        self._event.set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``, waking early on cancellation; returns ``cancelled``."""
        return self._event.wait(seconds)


def is_cancelled(token: object | None) -> bool:
    """True when ``token`` is set. Accepts None, a ``cancelled`` flag or an ``is_set()`` event."""
    if token is None:
        return False
    flag = getattr(token, "cancelled", None)
    if flag is not None:
        return bool(flag() if callable(flag) else flag)
    is_set = getattr(token, "is_set", None)
    return bool(is_set()) if callable(is_set) else False
