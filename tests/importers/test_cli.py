"""``jdsl import tau-bench|openai-chat SOURCE -o TRACES.jsonl`` (the typer sub-app)."""

from __future__ import annotations

import json
from pathlib import Path

from jdsl.commands.imports import import_app
from jdsl.envs.data import data_path
from jdsl.importers import import_tau_bench
from jdsl.trace import read_events
from typer.testing import CliRunner

RUNNER = CliRunner()


def test_import_tau_bench_writes_a_jsonl_trace(tmp_path: Path) -> None:
    out = tmp_path / "traces" / "airline.jsonl"
    out.parent.mkdir()  # the command line creates no directory on the way (a typo writes nothing)
    result = RUNNER.invoke(
        import_app, ["tau-bench", str(data_path("tau_airline", "episodes.json")), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "54 episodes, 250 tool calls (9 failed), 547 model turns" in result.output
    trace = read_events(out)
    assert len(trace) == 2586 and trace.verify() == []
    assert len(trace.episodes) == 54
    in_memory = import_tau_bench(data_path("tau_airline", "episodes.json"))
    assert [e.payload for e in trace.hydrated()] == [e.payload for e in in_memory]


def test_an_existing_output_is_replaced(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n")
    out = tmp_path / "out.jsonl"
    for _ in range(2):
        assert RUNNER.invoke(import_app, ["openai-chat", str(log), "-o", str(out)]).exit_code == 0
    assert len(read_events(out)) == 5


def test_import_openai_chat_writes_a_jsonl_trace(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": "hello"},
                ]
            }
        )
        + "\n"
    )
    out = tmp_path / "out.jsonl"
    result = RUNNER.invoke(import_app, ["openai-chat", str(log), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "1 episodes, 0 tool calls (0 failed), 1 model turns" in result.output
    assert len(out.read_text().splitlines()) == 8


def test_a_bad_source_exits_1_with_the_reason_and_writes_nothing(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("not json\n")
    out = tmp_path / "out.jsonl"
    result = RUNNER.invoke(import_app, ["openai-chat", str(log), "-o", str(out)])
    assert result.exit_code == 1
    assert "line 1: not JSON" in result.output
    assert not out.exists()


def test_the_output_option_is_required(tmp_path: Path) -> None:
    result = RUNNER.invoke(import_app, ["tau-bench", str(tmp_path / "x.json")])
    assert result.exit_code == 2


def test_an_output_directory_gets_the_source_name(tmp_path: Path) -> None:
    source = data_path("tau_airline", "episodes.json")
    result = RUNNER.invoke(import_app, ["tau-bench", str(source), "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    written = tmp_path / "episodes.jsonl"
    assert written.exists() and f"-> {written}: 54 episodes" in result.output


def test_an_empty_source_is_an_error_and_writes_nothing(tmp_path: Path) -> None:
    source = tmp_path / "e0.json"
    source.write_text("[]")
    out = tmp_path / "e0.jsonl"
    result = RUNNER.invoke(import_app, ["tau-bench", str(source), "-o", str(out)])
    assert result.exit_code == 1 and not out.exists()
    assert result.output.startswith(f"error: no episodes in {source} — ")


def test_the_source_is_never_overwritten(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n")
    before = log.read_text()
    for out in (log, tmp_path):  # -o the file itself, or its folder (-> log.jsonl again)
        result = RUNNER.invoke(import_app, ["openai-chat", str(log), "-o", str(out)])
        assert result.exit_code == 1 and "is the source file" in result.output
    assert log.read_text() == before


def test_a_binary_source_is_an_error_line(tmp_path: Path) -> None:
    source = tmp_path / "b.json"
    source.write_bytes(b"\xff\xfe\x00\x01")
    result = RUNNER.invoke(import_app, ["tau-bench", str(source), "-o", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 1 and result.output.startswith("error: ")
    assert "b.json, byte 0: not UTF-8 text" in result.output


def test_an_output_ending_in_a_slash_is_a_directory_made_for_the_trace(tmp_path: Path) -> None:
    """``-o traces/`` names a directory (typer's Path drops the slash: it wrote a file
    ``traces``); it is made, its parent must exist."""
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n")
    result = RUNNER.invoke(import_app, ["openai-chat", str(log), "-o", f"{tmp_path}/traces/"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "traces").is_dir() and len(read_events(tmp_path / "traces" / "log.jsonl"))
    missing = RUNNER.invoke(import_app, ["openai-chat", str(log), "-o", f"{tmp_path}/a/b/"])
    assert missing.exit_code == 1 and "does not exist" in missing.output
    assert not (tmp_path / "a").exists()
