"""The trace reader: typed errors for bad lines, the fast path, streamed episodes."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jdsl.trace import (
    JsonlTraceSink,
    TraceEvent,
    TraceFormatError,
    iter_episodes,
    iter_events,
    read_events,
    verify_chain,
)
from jdsl.trace.canonical import canonical_json, event_text
from jdsl.trace.events import digest


def _sink_file(tmp_path, write_episode, *episodes: str):
    path = tmp_path / "run.jsonl"
    with JsonlTraceSink(path) as sink:
        for episode_id in episodes:
            write_episode(sink, episode_id)
    return path


def test_a_line_torn_inside_a_utf8_character_is_a_typed_error_or_skipped(
    tmp_path, write_episode
) -> None:
    path = _sink_file(tmp_path, write_episode, "ep_1")
    with path.open("ab") as handle:
        handle.write('{"kind": "annotation", "payload": {"note": "caf\u00e9'.encode()[:-1])
    with pytest.raises(TraceFormatError, match=r"line 10: not UTF-8 text") as info:
        read_events(path)
    assert info.value.line == 10 and not isinstance(info.value, UnicodeDecodeError)
    assert len(read_events(path, strict=False)) == 9
    with JsonlTraceSink(path) as sink:  # resumes: the torn line is skipped, a newline added
        sink.emit(TraceEvent(kind="annotation", capture_id="cap_test", episode_id="ep_1"))
    trace = read_events(path, strict=False)
    assert len(trace) == 10 and verify_chain(trace) == []


def test_a_deeply_nested_line_is_a_typed_error_not_a_recursion_error(tmp_path) -> None:
    path = tmp_path / "deep.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    path.write_text('{"kind": "annotation", "payload": {"x": ' + deep + "}}\n")
    with pytest.raises(TraceFormatError, match=r"line 1: not a trace event \(nested too deep"):
        list(iter_events(path))
    assert list(iter_events(path, strict=False)) == []


@pytest.mark.parametrize(
    "line",
    ['{"kind": 3}', "[1, 2]", '{"no": "kind"}', '{"kind": "x", "sequence": "zero"}', "{nope"],
)
def test_lines_that_are_no_event_name_the_line(tmp_path, line: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n" + line + "\n")
    with pytest.raises(TraceFormatError, match=r"bad\.jsonl, line 2: not a trace event"):
        read_events(path)


def test_nan_and_huge_integers_still_decode(tmp_path) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text('{"kind": "annotation", "payload": {"x": NaN, "n": ' + "9" * 30 + "}}\n")
    (event,) = read_events(path)
    assert math.isnan(event.payload["x"]) and event.payload["n"] == int("9" * 30)


def test_the_fast_path_builds_the_event_validation_would(tmp_path, write_episode) -> None:
    path = _sink_file(tmp_path, write_episode, "ep_1", "ep_2")
    lines = path.read_text().splitlines()
    fast = list(iter_events(path))
    assert fast == [TraceEvent.from_dict(json.loads(line)) for line in lines]
    assert [e.to_json() for e in fast] == lines and verify_chain(fast) == []


def test_events_with_extra_or_coercible_fields_go_through_validation(tmp_path) -> None:
    path = tmp_path / "hand.jsonl"
    full = TraceEvent(kind="annotation", payload={"a": 1}).to_dict()
    path.write_text(
        json.dumps({**full, "extra": 1}) + "\n" + json.dumps({"kind": "annotation"}) + "\n"
    )
    first, second = read_events(path)
    assert first == TraceEvent.from_dict(full) and "extra" not in first.to_dict()
    assert second.episode_id == "ep_local" and second.sequence == 0


def test_iter_episodes_gives_read_events_episodes_one_at_a_time(tmp_path, write_episode) -> None:
    path = tmp_path / "mixed.jsonl"
    with JsonlTraceSink(path) as sink:
        write_episode(sink, "ep_a")
        write_episode(sink, "ep_b")
        write_episode(sink, "ep_a")  # a reused id: a later run, split off as ep_a#2
    _interleave(path)
    expected = read_events(path).episodes
    streamed = list(iter_episodes(path))
    assert [e.episode_id for e in streamed] == [e.episode_id for e in expected]
    assert [e.episode_id for e in streamed] == ["ep_a", "ep_b", "ep_a#2"]
    for got, want in zip(streamed, expected, strict=True):
        assert got.events == want.events and got.chain_start == want.chain_start
        assert got.verify() == []


def _interleave(path) -> None:
    """Move ep_b's first event before ep_a's last: two runs written at once."""
    lines = path.read_text().splitlines(keepends=True)
    b_first = next(i for i, line in enumerate(lines) if '"episode_id":"ep_b"' in line)
    lines.insert(b_first - 1, lines.pop(b_first))
    path.write_text("".join(lines))


def test_iter_episodes_reads_many_files_in_order_and_skips_bad_lines(
    tmp_path, write_episode
) -> None:
    one = _sink_file(tmp_path / "1", write_episode, "ep_1")
    two = _sink_file(tmp_path / "2", write_episode, "ep_2", "ep_3")
    with two.open("a") as handle:
        handle.write("{torn\n")
    with pytest.raises(TraceFormatError):
        list(iter_episodes([one, two]))
    ids = [e.episode_id for e in iter_episodes([one, two], strict=False)]
    assert ids == ["ep_1", "ep_2", "ep_3"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)  # fmt: skip


def _has_float(value) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    return isinstance(value, list) and any(_has_float(v) for v in value)


@settings(max_examples=150, deadline=None)
@given(payload=st.dictionaries(st.text(), JSON, max_size=5))
def test_event_text_matches_json_on_json_data_without_floats_and_old_hashes_verify(
    payload,
) -> None:
    event = TraceEvent(kind="annotation", payload=payload)
    fast = event_text(event.__dict__)
    legacy = event_text(event.__dict__, encode=canonical_json)
    assert json.loads(fast) == json.loads(legacy)
    if not _has_float(payload):
        assert fast == legacy
    event.event_hash = digest(legacy)  # hashed as an earlier version did: still verifies
    assert event.verify_hash()
    event.event_hash = event.compute_hash()
    assert event.verify_hash()


def test_a_device_or_pipe_is_a_trace_format_error_not_an_endless_read(tmp_path) -> None:
    """/dev/zero has no line break: reading it ran out of memory; a pipe gave 'no episodes'
    (iter_episodes reads a file twice, and a pipe has no size)."""
    import os
    import threading

    from jdsl.trace import TraceFormatError, iter_episodes, iter_events

    # /dev/null: a device like /dev/zero, but it ends (the test must not eat memory if this
    # check goes: before it, /dev/null read as empty)
    with pytest.raises(TraceFormatError, match="a device, not a regular file"):
        next(iter_episodes("/dev/null"))
    with pytest.raises(TraceFormatError, match="a device, not a trace file"):
        next(iter_events("/dev/null"))
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            list(iter_episodes(fifo))
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(10)
    if not outcome:
        with open(fifo, "wb"):  # unblock the reader
            pass
    assert outcome and isinstance(outcome[0], TraceFormatError), outcome
    assert "a pipe, not a regular file" in str(outcome[0])


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ('{"resourceSpans": [{"scopeSpans": []}]}', "jdsl import otel"),
        ('[{"task_id": 1, "reward": 0.0, "traj": []}]', "jdsl import tau-bench"),
    ],
)
def test_a_file_of_a_format_jdsl_imports_says_which_import(tmp_path, line, command) -> None:
    from jdsl.trace import TraceFormatError, iter_events

    path = tmp_path / "foreign.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(TraceFormatError, match=f"convert it first: `{command} FILE"):
        list(iter_events(path))


def test_a_missing_trace_path_is_a_typed_error_naming_it(tmp_path) -> None:
    import pickle

    from jdsl.errors import JdslError
    from jdsl.trace import TraceNotFoundError

    missing = tmp_path / "missing.jsonl"
    for read in (iter_episodes, iter_events, read_events):
        with pytest.raises(TraceNotFoundError, match=r"no trace file at .*missing\.jsonl") as info:
            list(read(missing))
        assert isinstance(info.value, JdslError) and isinstance(info.value, FileNotFoundError)
        assert info.value.path == str(missing) and "Errno" not in str(info.value)
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is TraceNotFoundError and str(again) == str(info.value)


def test_a_directory_is_refused_saying_it_is_a_directory(tmp_path) -> None:
    for read in (iter_episodes, iter_events):
        with pytest.raises(TraceFormatError, match="a directory, not a trace file") as info:
            list(read(tmp_path))
        assert "not a file, not a regular" not in str(info.value)
        assert f"{tmp_path}/*.jsonl" in str(info.value)


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize(
    "form", ["loose", "as jdsl writes it", "as jdsl writes it, long payload number"]
)
def test_a_sequence_beyond_64_bits_reads_the_same_in_both_passes(
    tmp_path, write_episode, strict: bool, form: str
) -> None:
    """The first pass (placing events in episodes) decodes a long ``sequence`` as the second
    does, so ``iter_episodes`` agrees with ``read_events`` instead of a ``KeyError``: for a
    line not as jdsl writes it (the whole line is scanned) and one as it does (its payload)."""
    path = _sink_file(tmp_path, write_episode, "ep_a", "ep_b")
    lines = path.read_text().splitlines(keepends=True)
    event = json.loads(lines[1])
    event["sequence"] = 2**70
    if form == "loose":
        lines[1] = json.dumps(event) + "\n"
    else:
        if "long payload" in form:
            event["payload"]["n"] = 2**70
        lines[1] = json.dumps(event, sort_keys=True, separators=(",", ":")) + "\n"
    path.write_text("".join(lines))
    try:
        expected = read_events(path, strict=strict).episodes
    except TraceFormatError as exc:
        with pytest.raises(TraceFormatError) as streamed:
            list(iter_episodes(path, strict=strict))
        assert str(streamed.value) == str(exc)
        return
    streamed = list(iter_episodes(path, strict=strict))
    assert [e.events for e in streamed] == [e.events for e in expected]
