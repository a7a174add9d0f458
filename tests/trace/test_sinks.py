"""Sinks: list, null, JSONL (flushed, thread-safe, resumable), fan-out, fail-open."""

from __future__ import annotations

import threading

import pytest
from jdsl.trace import (
    FanoutSink,
    JsonlTraceSink,
    ListTraceSink,
    NullTraceSink,
    SafeSink,
    TraceEvent,
    TraceFormatError,
    TraceSink,
    iter_events,
    read_events,
    verify_chain,
)


def _event(kind: str = "annotation", episode_id: str = "ep", **payload: object) -> TraceEvent:
    return TraceEvent(kind=kind, episode_id=episode_id, payload=dict(payload))


class Exploding:
    def emit(self, event: TraceEvent) -> TraceEvent:
        raise OSError("disk full")


def test_every_sink_satisfies_the_protocol(tmp_path) -> None:
    sinks = [ListTraceSink(), NullTraceSink(), JsonlTraceSink(tmp_path / "t.jsonl")]
    sinks += [FanoutSink(ListTraceSink()), SafeSink(Exploding())]
    assert all(isinstance(s, TraceSink) for s in sinks)


def test_list_sink_stamps_per_episode_sequences_and_chains() -> None:
    sink = ListTraceSink()
    a0 = sink.emit(_event(episode_id="a"))
    b0 = sink.emit(_event(episode_id="b"))
    a1 = sink.emit(_event(episode_id="a"))
    assert (a0.sequence, b0.sequence, a1.sequence) == (0, 0, 1)
    assert a1.prev_event_hash == a0.event_hash and b0.prev_event_hash is None
    assert sink.episode("a") == [a0, a1]


def test_emit_returns_the_same_object_stamped() -> None:
    event = _event()
    assert ListTraceSink().emit(event) is event and event.event_hash


def test_null_sink_drops() -> None:
    event = _event()
    assert NullTraceSink().emit(event) is event


def test_jsonl_per_event_flush_writes_each_line_before_emit_returns(tmp_path) -> None:
    path = tmp_path / "deep" / "er" / "run.jsonl"
    sink = JsonlTraceSink(path, fsync=True, flush_interval_s=0)  # per-event durability
    for i in range(3):
        sink.emit(_event(i=i))
        assert len(path.read_text().splitlines()) == i + 1  # no buffering across events
    assert [e.payload["i"] for e in read_events(path)] == [0, 1, 2]
    assert path.read_text().splitlines()[0] == read_events(path)[0].to_json()


def test_jsonl_is_thread_safe_and_in_sequence_order(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    sink = JsonlTraceSink(path)

    def work(n: int) -> None:
        for i in range(50):
            sink.emit(_event(t=n, i=i))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sink.close()
    trace = read_events(path)
    assert [e.sequence for e in trace] == list(range(200))
    assert trace.verify() == []


def test_jsonl_resumes_an_existing_file_and_survives_a_torn_last_line(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    JsonlTraceSink(path).emit(_event(i=0))
    with path.open("a") as handle:
        handle.write('{"kind": "annot')  # a crash mid-write
    JsonlTraceSink(path).emit(_event(i=1))
    with pytest.raises(TraceFormatError, match="line 2"):
        read_events(path)
    trace = read_events(path, strict=False)
    assert [e.sequence for e in trace] == [0, 1]
    assert trace.verify() == []


def test_without_resume_a_reused_episode_restarts_and_verification_says_so(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    JsonlTraceSink(path).emit(_event())
    JsonlTraceSink(path, resume=False).emit(_event())
    assert any("repeated" in p for p in read_events(path).verify())


def test_iter_events_skips_blank_lines_and_rejects_non_events(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text("\n" + _event().to_json() + "\n\n[1, 2]\n")
    with pytest.raises(TraceFormatError, match="line 4"):
        list(iter_events(path))
    assert len(list(iter_events(path, strict=False))) == 1


def test_fanout_first_stamps_and_all_sinks_hold_the_same_events(tmp_path) -> None:
    first, path = ListTraceSink(), tmp_path / "run.jsonl"
    jsonl = JsonlTraceSink(path)
    fan = FanoutSink(first, jsonl)
    stamped = fan.emit(_event(note="password sk-ant-" + "k" * 30))
    jsonl.flush()
    on_disk = read_events(path)
    assert first.events == [stamped]
    assert on_disk[0].event_hash == stamped.event_hash == stamped.compute_hash()
    assert "sk-ant" not in path.read_text() and "sk-ant" not in str(stamped.payload)
    assert on_disk.verify() == []


def test_fanout_gives_plain_sinks_emit() -> None:
    class Plain:
        def __init__(self) -> None:
            self.seen: list[TraceEvent] = []

        def emit(self, event: TraceEvent) -> TraceEvent:
            self.seen.append(event)
            return event

    plain = Plain()
    FanoutSink(ListTraceSink(), plain).emit(_event())
    assert len(plain.seen) == 1


def test_fanout_needs_a_sink() -> None:
    with pytest.raises(ValueError, match="at least one sink"):
        FanoutSink()


def test_safe_sink_fails_open_counts_and_warns_once_per_drop(capsys) -> None:
    safe = SafeSink(Exploding())
    event = _event(kind="node.enter")
    assert safe.emit(event) is event
    safe.emit(_event())
    assert safe.errors == 2 and isinstance(safe.last_error, OSError)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "dropped node.enter" in err[0] and "disk full" in err[0]


def test_safe_sink_inside_a_fanout_keeps_the_other_sinks_going(capsys) -> None:
    kept = ListTraceSink()
    fan = FanoutSink(kept, SafeSink(Exploding(), warn=False))
    fan.emit(_event())
    fan.emit(_event())
    assert len(kept.events) == 2 and capsys.readouterr().err == ""


def test_unsafe_sink_failures_propagate() -> None:
    with pytest.raises(OSError):
        FanoutSink(ListTraceSink(), Exploding()).emit(_event())


def test_an_event_that_failed_to_append_leaves_no_gap_in_the_chain(capsys) -> None:
    class Flaky(ListTraceSink):
        def append(self, event: TraceEvent) -> None:
            if event.payload.get("fail"):
                raise OSError("disk hiccup")
            super().append(event)

    inner = Flaky()
    safe = SafeSink(inner, warn=False)
    for fail in (False, True, False):
        safe.emit(_event(fail=fail))
    assert safe.errors == 1
    assert [e.sequence for e in inner.events] == [0, 1]
    assert verify_chain(inner.events) == []


def test_a_jsonl_sink_on_a_directory_or_under_a_file_is_refused_when_made(tmp_path) -> None:
    import pickle

    from jdsl.errors import JdslError
    from jdsl.trace import TracePathError

    with pytest.raises(TracePathError, match="is a directory; pass a file path such as") as info:
        JsonlTraceSink(tmp_path)
    assert info.value.path == str(tmp_path) and isinstance(info.value, JdslError | OSError)
    assert str(pickle.loads(pickle.dumps(info.value))) == str(info.value)
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(TracePathError, match=f"is under {blocker}, which is a file"):
        JsonlTraceSink(blocker / "sub" / "runs.jsonl")
    nested = tmp_path / "a" / "b" / "runs.jsonl"  # documented: parent directories are created
    JsonlTraceSink(nested).close()
    assert nested.parent.is_dir()
