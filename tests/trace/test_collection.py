"""Trace: list-like, episodes, pandas, atomic save and load."""

from __future__ import annotations

import builtins
import os

import pytest
from jdsl.errors import MissingDependencyError
from jdsl.trace import JsonlTraceSink, Trace, TraceEvent, blob_dir_for, read_events
from jdsl.trace.collection import COLUMNS


def test_trace_is_a_list_of_events_and_accepts_dicts(list_sink, write_episode) -> None:
    write_episode(list_sink)
    trace = Trace(e.to_dict() for e in list_sink.events)
    assert isinstance(trace, list) and len(trace) == 9
    assert all(isinstance(e, TraceEvent) for e in trace)
    assert trace == list_sink.events
    assert trace.verify() == []
    assert repr(trace) == "Trace(9 events, 1 episodes)"


def test_episode_lookup_names_the_episodes_there_are(list_sink, write_episode) -> None:
    write_episode(list_sink, "ep_1")
    trace = Trace(list_sink.events)
    assert trace.episode("ep_1").skill == "cancel"
    with pytest.raises(KeyError, match="'ep_1'"):
        trace.episode("nope")


def test_to_pandas_has_one_row_per_event_with_flat_columns(list_sink, write_episode) -> None:
    pytest.importorskip("pandas")
    write_episode(list_sink)
    frame = Trace(list_sink.events).to_pandas()
    assert list(frame.columns) == list(COLUMNS)
    assert len(frame) == 9
    row = frame[frame["kind"] == "tool.call.started"].iloc[0]
    assert (row["tool"], row["node_id"], row["key"], row["sequence"]) == (
        "lookup",
        "a",
        "customer",
        1,
    )
    usage_row = frame[frame["kind"] == "model.responded"].iloc[0]
    assert (usage_row["input_tokens"], usage_row["output_tokens"]) == (5, 1)
    assert frame[frame["kind"] == "episode.finished"].iloc[0]["status"] == "success"


def test_to_pandas_without_pandas_names_the_extra(monkeypatch) -> None:
    real_import = builtins.__import__

    def no_pandas(name: str, *args: object, **kwargs: object) -> object:
        if name == "pandas":
            raise ImportError("no pandas")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    with pytest.raises(MissingDependencyError, match=r"jdsl\[notebook\]"):
        Trace().to_pandas()


def test_save_and_load_round_trip_with_blobs(tmp_path, list_sink, write_episode) -> None:
    source = tmp_path / "a" / "run.jsonl"
    sink = JsonlTraceSink(source, blob_threshold_bytes=200)
    write_episode(sink)
    sink.emit(TraceEvent(kind="annotation", episode_id="ep_1", capture_id="cap_test",
                         payload={"text": "z" * 5000}))  # fmt: skip
    sink.close()
    original = read_events(source)
    target = original.save(tmp_path / "b" / "copy.jsonl")
    assert target.read_text() == source.read_text()
    assert sorted(os.listdir(blob_dir_for(target) / "sha256")) == sorted(
        os.listdir(blob_dir_for(source) / "sha256")
    )
    loaded = Trace.load(target, resolve_blobs=True)
    assert loaded[-1].payload["text"] == "z" * 5000
    assert read_events(target).verify() == []
    assert not [p for p in os.listdir(target.parent) if p.endswith(".tmp")]


def test_save_is_atomic_when_writing_fails(tmp_path, monkeypatch) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text("old\n")

    class Broken(TraceEvent):
        def to_json(self) -> str:
            raise RuntimeError("cannot serialise")

    with pytest.raises(RuntimeError):
        Trace([Broken(kind="annotation")]).save(path)
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["run.jsonl"]


def test_hydrated_without_a_store_refuses_when_blobs_are_referenced() -> None:
    event = TraceEvent(kind="annotation", blob_refs=["sha256:" + "0" * 64])
    with pytest.raises(ValueError, match="no blob_store"):
        Trace([event]).hydrated()
    plain = Trace([TraceEvent(kind="x")])
    assert plain.hydrated() == plain
