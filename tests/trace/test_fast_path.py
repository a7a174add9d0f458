"""The runtime's fast path: recorders, lazy hashing in the list sink, one-encode JSONL lines."""

from __future__ import annotations

import os
import threading
from typing import Any

import pytest
from jdsl import tree
from jdsl.trace import (
    EventSource,
    FanoutSink,
    JsonlTraceSink,
    ListTraceSink,
    Redactor,
    TraceEvent,
    canonical_json,
    payload_problems,
    read_events,
    verify_chain,
)
from jdsl.trace.canonical import event_json, event_text, json_scalar
from jdsl.trace.events import Timestamps, format_timestamp
from jdsl.trace.sinks import EmitRecorder, recorder_for


def lookup(email: str) -> dict[str, Any]:
    """Find a customer."""
    return {"id": "U1", "email": email, "tags": ["a", "b"]}


def broken(email: str) -> None:
    """Always fails."""
    raise RuntimeError("backend down")


def _tree(*, fail: bool = False) -> tree.Root:
    child = tree.Sequence(
        children=[
            tree.Action(tool="lookup", args={"email": {"ref": "email"}}, store="customer"),
            tree.Check(key="customer.id", equals="U1"),
            tree.Guard(expression={"eq": [{"ref": "customer.id"}, {"const": "U1"}]}),
            tree.Optional(child=tree.Action(tool="broken" if fail else "lookup", args={})),
        ]
    )
    return tree.Root(name="fast", child=child)


def _shape(events: list[TraceEvent]) -> list[tuple[Any, ...]]:
    """What must not depend on the sink: kinds, actors, payloads, sequences, parent links."""
    index = {e.event_id: e.sequence for e in events}
    return [
        (e.kind, e.actor, e.sequence, e.payload, index.get(e.parent_event_id or ""))
        for e in sorted(events, key=lambda e: e.sequence)
    ]


def _run(sink: Any, *, fail: bool = False, episode_id: str | None = None) -> None:
    tools = {"lookup": lookup, "broken": broken}
    _tree(fail=fail).run(
        trace_sink=sink, tools=tools, raise_errors=False, episode_id=episode_id, email="a@x.com"
    )


def test_recorded_events_are_hashed_when_read_and_verify() -> None:
    sink = ListTraceSink()
    _run(sink, episode_id="ep")
    assert sink._pending  # nothing hashed yet
    events = list(sink.events)
    assert not sink._pending and verify_chain(events) == [] and payload_problems(events) == []
    assert [e.sequence for e in events] == list(range(len(events)))
    assert len({e.event_id for e in events}) == len(events)
    _run(sink, episode_id="ep")  # the same episode id again: the chain continues
    assert verify_chain(sink.events) == [] and sink.events[-1].sequence == 2 * len(events) - 1


def test_payloads_are_the_same_through_every_path(tmp_path) -> None:
    fast, fanned = ListTraceSink(), ListTraceSink()
    path = tmp_path / "t.jsonl"
    _run(fast, fail=True)
    _run(FanoutSink(fanned), fail=True)  # no recorder: the emit path
    with JsonlTraceSink(path, redactor=Redactor(enabled=False)) as jsonl:
        _run(jsonl, fail=True)
    written = read_events(path)
    assert verify_chain(written) == [] and verify_chain(fanned.events) == []
    assert _shape(fast.events) == _shape(fanned.events) == _shape(written)
    assert any(e.kind == "tool.call.failed" for e in written)


def test_emit_between_recorded_events_keeps_one_chain() -> None:
    sink = ListTraceSink()
    record = recorder_for(sink, "cap", "ep")
    first = record("node.enter", {"node_id": "a"})
    stamped = sink.emit(TraceEvent(kind="annotation", capture_id="cap", episode_id="ep"))
    record("node.exit", {"node_id": "a", "status": "success"}, first)
    events = sink.events
    assert [e.sequence for e in events] == [0, 1, 2] and stamped.sequence == 1
    assert verify_chain(events) == [] and events[2].parent_event_id == events[0].event_id
    assert stamped.prev_event_hash == events[0].event_hash


