"""Ctrl-C during a ``local:`` generation lets the process go promptly and keeps the trace.

The llama.cpp server runs in this process, and stopping it at exit waits for the step it is
computing: a step over a whole long prompt (llama.cpp's batch of 2,048 tokens) kept ``jdsl demo
--model local:...`` 24-34 s (70 s measured) from exiting; a Ctrl-C while its weights loaded hung
the process for good. The real model's tests are slow; a fake slow generator (it answers after
30 s unless the client leaves, and notes when it does) checks without it that the request's
connection closes at once (the server drops a request whose client left) and that the run's
trace keeps the episode, ended as cancelled.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from jdsl.dsl import predict, root
from jdsl.providers.local import LocalModel
from jdsl.providers.messages import Message
from jdsl.trace import JsonlTraceSink, read_events


class SlowGenerator:
    """An OpenAI chat-completions server that takes 30 s per answer, unless the client leaves."""

    def __init__(self) -> None:
        self.received = threading.Event()
        self.left = threading.Event()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._http.daemon_threads = True
        threading.Thread(target=self._http.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    def start(self) -> SlowGenerator:  # stands in for LocalServer
        return self

    def stop(self) -> None:
        pass

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                fake.received.set()
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:  # "generating": watch for the client leaving
                    if _closed(self.connection):
                        fake.left.set()
                        return
                    time.sleep(0.02)
                body = json.dumps({
                    "id": "x", "object": "chat.completion", "created": 0, "model": "m",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": "late"}}],
                }).encode()  # fmt: skip
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler


def _closed(connection: socket.socket) -> bool:
    readable, _, _ = select.select([connection], [], [], 0)
    if not readable:
        return False
    try:
        return connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


@pytest.fixture
def slow() -> Iterator[SlowGenerator]:
    fake = SlowGenerator()
    yield fake
    fake.close()


@pytest.fixture
def ctrl_c(slow: SlowGenerator) -> Iterator[None]:
    """A SIGINT to this process once the fake has the request (Python's own handler raises
    KeyboardInterrupt in the main thread, where the request waits)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)

    def press() -> None:
        if slow.received.wait(10):
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    presser = threading.Thread(target=press, daemon=True)
    presser.start()
    try:
        yield
    finally:
        presser.join(15)
        signal.signal(signal.SIGINT, previous)


def _model(slow: SlowGenerator) -> LocalModel:
    return LocalModel("smollm2-135m", server=slow, max_retries=0, timeout_s=60)  # type: ignore[arg-type]


def test_ctrl_c_closes_the_generation_request_at_once(slow, ctrl_c) -> None:
    model = _model(slow)
    with pytest.raises(KeyboardInterrupt) as interrupted:  # kept, as the CLI keeps it
        model.generate("", [Message.user("write a long story")])
    assert slow.left.wait(2), "the request stayed open: the server would keep generating"
    assert interrupted.value is not None


def test_a_trace_survives_ctrl_c_during_a_local_generation(slow, ctrl_c, tmp_path) -> None:
    tree = root("ask").do(predict("question -> answer", id="answer_it"))
    sink = JsonlTraceSink(tmp_path / "t.jsonl")
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        tree.run(model=_model(slow), trace_sink=sink, question="why?", episode_id="ep")
    sink.close()
    assert time.monotonic() - started < 10
    assert slow.left.wait(2)
    (episode,) = read_events(tmp_path / "t.jsonl").episodes
    assert episode.finished.get("status") == "cancelled"


_SCRIPT = """
import sys, time
from jdsl.dsl import predict, root
from jdsl.providers.local import LocalModel
from jdsl.providers.messages import GenerationSettings, Message
from jdsl.trace import JsonlTraceSink
model = LocalModel("smollm2-135m", generation=GenerationSettings(temperature=0, seed=0,
                   max_tokens=4000))
model.generate("", [Message.user("Hi")])  # the server is up and has answered once
tree = root("story").do(predict("notes, question -> answer", id="write"))
notes = " ".join(f"Item {i} is a red box with {i} apples." for i in range(180))  # ~2,000 tokens
sink = JsonlTraceSink(sys.argv[1], flush_interval_s=0)
try:
    tree.run(model=model, trace_sink=sink, notes=notes, question="Which box has most apples?",
             episode_id="ep")
except KeyboardInterrupt as exc:
    kept = exc  # as the command line keeps it (typer.Exit's context)
    sink.close()
    print("interrupted", flush=True)
    raise SystemExit(130)
"""


def _real_model_or_skip() -> None:
    pytest.importorskip("xllamacpp")
    from jdsl.providers.local_weights import MissingWeightsError, weights_path

    try:
        weights_path("smollm2-135m")
    except MissingWeightsError:
        pytest.skip("the smollm2-135m weights are not installed")


@pytest.mark.slow
def test_the_real_local_model_exits_promptly(tmp_path) -> None:
    _real_model_or_skip()
    trace = tmp_path / "t.jsonl"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen([sys.executable, "-c", _SCRIPT, str(trace)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip
    deadline = time.monotonic() + 120
    while "model.requested" not in (trace.read_text() if trace.exists() else ""):
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.1)
    time.sleep(1.0)  # reading the prompt (a minute on one thread of a busy machine)
    pressed = time.monotonic()
    process.send_signal(signal.SIGINT)
    try:
        output = process.communicate(timeout=60)[0].decode()
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("still running 60 s after Ctrl-C")
    took = time.monotonic() - pressed
    assert process.returncode == 130, output
    assert took < 5, f"exit took {took:.1f} s"  # < 2 s measured; roomy for a shared machine
    (episode,) = read_events(trace).episodes
    assert episode.finished.get("status") == "cancelled"


_STARTING = """
import sys
import xllamacpp
from jdsl.providers.local import LocalModel

def server(params, made=xllamacpp.Server):  # says when the weights start loading (in C)
    print("starting", flush=True)
    return made(params)

xllamacpp.Server = server
model = LocalModel("smollm2-135m")
try:
    _ = model.client  # starts the server: seconds of loading the weights
except KeyboardInterrupt:
    print("interrupted", flush=True)
    raise SystemExit(130)
print("started", flush=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize("loading", [0.2, 1.0])
def test_ctrl_c_while_the_local_server_starts_exits_promptly(tmp_path, loading) -> None:
    """Freeing an xllamacpp server still loading its weights waited for ever (its destructor
    joins a loop nobody stops): a Ctrl-C then hung the process (seen at 0.2 s and 1 s)."""
    _real_model_or_skip()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    log = tmp_path / "out.txt"
    with log.open("w") as out:
        process = subprocess.Popen([sys.executable, "-c", _STARTING], env=env, stdout=out,
                                   stderr=subprocess.STDOUT)  # fmt: skip
    deadline = time.monotonic() + 60
    while "starting" not in log.read_text():
        assert time.monotonic() < deadline and process.poll() is None, log.read_text()
        time.sleep(0.05)
    time.sleep(loading)
    pressed = time.monotonic()
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        pytest.fail(f"still running 30 s after Ctrl-C: {log.read_text()}")
    took = time.monotonic() - pressed
    # 0 or killed by SIGINT (-2): it had started already and the Ctrl-C came while it exited
    # (Python puts SIGINT back to its default while the interpreter finalizes)
    started = "started" in log.read_text()
    assert process.returncode in ((130, 0, -signal.SIGINT) if started else (130,)), log.read_text()
    assert took < 5, f"exit took {took:.1f} s"
