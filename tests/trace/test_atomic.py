"""Whole-file writes (``jdsl.trace.atomic``): new files get the umask's mode, never mkstemp's
0600, and a failed write leaves the old file and no temp file."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from jdsl.trace import BlobStore, JsonlTraceSink, Trace, TraceEvent, recorder_for
from jdsl.trace.atomic import write_atomic


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_every_whole_file_writer_gives_the_umask_mode(tmp_path, umask_022) -> None:
    from jdsl.package import export_dir, export_jdsl

    from tests.package.conftest import small_package

    trace = Trace([TraceEvent(kind="annotation", episode_id="ep", payload={"n": 1})])
    written = [
        write_atomic(tmp_path / "a" / "plain.bin", b"x"),
        trace.save(tmp_path / "t.jsonl"),
        BlobStore(tmp_path / "blobs").path_of(BlobStore(tmp_path / "blobs").put(b"blob")),
        export_jdsl(small_package(), tmp_path / "p"),
    ]
    with JsonlTraceSink(tmp_path / "run.jsonl") as sink:
        recorder_for(sink, "cap", "ep")("annotation", {})
    written.append(sink.path)
    os.umask(0o002)  # a group-writable umask is honoured too, not overridden by 0o644
    with JsonlTraceSink(tmp_path / "shared.jsonl") as sink:
        recorder_for(sink, "cap", "ep")("annotation", {})
    assert mode(sink.path) == 0o664
    os.umask(0o022)
    assert [mode(p) for p in written] == [0o644] * 5
    folder = export_dir(small_package(), tmp_path / "pkg")
    assert mode(folder) == 0o755 and mode(folder / "behavior.json") == 0o644
    pytest.importorskip("opentelemetry.sdk")
    from jdsl.trace.otel import trace_spans, write_otlp_json

    spans = trace_spans(list(trace))
    assert mode(write_otlp_json(spans, tmp_path / "spans.jsonl")) == 0o644


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temp(tmp_path) -> None:
    target = write_atomic(tmp_path / "f.jsonl", b"old\n")

    def chunks() -> Iterator[bytes]:
        yield b"new, part one\n"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, chunks())
    assert target.read_bytes() == b"old\n" and os.listdir(tmp_path) == ["f.jsonl"]
    write_atomic(target, iter([b"a", b"b"]))
    assert target.read_bytes() == b"ab" and os.listdir(tmp_path) == ["f.jsonl"]


def test_a_directory_that_cannot_be_written_is_an_os_error(tmp_path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError):
        write_atomic(tmp_path / "file" / "below", b"x")  # a parent that is a file
