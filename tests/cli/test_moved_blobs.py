"""A trace copied without its ``<file>.blobs/`` directory: the values that went to the blob
store are gone, so reading them is a :class:`~jdsl.trace.MissingBlobError` naming the fix, never
a silent compile of the markers (which made another package and still said "verification
passed")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from jdsl import act, ref, root, seq, tool
from jdsl.cli import app
from jdsl.trace import JsonlTraceSink, MissingBlobError, blob_dir_for, iter_episodes, read_events


@tool
def big(n: int) -> dict:
    """A record with a list too large for a trace line."""
    return {"items": [{"id": f"it{i}", "pad": "y" * 20} for i in range(n)]}


@tool
def use(rid: str) -> str:
    """Use one item id."""
    return "used " + rid


def _recorded(path: Path) -> Path:
    tree = root("bigrun").do(
        seq(act(big, n=ref("n")) >> "rec", act(use, rid=ref("rec.items[0].id")) >> "done")
    )
    sink = JsonlTraceSink(path, blob_threshold_bytes=1000)
    for i in range(3):
        tree.run(trace_sink=sink, episode_id=f"ep_{i}", n=100)
    sink.close()
    assert any(blob_dir_for(path).rglob("*")), "the fixture must put a value in the blob store"
    return path


def _moved(tmp_path: Path) -> Path:
    here = _recorded(tmp_path / "rec" / "big.jsonl")
    (tmp_path / "moved").mkdir(parents=True)
    return Path(shutil.copy(here, tmp_path / "moved" / "big.jsonl"))  # the JSONL alone


def test_reading_a_moved_traces_blob_values_names_the_fix(tmp_path) -> None:
    moved = _moved(tmp_path)
    with pytest.raises(MissingBlobError, match=r"copy the trace's '\.blobs' directory"):
        read_events(moved).episodes[0].tool_calls()
    with pytest.raises(MissingBlobError):
        [e.tool_calls() for e in iter_episodes(moved)]


def test_compile_refuses_a_trace_moved_without_its_blobs(runner, tmp_path) -> None:
    moved = _moved(tmp_path)
    out = tmp_path / "moved" / "big.jdsl"
    result = runner.invoke(app, ["compile", str(moved), "-o", str(out)])
    assert result.exit_code == 1, result.output
    assert "verification passed" not in result.output
    assert ".blobs" in result.output and "Traceback" not in result.output
    assert not out.exists()


def test_the_same_trace_with_its_blobs_compiles(runner, tmp_path) -> None:
    here = _recorded(tmp_path / "big.jsonl")
    result = runner.invoke(app, ["compile", str(here), "-o", str(tmp_path / "big.jdsl")])
    assert result.exit_code == 0, result.output
    assert "rec.items[" in result.output


def test_export_otel_content_carries_the_values_in_the_blob_store(runner, tmp_path) -> None:
    """``export otel --content`` wrote each blob's marker (a hash and a 256-character preview)
    as the content, so `import otel` of it compiled another package (a ref became a residual).
    The content is the value; without the .blobs directory, the export says what is missing."""
    here = _recorded(tmp_path / "rec" / "big.jsonl")
    out = tmp_path / "big.otlp.json"
    result = runner.invoke(app, ["export", "otel", str(here), "--content", "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "$blob" not in text and "it99" in text
    plain = runner.invoke(app, ["export", "otel", str(here), "-o", str(tmp_path / "p.json")])
    assert plain.exit_code == 0 and "it99" not in (tmp_path / "p.json").read_text()
    moved = runner.invoke(app, ["export", "otel", str(_moved(tmp_path / "m")), "--content",
                                "-o", str(tmp_path / "m.json")])  # fmt: skip
    assert moved.exit_code == 1 and ".blobs" in moved.output, moved.output


def test_export_otel_api_with_content_sends_the_values(tmp_path) -> None:
    from jdsl.trace.otel import export_otel
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    here = _recorded(tmp_path / "big.jsonl")
    for source in (here, read_events(here)):
        exporter = InMemorySpanExporter()
        export_otel(source, exporter=exporter, capture_content=True)
        text = " ".join(str(dict(s.attributes or {})) for s in exporter.get_finished_spans())
        assert "$blob" not in text and "it99" in text
