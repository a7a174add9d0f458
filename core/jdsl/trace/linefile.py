"""An append-only text file of lines, buffered with a durability policy (the JSONL sink's file).

Lines are kept in memory and written with one ``os.write`` per flush, which happens

- when the sink says so (the JSONL sink flushes at every ``episode.finished``, which the
  runtime emits at the end of every run, also on an exception or a KeyboardInterrupt),
- when ``max_lines`` lines are buffered,
- at the latest ``interval_s`` after the first unflushed line (a timer thread), and
- on :meth:`LineFile.close`, when the sink is garbage-collected, and at interpreter exit.

``interval_s=0`` writes every line at once (per-event durability). Only a hard kill (SIGKILL,
power loss, ``os._exit``) loses the buffered tail; ``fsync=True`` also syncs every write.

A flush runs with Ctrl-C held (on the main thread): a SIGINT during it is delivered when it
returns. Any other asynchronous exception (a SIGALRM handler that raises, between any two
bytecodes, e.g. just after ``os.write`` returned) cannot make a line written twice or lost
either: the batch being written is one attribute, stored before its lines leave
:attr:`LineFile.lines`, with the file size it starts at, and the next flush writes only what the
file does not hold yet (one process writes the file; the sink's lock sees to its threads). A
failed write keeps what it did not write for the next flush. A Ctrl-C delivered while a
finalizer writes (a dropped sink) is raised again in the main thread once it has left the
finalizer, since Python drops a finalizer's exception.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from jdsl.trace.interrupts import interrupts_held

__all__ = ["LineFile"]


class _Batch(NamedTuple):
    """Lines being written: the list they were taken from and how many were taken, their
    bytes, whether a newline goes first, and the file size they start at (-1: none written)."""

    lines: list[str]
    taken: int
    text: bytes
    newline: bool
    start: int

    @property
    def data(self) -> bytes:
        return b"\n" + self.text if self.newline else self.text


class LineFile:
    """Buffered appends to ``path`` (opened on first write, in append mode).

    Args:
        path: the file.
        lock: the lock every append and flush holds (the sink's).
        interval_s: the longest a line waits in the buffer; 0 writes each line at once.
        max_lines: flush when this many lines are buffered.
        fsync: ``os.fsync`` after every write.
        render: called with :attr:`lines` at the start of every flush (lock held, Ctrl-C
            held) to replace, in place, the items a sink kept unencoded by their lines.

    Attributes:
        lines: the buffered lines (a sink may append to it while holding :attr:`lock`, then
            call :meth:`added`), or items ``render`` turns into lines.
        needs_newline: the file ends inside a line (a torn last line): write a newline first.
    """

    def __init__(
        self,
        path: Path,
        lock: Any,
        *,
        interval_s: float = 0.1,
        max_lines: int = 200,
        fsync: bool = False,
        render: Callable[[list[Any]], None] | None = None,
    ) -> None:
        self.path = path
        self.render = render
        self.lock = lock
        self.interval_s = interval_s
        self.max_lines = max_lines
        self.fsync = fsync
        self.lines: list[Any] = []  # str, or an item render turns into one
        self.needs_newline = False
        self._batch: _Batch | None = None  # being written (see flush)
        self._fd: int | None = None
        self._timer: object | None = None  # the pending flush's token (see _start_timer)

    def added(self) -> None:
        """Apply the policy after lines were appended to :attr:`lines` (caller holds the lock)."""
        count = len(self.lines)
        if self.interval_s <= 0 or count >= self.max_lines:
            self.flush()
        elif count == 1 and self._timer is None:
            self._start_timer()

    def flush(self) -> None:
        """Write the buffered lines with one ``write`` (and sync, if asked).

        Raises:
            OSError: the write failed; what was not written stays buffered, written first by
                the next flush (nothing is dropped, nothing written twice).
        """
        if not self.lines and self._batch is None:
            return
        with self.lock, interrupts_held():
            if self.render is not None and self.lines:
                self.render(self.lines)
            while self._batch is not None or self.lines:
                self._write_batch(self._fd if self._fd is not None else self._open())

    def _write_batch(self, fd: int) -> None:
        """Write the batch being written, or the buffered lines as a new one (see the module
        doc: an exception between any two bytecodes leaves a state this redoes exactly)."""
        if self._batch is None:
            data = "".join(self.lines).encode("utf-8")
            # One store makes the lines the batch's; all that follows can be redone.
            self._batch = _Batch(self.lines, len(self.lines), data, self.needs_newline, -1)
        batch = self._batch
        self._settle(batch)
        if batch.start < 0:  # nothing of it written yet: it starts at the end of the file
            start = os.fstat(fd).st_size
            self._batch = batch = _Batch(batch.lines, batch.taken, batch.text, batch.newline, start)
            view = memoryview(batch.data)
        else:  # cut short: what the file does not hold yet
            view = memoryview(batch.data)[max(os.fstat(fd).st_size - batch.start, 0) :]
        while view:
            view = view[os.write(fd, view) :]
        if self.fsync:
            os.fsync(fd)
        self._batch = None

    def _settle(self, batch: _Batch) -> None:
        """Take ``batch``'s lines out of :attr:`lines` (idempotent: a flush cut short may
        have done it already, or not; lines appended since stay buffered)."""
        if self.lines is batch.lines:
            self.lines = batch.lines[batch.taken :]
        if batch.newline:
            self.needs_newline = False

    def close(self) -> None:
        """Flush and close the file (a later line opens it again)."""
        with self.lock:
            self._timer = None  # a pending timer finds its token gone and does nothing
            try:
                self.flush()
            finally:
                fd, self._fd = self._fd, None
                if fd is not None:
                    os.close(fd)

    def close_finally(self) -> None:
        """:meth:`close` for a finalizer (the sink dropped, interpreter exit): a write that
        fails again is one line on stderr, not a traceback from the exit machinery."""
        try:
            self.close()
        except KeyboardInterrupt:  # Python prints and drops a finalizer's exception
            _thread.start_new_thread(_interrupt_after, (LineFile.close_finally.__code__,))
        except OSError as exc:
            unwritten = len(self._batch.data) if self._batch is not None else 0
            sys.stderr.write(
                f"jdsl: {unwritten} bytes of trace events could not be written to "
                f"{self.path} ({exc.strerror or exc})\n"
            )

    def _open(self) -> int:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)  # less the umask
        self._fd = fd
        return fd

    def _start_timer(self) -> None:
        """Flush ``interval_s`` from now on a thread of its own (a bare ``_thread``: a
        ``threading.Timer`` waits for its thread to start, 0.15-0.4 ms on a busy machine)."""
        self._timer = token = object()
        _thread.start_new_thread(self._flush_later, (token,))

    def _flush_later(self, token: object) -> None:
        time.sleep(self.interval_s)
        with self.lock:
            if self._timer is not token:  # flushed and closed meanwhile, or superseded
                return
            self._timer = None
            try:
                self.flush()
            except OSError:  # kept unwritten: the next flush (the episode's end) raises it
                pass


def _interrupt_after(code: types.CodeType) -> None:
    """Give the main thread its Ctrl-C back once it has left every frame running ``code`` (the
    finalizer that caught it): raised inside the finalizer, Python would drop it again."""
    main = threading.main_thread().ident or 0
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        frame = sys._current_frames().get(main)
        while frame is not None and frame.f_code is not code:
            frame = frame.f_back
        if frame is None:
            break
        time.sleep(0.0005)
    _thread.interrupt_main(signal.SIGINT)
