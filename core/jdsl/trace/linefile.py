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
returns, so a line is never written twice or torn. A failed write keeps what it did not write
for the next flush.
"""

from __future__ import annotations

import _thread
import os
import sys
import time
from pathlib import Path
from typing import Any

from jdsl.trace.interrupts import interrupts_held

__all__ = ["LineFile"]


class LineFile:
    """Buffered appends to ``path`` (opened on first write, in append mode).

    Args:
        path: the file.
        lock: the lock every append and flush holds (the sink's).
        interval_s: the longest a line waits in the buffer; 0 writes each line at once.
        max_lines: flush when this many lines are buffered.
        fsync: ``os.fsync`` after every write.

    Attributes:
        lines: the buffered lines (a sink may append to it while holding :attr:`lock`, then
            call :meth:`added`).
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
    ) -> None:
        self.path = path
        self.lock = lock
        self.interval_s = interval_s
        self.max_lines = max_lines
        self.fsync = fsync
        self.lines: list[str] = []
        self.needs_newline = False
        self._unwritten = b""
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
        if not self.lines and not self._unwritten:
            return
        with self.lock, interrupts_held():
            if not self.lines and not self._unwritten:
                return
            data = "".join(self.lines).encode("utf-8")
            if self.needs_newline:
                data = b"\n" + data
            fd = self._fd if self._fd is not None else self._open()
            view = memoryview(self._unwritten + data)
            self.lines = []  # taken: from here on the lines are written or kept unwritten
            self.needs_newline = False
            self._unwritten = b""
            try:
                while view:
                    view = view[os.write(fd, view) :]
            except BaseException:
                self._unwritten = bytes(view)  # written first by the next flush
                raise
            if self.fsync:
                os.fsync(fd)

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
        except OSError as exc:
            sys.stderr.write(
                f"jdsl: {len(self._unwritten)} bytes of trace events could not be written to "
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
