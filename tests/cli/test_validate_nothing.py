"""``jdsl package validate`` says so when it has nothing to compare the package with: no run
given is a reference (every one failed), or ``--episode`` names a run cut off mid-run."""

from __future__ import annotations

import json
from pathlib import Path

from jdsl.cli import app


def _package(runner, traces, tmp_path: Path) -> Path:
    package = tmp_path / "p.jdsl"
    assert runner.invoke(app, ["compile", str(traces(3)), "-o", str(package)]).exit_code == 0
    return package


def test_validating_on_failed_runs_only_is_an_error_naming_the_fix(runner, traces, tmp_path):
    package = _package(runner, traces, tmp_path)
    failed = traces(2, outcome="failure", name="failed.jsonl")
    result = runner.invoke(app, ["package", "validate", str(package), str(failed), "--all"])
    assert result.exit_code == 1, result.output
    assert "failed run" in result.stdout  # the rows still say what each run was
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    assert "none of the 2 run(s) validated on is a reference" in errors[0]
    assert "pass successful runs" in errors[0]


def _cut(whole: Path, out: Path, episode_id: str) -> Path:
    """``whole`` without ``episode_id``'s ``episode.finished`` (and anything after it)."""
    lines = [line for line in whole.read_text().splitlines(keepends=True)
             if not (json.loads(line)["episode_id"] == episode_id
                     and json.loads(line)["kind"] == "episode.finished")]  # fmt: skip
    out.write_text("".join(lines))
    return out


def test_validating_on_a_cut_episode_by_id_says_it_is_cut(runner, traces, tmp_path):
    package = _package(runner, traces, tmp_path)
    cut = _cut(traces(3, name="more.jsonl"), tmp_path / "cut.jsonl", "ep_success_1")
    result = runner.invoke(app, ["package", "validate", str(package), str(cut), "-e",
                                 "ep_success_1"])  # fmt: skip
    assert result.exit_code == 1, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    assert "episode 'ep_success_1' is cut off mid-run (no episode.finished)" in errors[0]
    assert "no episode 'ep_success_1' in the traces" not in result.output
    assert "pass the complete trace file" in errors[0]
    kept = runner.invoke(app, ["package", "validate", str(package), str(cut), "-e",
                               "ep_success_0"])  # fmt: skip
    assert kept.exit_code == 0, kept.output


def test_validating_on_the_runs_it_was_compiled_from_is_not_called_held_out(
    runner, traces, tmp_path
):
    """fresh8: `held-out validation` was printed for the package's own compile runs."""
    package = _package(runner, traces, tmp_path)
    result = runner.invoke(app, ["package", "validate", str(package), str(traces(3))])
    assert result.exit_code == 0, result.output
    assert "held-out" not in result.stdout
    assert "validation of 'cancel' (3 of these runs are ones it was compiled from" in result.stdout


def test_a_package_given_as_traces_is_named_a_package(runner, traces, tmp_path):
    """fresh8: `validate PKG PKG.jdsl` said "not UTF-8 ... --skip-bad-lines"."""
    package = _package(runner, traces, tmp_path)
    result = runner.invoke(app, ["package", "validate", str(package), str(package)])
    assert result.exit_code == 1
    assert f"{package} is a jdsl behavior package, not traces" in result.stderr, result.output
    assert "UTF-8" not in result.output and "--skip-bad-lines" not in result.output


def test_failed_runs_are_never_called_runs_it_was_compiled_from(runner, traces, tmp_path):
    """fresh9 finding 5: validate listed the family's failed runs among 'the runs it was
    compiled from' while `show --diff` says failed runs are 'never compiled from'; only the
    successful runs it was compiled from are named."""
    both = tmp_path / "both.jsonl"
    both.write_text(traces(3).read_text() + traces(2, "failure", "f.jsonl").read_text())
    package = tmp_path / "p.jdsl"
    assert runner.invoke(app, ["compile", str(both), "-o", str(package)]).exit_code == 0
    result = runner.invoke(app, ["package", "validate", str(package), str(both)])
    assert result.exit_code == 0, result.output
    head = result.stdout.splitlines()[0]
    assert "(3 of these runs are ones it was compiled from" in head, head
    assert "ep_failure" not in head, head
