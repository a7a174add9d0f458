"""BlobStore and large values: lines stay small, full values come back."""

from __future__ import annotations

import pytest
from jdsl.trace import (
    BlobStore,
    EventKind,
    JsonlTraceSink,
    MissingBlobError,
    Trace,
    TraceEvent,
    blob_dir_for,
    hydrate,
    is_blob_marker,
    offload,
    read_events,
)


def test_blob_store_is_content_addressed_and_dedupes(tmp_path) -> None:
    store = BlobStore(tmp_path / "blobs")
    ref = store.put_json({"b": 1, "a": [1, 2]})
    assert ref == store.put_json({"a": [1, 2], "b": 1})
    assert store.path_of(ref) == tmp_path / "blobs" / "sha256" / ref.removeprefix("sha256:")
    assert store.get_json(ref) == {"a": [1, 2], "b": 1}
    assert store.has(ref)
    assert not list((tmp_path / "blobs" / "sha256").glob(".tmp-*"))  # temp files renamed away


def test_blob_store_missing_and_malformed_refs(tmp_path) -> None:
    store = BlobStore(tmp_path)
    with pytest.raises(MissingBlobError, match="copy the trace's '.blobs' directory"):
        store.get("sha256:" + "0" * 64)
    with pytest.raises(ValueError, match="bad blob ref"):
        store.get("md5:abc")
    with pytest.raises(ValueError, match="bad blob ref"):
        store.get("sha256:../../etc/passwd")


def test_offload_moves_only_the_large_nested_value(tmp_path) -> None:
    store = BlobStore(tmp_path)
    big = [f"row {i}" for i in range(5000)]
    payload = {"node_id": "a", "result": {"count": 5000, "rows": big}}
    out, refs = offload(payload, store, threshold=1000)
    assert out["node_id"] == "a"
    assert out["result"]["count"] == 5000
    marker = out["result"]["rows"]
    assert is_blob_marker(marker) and marker["truncated"] is True
    assert marker["bytes"] > 1000 and marker["preview"].startswith('["row 0"')
    assert refs == [marker["$blob"]]
    assert store.get_json(refs[0]) == big
    assert payload["result"]["rows"] is big  # input untouched


def test_small_payloads_are_left_alone(tmp_path) -> None:
    payload = {"a": "x" * 100}
    assert offload(payload, BlobStore(tmp_path), threshold=1000) == (payload, [])
    assert not (tmp_path / "sha256").exists()


def test_a_5mb_tool_result_keeps_every_line_under_100kb_and_is_retrievable(tmp_path) -> None:
    path = tmp_path / "runs" / "run.jsonl"
    sink = JsonlTraceSink(path)
    big = "".join(chr(ord("a") + i % 26) for i in range(5 * 1024 * 1024))
    tool = {"host_name": "dump", "logical_id": None}
    start = sink.emit(TraceEvent(kind=EventKind.TOOL_CALL_STARTED, payload={"tool": tool}))
    done = TraceEvent(
        kind=EventKind.TOOL_CALL_COMPLETED,
        parent_event_id=start.event_id,
        payload={"node_id": "n", "tool": tool, "result": big},
    )
    sink.emit(done)
    sink.emit(TraceEvent(kind=EventKind.BLACKBOARD_WRITE, payload={"key": "out", "value": big}))
    sink.close()

    lines = path.read_bytes().splitlines()
    assert len(lines) == 3
    assert max(len(line) for line in lines) < 100 * 1024
    trace = read_events(path)
    assert trace.verify() == []
    marker = trace[1].payload["result"]
    assert marker["bytes"] == len(big) + 2  # the JSON string, with its quotes
    assert trace[1].blob_refs == [marker["$blob"]]
    assert trace[2].payload["value"]["$blob"] == marker["$blob"]  # stored once
    assert len(list((blob_dir_for(path) / "sha256").iterdir())) == 1
    assert hydrate(trace[1], trace.blob_store).payload["result"] == big
    (call,) = trace.episodes[0].tool_calls()  # episode views load blobs on their own
    assert call.result == big
    loaded = Trace.load(path, resolve_blobs=True)
    assert loaded.episodes[0].tool_calls()[0].result == big
    assert loaded.episodes[0].final_blackboard() == {"out": big}


def test_hydrating_without_the_blobs_names_the_fix(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    JsonlTraceSink(path, blob_threshold_bytes=100).emit(
        TraceEvent(kind="annotation", payload={"text": "y" * 1000})
    )
    for blob in (blob_dir_for(path) / "sha256").iterdir():
        blob.unlink()
    with pytest.raises(MissingBlobError):
        Trace.load(path, resolve_blobs=True)


def test_blob_threshold_none_keeps_values_inline(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    JsonlTraceSink(path, blob_threshold_bytes=None).emit(
        TraceEvent(kind="annotation", payload={"text": "y" * 100_000})
    )
    assert read_events(path)[0].payload["text"] == "y" * 100_000
    assert not blob_dir_for(path).exists()


def test_a_damaged_blob_is_a_typed_error_not_a_json_error(tmp_path) -> None:
    import pickle

    from jdsl.errors import JdslError
    from jdsl.trace import BlobStore, CorruptBlobError, MissingBlobError

    store = BlobStore(tmp_path / "b")
    ref = store.put_json({"big": "x" * 100})
    store.path_of(ref).write_text("garbage")  # a damaged copy
    with pytest.raises(CorruptBlobError, match="does not match its digest") as caught:
        store.get_json(ref)
    assert isinstance(caught.value, JdslError) and caught.value.ref == ref
    for error in (caught.value, MissingBlobError(ref, store.root)):  # cross a Dask worker
        again = pickle.loads(pickle.dumps(error))
        assert (type(again), str(again), again.ref) == (type(error), str(error), ref)