def test_a_snapshot_is_taken_when_the_event_is_recorded() -> None:
    board: list[int] = [1]

    def grows() -> list[int]:
        """Returns a list it keeps changing."""
        return board

    sink = ListTraceSink()
    root = tree.Root(name="s", child=tree.Action(tool="grows", store="seen"))
    root.run(trace_sink=sink, tools={"grows": grows})
    board.append(2)  # after the run, before the events are read
    (write,) = [e for e in sink.events if e.kind == "blackboard.write"]
    assert write.payload["value"] == [1]


def test_a_subclass_that_changes_append_is_given_every_event() -> None:
    class Counting(ListTraceSink):
        def __init__(self) -> None:
            super().__init__()
            self.appended = 0

        def append(self, event: TraceEvent) -> None:
            self.appended += 1
            super().append(event)

    sink = Counting()
    assert sink.recorder("c", "e") is None
    assert isinstance(recorder_for(sink, "c", "e"), EmitRecorder)
    _run(sink)
    assert sink.appended == len(sink.events) > 0 and verify_chain(sink.events) == []


def test_threads_recording_into_one_episode_still_chain() -> None:
    sink = ListTraceSink()
    record = recorder_for(sink, "cap", "ep")

    def work() -> None:
        for i in range(300):
            record("annotation", {"i": i})

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    events = sink.events
    assert len(events) == 1200 and verify_chain(events) == []


def test_jsonl_lines_verify_and_a_failed_write_is_retried_without_a_gap(tmp_path) -> None:
    path = tmp_path / "t.jsonl"
    sink = JsonlTraceSink(path, flush_interval_s=0)
    record = recorder_for(sink, "cap", "ep")
    record("annotation", {"api_key": "sk-" + "x" * 30})
    sink.close()
    sink._file._fd = os.open(path, os.O_RDONLY)  # the next write fails
    with pytest.raises(OSError):
        record("annotation", {"n": 1})
    os.close(sink._file._fd)
    sink._file._fd = None
    record("annotation", {"n": 2})  # the failed line is written first, once
    sink.close()
    events = read_events(path)
    assert [e.sequence for e in events] == [0, 1, 2] and verify_chain(events) == []
    assert events[0].payload["api_key"] == "«redacted»"
    assert [e.payload for e in events[1:]] == [{"n": 1}, {"n": 2}]
    record("annotation", {"n": 3})  # a closed sink opens its file again
    assert len(read_events(path)) == 4


def test_jsonl_record_moves_large_values_to_the_blob_store(tmp_path) -> None:
    path = tmp_path / "t.jsonl"
    sink = JsonlTraceSink(path, blob_threshold_bytes=100)
    recorder_for(sink, "cap", "ep")("annotation", {"big": "x" * 500, "small": 1})
    sink.flush()
    (event,) = read_events(path)
    assert event.payload["big"]["$blob"] == event.blob_refs[0] and event.payload["small"] == 1
    assert verify_chain([event]) == []


TRICKY = ["plain", "", 'quo"te', "back\\slash", "tab\tnew\nline", "\x00\x1f\x7f", "é ☃ 日本"]


@pytest.mark.parametrize("make", [ListTraceSink, lambda: JsonlTraceSink(os.devnull)])
def test_a_recorder_refuses_an_unknown_actor(make: Any) -> None:
    sink = make()
    record = recorder_for(sink, "cap", "ep")
    with pytest.raises(ValueError, match="actor 'robot' is not one of"):
        record("annotation", {}, None, "robot")
    with pytest.raises(ValueError, match="actor 'robot'"):
        EmitRecorder(sink, "cap", "ep")("annotation", {}, None, "robot")  # type: ignore[arg-type]
    record("annotation", {})  # the refused event left no gap
    assert [e.sequence for e in getattr(sink, "events", [])] in ([], [0])


