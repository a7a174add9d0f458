"""The JSONL sink's durability policy and the redaction screen."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jdsl.trace import JsonlTraceSink, Redactor, TraceEvent, read_events, recorder_for
from jdsl.trace.canonical import event_json
from jdsl.trace.redact import DEFAULT_SECRET_PATTERNS
from jdsl.trace.screen import RedactionScreen
from jdsl.tree import Action, Root, Sequence


def _lines(path) -> int:
    return len(path.read_bytes().splitlines()) if path.exists() else 0


def test_events_are_buffered_then_written_at_episode_end(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    sink = JsonlTraceSink(path, flush_interval_s=60)
    seen: list[int] = []
    root = Root(name="r", child=Sequence(children=[Action(tool="look"), Action(tool="look")]))
    root.bind(tools={"look": lambda: seen.append(_lines(path))})
    root.run(trace_sink=sink)
    assert seen == [0, 0]  # nothing written while the episode ran
    trace = read_events(path)  # everything written when it finished
    assert trace[-1].kind == "episode.finished" and trace.verify() == []


def test_the_timer_writes_a_stalled_episode_within_the_interval(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    sink = JsonlTraceSink(path, flush_interval_s=0.05)
    recorder_for(sink, "cap", "ep")("annotation", {"n": 1})
    assert _lines(path) == 0
    deadline = time.monotonic() + 5
    while _lines(path) == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _lines(path) == 1


def test_every_n_events_are_written_and_dropping_the_sink_writes_the_rest(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    sink = JsonlTraceSink(path, flush_interval_s=60, flush_events=3)
    record = recorder_for(sink, "cap", "ep")
    for n in range(7):
        record("annotation", {"n": n})
    assert _lines(path) == 6
    del sink, record
    assert [e.payload["n"] for e in read_events(path)] == list(range(7))


def test_an_exception_in_a_tool_writes_the_episode(tmp_path) -> None:
    path = tmp_path / "run.jsonl"

    def boom() -> None:
        raise ValueError("down")

    root = Root(name="r", child=Sequence(children=[Action(tool="boom")]))
    root.bind(tools={"boom": boom})
    root.run(trace_sink=JsonlTraceSink(path, flush_interval_s=60), raise_errors=False)
    assert read_events(path)[-1].payload["status"] == "error"


TEXT = st.sampled_from(["", "plain", "sk-" + "a" * 24, "Bearer abcdefgh1234", "password",
                        "eyJabcdefghij.eyJabcdefghij.abcdefghij", "x\ny", 'q"', ":", '",'])  # fmt: skip
KEYS = st.sampled_from(["key", "path", "value", "api_key", "input_tokens", "token", "note", "a",
                        "0", ":api_key", "x,:password", ":"])  # fmt: skip
JSON = st.recursive(
    st.none() | st.integers() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(payload=st.dictionaries(KEYS, JSON, max_size=4))
def test_a_payload_the_screen_passes_is_one_redaction_leaves_alone(payload) -> None:
    redactor = Redactor()
    screen = RedactionScreen(redactor)
    if not screen.may_redact(event_json(payload)):
        assert redactor.redact(payload) == payload


def test_a_key_after_a_colon_is_screened_like_any_other() -> None:
    """A key such as ``":password"`` after a string value: the text before its ``":`` is the
    value's closing quote and a comma, yet the key is still found and flagged."""
    screen = RedactionScreen(Redactor())
    assert screen.may_redact(event_json({"0": "v", ":password": "hunter2"}))  # keys sorted
    assert screen.may_redact(event_json({"0": [":"], "x,:token": "t"}))
    assert not screen.may_redact(event_json({"0": "v", ":note": ":"}))


def test_the_sink_redacts_what_the_screen_flags(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    with JsonlTraceSink(path) as sink:
        record = recorder_for(sink, "cap", "ep")
        record("blackboard.write", {"key": "user.password", "value": "hunter2"})
        record("annotation", {"note": "key sk-" + "b" * 30, "input_tokens": 3})
        sink.emit(TraceEvent(kind="annotation", payload={"api_key": "x"}))
    first, second, third = read_events(path)
    assert first.payload["value"] == "«redacted»" and "sk-" not in second.payload["note"]
    assert second.payload["input_tokens"] == 3 and third.payload["api_key"] == "«redacted»"


@pytest.mark.parametrize("pattern", DEFAULT_SECRET_PATTERNS[:-2])  # last two: after a header
@settings(max_examples=30, deadline=None, database=None, derandomize=True)
@given(data=st.data())
def test_the_screen_passes_every_default_secret_pattern_on(pattern: str, data: Any) -> None:
    """Every default pattern's matches hold one of the screen's literal hints, so a pattern
    added without its hint fails here instead of leaving secrets unredacted."""
    secret = data.draw(st.from_regex(pattern, fullmatch=True, alphabet=st.characters(
        codec="ascii", exclude_characters='"\\')))  # fmt: skip
    text = json.dumps({"result": f"id {secret} end"}, separators=(",", ":"))
    assert RedactionScreen(Redactor()).may_redact(text), secret


def test_the_screen_passes_a_bearer_token_on() -> None:
    text = json.dumps({"h": "Authorization: Bearer abcdefgh12345678"}, separators=(",", ":"))
    assert RedactionScreen(Redactor()).may_redact(text)


def test_the_screen_passes_a_basic_authorization_on() -> None:
    text = json.dumps({"h": "authorization: BASIC dXNlcjpodW50ZXIy"}, separators=(",", ":"))
    assert RedactionScreen(Redactor()).may_redact(text)


def test_a_sink_on_a_pipe_or_device_does_not_read_it_to_resume(tmp_path) -> None:
    """Resuming read the path to its end: /dev/zero or /dev/full until memory ran out (as
    ``jdsl run --trace /dev/full`` did), a named pipe with no writer for ever."""
    import os
    import threading

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)  # reading it blocks (no writer), where /dev/zero would eat the memory
    made: list[object] = []
    thread = threading.Thread(target=lambda: made.append(JsonlTraceSink(fifo)), daemon=True)
    thread.start()
    thread.join(10)
    assert made, "JsonlTraceSink(<a named pipe>) is still reading it to resume"
    if not made:  # unblock the reader so the thread ends
        with open(fifo, "wb"):
            pass


def test_a_write_that_fails_again_at_exit_is_one_line_not_a_traceback() -> None:
    import subprocess
    import sys
    from pathlib import Path

    core = Path(__file__).resolve().parents[2] / "core"
    script = (
        "from jdsl.trace import JsonlTraceSink, recorder_for\n"
        "sink = JsonlTraceSink('/dev/full')\n"
        "record = recorder_for(sink, 'cap', 'ep')\n"
        "try:\n"
        "    record('episode.finished', {'status': 'success'})\n"
        "except OSError:\n"
        "    print('raised')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
        env={"PYTHONPATH": str(core), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.stdout.strip() == "raised", done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "bytes of trace events could not be written to /dev/full" in done.stderr
