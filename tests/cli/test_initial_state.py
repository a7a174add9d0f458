"""``--initial-state tau_airline``: held-out validation from the command line answers a read a
run never made, before its first write, from the shipped airline database (as the demo does)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from jdsl.cli import app
from jdsl.commands.validate import initial_state, recorded_initial_state
from jdsl.compiler import normalize_all
from jdsl.envs.data import data_path
from jdsl.importers import import_tau_bench
from jdsl.trace import JsonlTraceSink, read_events
from typer.testing import CliRunner

FAMILY = "airline.update_reservation_flights+transfer_to_human_agents"


def _task_20(tmp_path: Path) -> Path:
    """Task 20's runs of the shipped results file: one family whose held-out run (trial 2) needs
    get_user_details, which its record never made."""
    rows = json.loads(data_path("tau_airline", "raw", "gpt-4o-airline.dev.json").read_text())
    raw = tmp_path / "task20.json"
    raw.write_text(json.dumps([r for r in rows if r["task_id"] == 20]), encoding="utf-8")
    traces = tmp_path / "task20.jsonl"
    import_tau_bench(str(raw), sink=JsonlTraceSink(traces, resume=False))
    return traces


def _row(output: str) -> list[str]:
    """The family's row: a name longer than the column sits on its own line, the row under it."""
    lines = output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == [FAMILY])
    cells = lines[at].split()
    return cells if len(cells) > 1 else [FAMILY, *lines[at + 1].split()]


def test_compile_holdout_answers_unrecorded_reads_from_the_shipped_db(tmp_path: Path) -> None:
    traces = _task_20(tmp_path)
    runner = CliRunner()
    base = ["compile", str(traces), "--group-by", "intent", "--holdout", "1"]
    plain = runner.invoke(app, [*base, "-o", str(tmp_path / "a"), "--initial-state", "none"])
    # verify held served matched unreplayable: the read is unknown without the db
    assert _row(plain.stdout)[2:7] == ["passed", "1", "1", "0", "1"], plain.output
    # tau-bench airline runs get the shipped db by default, and say so
    default = runner.invoke(app, [*base, "-o", str(tmp_path / "d")])
    assert _row(default.stdout)[2:7] == ["passed", "1", "1", "1", "0"], default.output
    assert "answered from the tau_airline db" in default.stderr
    seeded = runner.invoke(app, [*base, "-o", str(tmp_path / "b"), "--initial-state",
                                 "tau_airline"])  # fmt: skip
    assert _row(seeded.stdout)[2:6] == ["passed", "1", "1", "1"], seeded.output
    package = tmp_path / "b" / f"{FAMILY}.jdsl"
    validated = runner.invoke(app, ["package", "validate", str(package), str(traces),
                                    "--initial-state", "tau_airline"])  # fmt: skip
    row = next(line for line in validated.stdout.splitlines() if "tau_airline_test_20_2" in line)
    assert row.split()[1] == "matched", validated.stdout
    unknown = runner.invoke(app, [*base, "-o", str(tmp_path / "c"), "--initial-state", "x"])
    assert unknown.exit_code != 0 and "tau_airline" in unknown.output


def test_the_import_records_the_initial_state_and_old_imports_keep_the_skill_rule(
    tmp_path: Path,
) -> None:
    traces = _task_20(tmp_path)
    started = [json.loads(line) for line in traces.read_text().splitlines()]
    started = [e["payload"] for e in started if e["kind"] == "episode.started"]
    assert started and {s["initial_state"] for s in started} == {"tau_airline"}
    episodes = normalize_all(read_events(traces).episodes)
    assert {recorded_initial_state(e) for e in episodes} == {"tau_airline"}
    # a trace imported before the name was recorded: the skill tau_bench.airline names it
    old = [replace(e, metadata={k: v for k, v in e.metadata.items() if k != "initial_state"})
           for e in episodes]  # fmt: skip
    assert {recorded_initial_state(e) for e in old} == {"tau_airline"}
    assert initial_state(None, old) is not None and initial_state(None, episodes) is not None
    # the recorded name wins over the skill; an unknown one (no shipped db) answers nothing
    renamed = [replace(e, metadata={**e.metadata, "skill": "other"}) for e in episodes]
    assert initial_state(None, renamed) is not None
    unknown = [replace(e, metadata={**e.metadata, "initial_state": "tau_x"}) for e in episodes]
    assert initial_state(None, unknown) is None and initial_state(None, []) is None
    retail = [replace(e, metadata={**e.metadata, "initial_state": "tau_retail"}) for e in episodes]
    assert initial_state(None, retail) is not None  # the retail db ships too


def test_compile_without_holdout_verifies_with_the_shipped_db_too(tmp_path: Path) -> None:
    """Without --holdout, `jdsl compile` verified without the shipped db (where the demo
    compiles with it): task 20's family went 0/2 to the fallback, 3 refs, against the demo's
    2/2 matched, 7 refs (the compiler now also gets 2/2 without it)."""
    traces = _task_20(tmp_path)
    runner = CliRunner()
    base = ["compile", str(traces), "--group-by", "intent"]
    default = runner.invoke(app, [*base, "-o", str(tmp_path / "d")])
    # family eps verify replay matched fallback
    assert _row(default.stdout)[2:6] == ["passed", "1.0", "2/2", "0"], default.output
    assert "answered from the tau_airline db" in default.stderr
    plain = runner.invoke(app, [*base, "-o", str(tmp_path / "p"), "--initial-state", "none"])
    assert plain.exit_code == 0 and "answered from" not in plain.stderr, plain.output