@pytest.mark.parametrize("text", TRICKY[:1] + TRICKY[2:])
def test_every_jsonl_line_is_the_canonical_json_of_its_event(tmp_path, text: str) -> None:
    """The recorder's templated lines and its general encoder write the same bytes: each line
    is the event's canonical JSON, whichever ids, kinds, actors and parents it carries."""
    path = tmp_path / "t.jsonl"
    with JsonlTraceSink(path, blob_threshold_bytes=100) as sink:
        for capture, episode in [("cap", "ep"), (text, "ep"), ("cap", text)]:
            record = recorder_for(sink, capture, episode)
            first = record("node.enter", {"node_id": text, "label": text})
            record(text, {"v": [text, 1.5, None]}, first, "user")
            record("tool.call.completed", {"big": "x" * 500}, "ev-" + text)
            record("annotation", {}, None, "environment")
    lines = path.read_text(encoding="utf-8").splitlines()
    events = read_events(path)
    assert len(lines) == len(events) == 12 and verify_chain(events) == []
    assert lines == [event.to_json() for event in events]


def test_ids_and_parents_of_a_long_episode_are_the_canonical_json(tmp_path) -> None:
    """Event ids are written from a per-256-events prefix: lines past the first blocks, and
    parents in an earlier block, are still each event's canonical JSON."""
    path = tmp_path / "t.jsonl"
    with JsonlTraceSink(path, flush_events=97) as sink:
        record = recorder_for(sink, "cap", "ep")
        first = record("node.enter", {"node_id": "root"})
        parent = first
        for n in range(1, 700):
            parent = record("node.exit", {"n": n}, first if n % 3 == 0 else parent)
    lines = path.read_text(encoding="utf-8").splitlines()
    events = read_events(path)
    assert len(lines) == 700 and verify_chain(events) == []
    assert lines == [event.to_json() for event in events]
    ids = [event.event_id for event in events]
    assert [int(i[-12:], 16) for i in ids] == list(range(700))
    assert events[699].parent_event_id == ids[0] and events[698].parent_event_id == ids[697]


@pytest.mark.parametrize("text", TRICKY)
def test_event_text_is_the_canonical_json_of_the_fields(text: str) -> None:
    event = TraceEvent(
        kind=text or "k", capture_id=text, episode_id="ep", payload={"v": text, text: [1.5, None]},
        parent_event_id=text, source=EventSource(host=text, model="m"), blob_refs=["sha256:ab"],
        state_before_ref=text,
    )  # fmt: skip
    body = event.to_dict()
    del body["event_hash"]
    assert event_text(event.__dict__) == canonical_json(body)
    given = {**event.__dict__, "payload": None, "source": None}  # given as texts instead
    payload_text, source_text = event_json(event.payload), event_json(event.source.__dict__)
    assert event_text(given, payload_text, source_text) == canonical_json(body)
    assert event.to_json() == canonical_json(event.to_dict())
    assert json_scalar(text) == canonical_json(text)


def test_every_character_is_quoted_as_json_does() -> None:
    for code in range(0x3000):
        char = chr(code)
        assert json_scalar(char) == canonical_json(char), hex(code)


def test_timestamps_are_utc_with_milliseconds() -> None:
    assert format_timestamp(0) == "1970-01-01T00:00:00.000Z"
    assert format_timestamp(1_700_000_000_123_999_999) == "2023-11-14T22:13:20.123Z"
    clock = Timestamps()
    assert clock.format(5_000_000) is clock.format(5_999_999)  # same millisecond, same text
    assert clock.format(6_000_000).endswith(".006Z")


def test_cached_key_rules_still_depend_on_the_value() -> None:
    redactor = Redactor()
    assert not redactor.is_sensitive_key("token_count", 5)
    assert redactor.is_sensitive_key("token_count", "abc")  # same key, now a secret-like text
    assert not redactor.is_sensitive_key("token_count", 7)
    secret = "sk-" + "y" * 30
    assert redactor.redact_text(secret) == redactor.redact_text(secret) == "«redacted»"


def test_final_blackboard_folds_the_writes_in_order() -> None:
    sink = ListTraceSink()
    _run(sink)
    (episode,) = read_events_from(sink)
    states = episode.blackboard_states()
    assert episode.final_blackboard() == states[-1][1]
    assert episode.final_blackboard()["customer"]["tags"] == ["a", "b"]
    assert episode.final_blackboard(include_inputs=True)["email"] == "a@x.com"


def read_events_from(sink: ListTraceSink) -> list[Any]:
    from jdsl.trace import segment_episodes

    return segment_episodes(sink.events)
