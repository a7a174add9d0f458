"""Episode ids: a fresh id per run, and runs recorded under a reused id read back as separate
episodes whose hash chains each verify."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from jdsl import act, ref, root
from jdsl.trace import (
    JsonlTraceSink,
    ListTraceSink,
    Trace,
    TraceEvent,
    new_episode_id,
    read_events,
    segment_episodes,
    verify_chain,
)
from jdsl.tree import RunContext


def echo(v: str) -> str:
    return v


def _tree():  # type: ignore[no-untyped-def]
    return root("echo").do(act(echo, v=ref("x")) >> "y")


def test_runs_without_an_episode_id_are_separate_episodes(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    with JsonlTraceSink(path) as sink:
        contexts = [_tree().run(trace_sink=sink, x=str(i)) for i in range(3)]
    episodes = read_events(path).episodes
    ids = [e.episode_id for e in episodes]
    assert ids == [ctx.episode_id for ctx in contexts] and len(set(ids)) == 3
    assert all(re.fullmatch(r"ep_[0-9a-f]{12}", i) for i in ids)
    assert [e.inputs for e in episodes] == [{"x": "0"}, {"x": "1"}, {"x": "2"}]
    assert {e.capture_id for e in episodes} == {"cap_local"}


def test_an_explicit_episode_id_is_kept_and_new_ids_differ() -> None:
    sink = ListTraceSink()
    ctx = _tree().run(trace_sink=sink, episode_id="ep_mine", x="a")
    assert ctx.episode_id == "ep_mine" and {e.episode_id for e in sink.events} == {"ep_mine"}
    assert RunContext().episode_id != RunContext().episode_id
    assert new_episode_id() != new_episode_id()


def test_runs_reusing_an_id_split_into_episodes_that_each_verify(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    with JsonlTraceSink(path) as sink:
        for i in range(3):
            _tree().run(trace_sink=sink, episode_id="ep_local", x=str(i))
    trace = read_events(path)
    episodes = trace.episodes
    assert [e.episode_id for e in episodes] == ["ep_local", "ep_local#2", "ep_local#3"]
    assert {e.recorded_id for e in episodes} == {"ep_local"}
    assert [e.inputs["x"] for e in episodes] == ["0", "1", "2"]
    assert all(e.status == "success" and len(e.tool_calls()) == 1 for e in episodes)
    assert verify_chain(trace) == []  # the file: one chain continued across the runs
    assert [e.verify() for e in episodes] == [[], [], []]
    assert trace.episode("ep_local#2").inputs == {"x": "1"}


def test_a_later_run_verified_alone_is_reported_clearly(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    with JsonlTraceSink(path) as sink:
        for i in range(2):
            _tree().run(trace_sink=sink, episode_id="ep_local", x=str(i))
    second = read_events(path).episodes[1]
    problems = verify_chain(second.events)
    assert len(problems) == 1 and "continues the hash chain of an earlier run" in problems[0]
    assert ".verify()" in problems[0]


def test_tampering_inside_a_split_episode_is_detected(tmp_path: Path) -> None:
    sink = ListTraceSink()
    for i in range(2):
        _tree().run(trace_sink=sink, episode_id="ep_local", x=str(i))
    events = [e.model_copy() for e in sink.events]
    second_start = next(i for i, e in enumerate(events) if i and e.kind == "episode.started")
    events[second_start + 2] = events[second_start + 2].model_copy(update={"payload": {"x": 1}})
    first, second = Trace(events).episodes
    assert first.verify() == []
    assert any("was edited" in p for p in second.verify())
    dropped = [e for i, e in enumerate(sink.events) if i != second_start + 1]
    assert any("missing" in p for p in Trace(dropped).episodes[1].verify())


def test_runs_from_separate_sinks_under_one_id_split_and_verify() -> None:
    a, b = ListTraceSink(), ListTraceSink()
    _tree().run(trace_sink=a, episode_id="ep", x="1")
    _tree().run(trace_sink=b, episode_id="ep", x="2")
    episodes = segment_episodes([*a.events, *b.events])
    assert [e.episode_id for e in episodes] == ["ep", "ep#2"]
    assert [e.verify() for e in episodes] == [[], []]


def test_a_derived_id_skips_ids_the_trace_already_uses() -> None:
    def started(episode_id: str, sequence: int) -> TraceEvent:
        return TraceEvent(
            kind="episode.started", capture_id="c", episode_id=episode_id, sequence=sequence
        )

    events = [started("e", 0), started("e#2", 0), started("e", 0)]
    assert [e.episode_id for e in segment_episodes(events)] == ["e", "e#2", "e#3"]


def test_events_without_episode_started_stay_one_episode(emit_into) -> None:  # type: ignore[no-untyped-def]
    sink = ListTraceSink()
    emit = emit_into(sink, "imported")
    emit("tool.call.started", {"tool": "a"})
    emit("tool.call.completed", {"tool": "a"})
    (episode,) = Trace(sink.events).episodes
    assert episode.episode_id == "imported" and len(episode) == 2 and episode.verify() == []


@pytest.mark.parametrize(
    ("argument", "value"),
    [("episode_id", ""), ("episode_id", "  "), ("episode_id", 5), ("capture_id", ""),
     ("capture_id", None)],
)  # fmt: skip
def test_an_empty_or_non_str_trace_id_is_refused_before_the_run(argument, value) -> None:
    from jdsl.errors import JdslError, RunArgumentError

    calls: list[str] = []
    tree = root("echo").do(act(_recording_echo(calls), v=ref("x")) >> "y")
    sink = ListTraceSink()
    with pytest.raises(RunArgumentError, match=f"{argument} must be a non-blank str") as info:
        tree.run(trace_sink=sink, x="a", **{argument: value})
    assert info.value.argument == argument and isinstance(info.value, JdslError | ValueError)
    assert calls == [] and sink.events == []
    with pytest.raises(RunArgumentError):
        RunContext(**{argument: value})


def _recording_echo(calls: list[str]):  # type: ignore[no-untyped-def]
    def echo(v: str) -> str:
        calls.append(v)
        return v

    return echo
