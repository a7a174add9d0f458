"""Asynchronous exceptions from real signals never write a batch twice or lose a Ctrl-C.

A SIGALRM handler that raises (a timeout wrapper) can fire between any two bytecodes of a
flush; the batch must then be written once, whole. A Ctrl-C that arrives while a dropped
sink's finalizer writes its tail must still stop the program (an exception inside a finalizer
is printed and dropped by Python).
"""

from __future__ import annotations

import gc
import signal
import threading
import time
from pathlib import Path

import pytest
from jdsl.trace import JsonlTraceSink
from jdsl.trace import linefile as linefile_module
from jdsl.trace.linefile import LineFile

pytestmark = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread()
    or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    or not hasattr(signal, "setitimer"),
    reason="needs real signals and Python's SIGINT handler on the main thread",
)


class _Alarm(Exception):
    """What the SIGALRM handler raises (as a timeout wrapper would)."""


def _raise_alarm(number: int, frame: object) -> None:
    raise _Alarm


def test_an_exception_from_a_signal_handler_never_writes_a_batch_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real SIGALRM lands just after a batch's bytes went out (the write is followed by a
    20 ms wait, so the handler runs there); the handler's exception must not make the next
    flush write the batch again, nor lose a line."""
    real_write, real_sleep = linefile_module.os.write, time.sleep

    def write_then_wait(fd: int, data: bytes) -> int:
        written = real_write(fd, data)
        real_sleep(0.02)  # the alarm's handler runs here, after the bytes are out
        return written

    monkeypatch.setattr(linefile_module.os, "write", write_then_wait)
    path = tmp_path / "t.jsonl"
    file = LineFile(path, threading.RLock(), interval_s=3600, max_lines=10**9)
    previous = signal.signal(signal.SIGALRM, _raise_alarm)
    hits = 0
    try:
        for n in range(10):
            file.lines.extend(f"{n}.{k}\n" for k in range(50))
            try:
                signal.setitimer(signal.ITIMER_REAL, 0.005)
                file.flush()
                real_sleep(0.05)  # an alarm held by the flush is delivered by now
            except _Alarm:
                hits += 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    file.close()
    assert hits == 10  # every alarm's exception reached the caller
    lines = path.read_text().splitlines()
    assert len(lines) == len(set(lines)), f"{len(lines) - len(set(lines))} lines written twice"
    assert lines == [f"{n}.{k}" for n in range(10) for k in range(50)]


def test_a_ctrl_c_during_a_finalizers_write_still_stops_the_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = linefile_module.os.write

    def write_with_ctrl_c(fd: int, data: bytes) -> int:
        signal.raise_signal(signal.SIGINT)  # a real Ctrl-C while the tail is written
        return real_write(fd, data)

    # Sinks earlier tests dropped in reference cycles would be finalized by the collect below,
    # each write a Ctrl-C of its own, one arriving after this test: collect them first.
    gc.collect()
    sink = JsonlTraceSink(tmp_path / "t.jsonl", flush_interval_s=3600)
    sink._file.lines.append('{"x": 1}\n')
    monkeypatch.setattr(linefile_module.os, "write", write_with_ctrl_c)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # others may swap it
    # Other gc callbacks (hypothesis installs one) would be where the returned Ctrl-C lands:
    # Python drops an exception there too, which no sink can help.
    callbacks = gc.callbacks[:]
    gc.callbacks.clear()
    stopped = False
    try:
        del sink
        gc.collect()  # the finalizer writes the tail; the Ctrl-C arrives inside it
        deadline = time.monotonic() + 5  # the Ctrl-C comes back once the finalizer has left
        while time.monotonic() < deadline:
            pass
    except KeyboardInterrupt:
        stopped = True
    finally:
        signal.signal(signal.SIGINT, previous)
        gc.callbacks[:] = callbacks
    assert stopped, "the Ctrl-C was swallowed by the sink's finalizer"
    assert (tmp_path / "t.jsonl").read_text() == '{"x": 1}\n'
