"""Holding a Ctrl-C while a sink does something it must not be cut in two by."""

from __future__ import annotations

import _signal
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["interrupts_held"]

_SIGINT = int(signal.SIGINT)


@contextmanager
def interrupts_held() -> Iterator[None]:
    """Defer SIGINT (Ctrl-C, KeyboardInterrupt) until the block ends, then deliver it.

    Only on the main thread (the only one Python raises KeyboardInterrupt in) and only while
    SIGINT has a Python handler (the default one raises KeyboardInterrupt); otherwise a no-op.
    Swapping the handler costs a few microseconds: for writes and fan-outs, not for every event
    of the runtime's fast path (which needs none: see :class:`~jdsl.trace.events.EpisodeChain`).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # The C functions: the ``signal`` module's wrappers turn handlers into enums, which costs
    # more than the swap itself (a flush at every episode's end holds Ctrl-C).
    previous = _signal.getsignal(_SIGINT)  # read first: restoring needs nothing set later
    if not callable(previous):
        yield
        return
    caught: list[tuple[int, Any]] = []
    try:
        _signal.signal(_SIGINT, lambda number, frame: caught.append((number, frame)))
        yield
    finally:
        _signal.signal(_SIGINT, previous)
    if caught:
        previous(*caught[0])  # the held Ctrl-C, now: raises KeyboardInterrupt by default
