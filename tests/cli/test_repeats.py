"""The same runs given twice (two trace files that overlap, or a copy of one) count once, under
one note; a run id given twice with different content is an error naming it (fresh8 finding 2).
And the too-few note of ``--holdout`` never advises the value just given."""

from __future__ import annotations

import json
from pathlib import Path

from jdsl.cli import app


def test_a_copy_of_a_trace_file_counts_once_under_one_note(runner, traces, tmp_path):
    one = traces(3)
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(one.read_bytes())
    alone = runner.invoke(app, ["compile", str(one), "-o", str(tmp_path / "a.jdsl")])
    both = runner.invoke(app, ["compile", str(one), str(copy), "-o", str(tmp_path / "b.jdsl")])
    assert alone.exit_code == 0 and both.exit_code == 0, both.output
    assert (tmp_path / "a.jdsl").read_bytes() == (tmp_path / "b.jdsl").read_bytes()
    notes = [line for line in both.stderr.splitlines() if "given twice" in line]
    assert len(notes) == 1, both.stderr
    assert "3 episode(s)" in notes[0] and "counted once" in notes[0]
    validated = runner.invoke(app, ["package", "validate", str(tmp_path / "a.jdsl"), str(one),
                                    str(copy)])  # fmt: skip
    assert validated.exit_code == 0, validated.output
    assert "summary: 3 episodes" in validated.stdout
    assert sum("given twice" in line for line in validated.stderr.splitlines()) == 1


def test_one_id_with_two_contents_is_an_error_naming_it(runner, traces, tmp_path):
    one = traces(2)
    other = tmp_path / "other.jsonl"
    other.write_text(one.read_text().replace("cancel my order", "cancel my order now"))
    result = runner.invoke(app, ["compile", str(one), str(other), "-o", str(tmp_path / "x.jdsl")])
    assert result.exit_code == 1, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    assert "ep_success_0" in errors[0] and "different" in errors[0]
    assert "Traceback" not in result.output
    assert not (tmp_path / "x.jdsl").exists()


def test_the_too_few_note_never_advises_the_value_given(runner, traces, tmp_path):
    result = runner.invoke(app, ["compile", str(traces(1)), "--holdout", "1",
                                 "-o", f"{tmp_path / 'h'}/"])  # fmt: skip
    assert "use --holdout 1 or less" not in result.output
    two = runner.invoke(app, ["compile", str(traces(2, name="two.jsonl")), "--holdout", "2",
                              "-o", f"{tmp_path / 'h2'}/"])  # fmt: skip
    assert "use --holdout 1 or less" in two.output, two.output


def _no_results(whole: Path, out: Path) -> Path:
    """``whole`` with every tool call's result dropped (unstamped: no hash chain to break)."""
    rows = [json.loads(line) for line in whole.read_text().splitlines()]
    kept = [{**r, "event_hash": None, "prev_event_hash": None} for r in rows
            if r["kind"] not in ("tool.call.completed", "tool.call.failed")]  # fmt: skip
    out.write_text("".join(json.dumps(r) + "\n" for r in kept))
    return out


def test_a_family_that_compiles_to_nothing_is_not_told_to_hold_out_less(runner, traces, tmp_path):
    cut = _no_results(traces(3), tmp_path / "cut.jsonl")
    result = runner.invoke(app, ["compile", str(cut), "--holdout", "1", "-o", f"{tmp_path / 'h'}/"])
    assert result.exit_code == 1, result.output
    assert "or less" not in result.output and "1 or fewer" not in result.output, result.output
    assert "the 2 run(s) left after --holdout 1 compile to nothing" in result.stdout
    assert "no family compiled" in result.stderr


def test_the_dask_engine_refuses_an_id_given_twice_naming_the_local_engine(traces, tmp_path):
    """--engine dask reads each file on a worker: a run in two files is refused there (the
    local engine counts it once), never counted twice."""
    import pytest
    from jdsl.commands.repeats import RepeatedEpisodeError, refuse_repeated_ids
    from jdsl.compiler import normalize_all
    from jdsl.trace import read_events

    normalized = normalize_all(read_events(traces(2)).episodes)
    refuse_repeated_ids(normalized)  # each once: fine
    with pytest.raises(RepeatedEpisodeError, match="ep_success_0.*--engine local"):
        refuse_repeated_ids([*normalized, normalized[0]])
