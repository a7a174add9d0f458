"""``jdsl compile``: no package unless a verified one; where -o puts it; clean errors."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from jdsl.cli import app
from jdsl.package import load_package


def _compile(runner, *args: object):
    return runner.invoke(app, ["compile", *map(str, args)])


def test_a_good_trace_compiles_to_exactly_the_named_file(runner, traces, tmp_path) -> None:
    out = tmp_path / "pkgs" / "cancel.zip"
    out.parent.mkdir()
    result = _compile(runner, traces(3), "-o", out)
    assert result.exit_code == 0, result.output
    assert f"package: {out}" in result.output
    assert out.exists() and not out.with_name("cancel.zip.jdsl").exists()
    assert load_package(out).name == "cancel"


@pytest.mark.parametrize("outcome", ["failure", "cancelled"])
def test_no_successful_episode_exits_1_and_writes_nothing(
    runner, traces, tmp_path, outcome
) -> None:
    out = tmp_path / "fail.jdsl"
    result = _compile(runner, traces(2, outcome), "-o", out)
    assert result.exit_code == 1 and not out.exists()
    assert "error: no successful episode in" in result.output
    assert (
        "(2 failed or cancelled) — a package is compiled from runs that succeeded" in result.output
    )
    assert "Traceback" not in result.output


def test_an_empty_trace_file_exits_1_and_writes_nothing(runner, tmp_path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    result = _compile(runner, empty, "-o", tmp_path / "empty.jdsl")
    assert result.exit_code == 1 and not (tmp_path / "empty.jdsl").exists()
    assert f"error: no episodes in {empty} — record runs" in result.output


def test_an_existing_directory_gets_name_dot_jdsl_inside(runner, traces, tmp_path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    result = _compile(runner, traces(2), "-o", folder)
    assert result.exit_code == 0, result.output
    assert [p.name for p in folder.iterdir()] == ["cancel.jdsl"]
    assert not folder.with_name("out.jdsl").exists()


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600)])
def test_the_package_mode_follows_the_umask(runner, traces, tmp_path, umask, mode) -> None:
    trace = traces(2)
    previous = os.umask(umask)
    try:
        result = _compile(runner, trace, "-o", tmp_path / "p.jdsl")
    finally:
        os.umask(previous)
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE((tmp_path / "p.jdsl").stat().st_mode) == mode


def test_a_binary_file_is_named_not_a_traceback(runner, tmp_path) -> None:
    binary = tmp_path / "b.jsonl"
    binary.write_bytes(b"\n\xff\xfe\x00garbage")
    result = _compile(runner, binary, "-o", tmp_path / "x.jdsl")
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert f"error: {binary}, line 2: not UTF-8 text" in result.output
    assert "pass a jdsl trace" in result.output and not (tmp_path / "x.jdsl").exists()


def test_an_unwritable_output_is_an_error_line(runner, traces, tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = _compile(runner, traces(2), "-o", blocker / "x.jdsl")
    assert result.exit_code == 1
    assert f"error: cannot write {blocker / 'x.jdsl'}: " in result.output
    assert "— choose a writable path for -o" in result.output


def test_group_by_refuses_an_existing_file(runner, traces, tmp_path) -> None:
    existing = tmp_path / "existing.jdsl"
    existing.write_text("keep me")
    result = _compile(runner, traces(2), "-o", existing, "--group-by", "task")
    assert result.exit_code == 1 and existing.read_text() == "keep me"
    assert f"error: -o {existing} is a file — with --group-by, -o is a directory" in result.output


def test_group_by_writes_only_the_families_that_verify(runner, traces, tmp_path) -> None:
    good, bad = traces(2, name="good.jsonl"), traces(1, "failure", name="bad.jsonl")
    out = tmp_path / "families"
    result = _compile(runner, good, bad, "-o", out, "--group-by", "sequence")
    assert result.exit_code == 0, result.output  # a failed-only family is too few, no failure
    rows = {line.split()[0]: line for line in result.output.splitlines() if "seq-" in line}
    assert rows["seq-lookup-list_orders-get_order"].endswith(".jdsl")
    assert rows["seq-none"].endswith("not written")
    assert [p.name for p in out.iterdir()] == ["seq-lookup-list_orders-get_order.jdsl"]
    assert rows["seq-none"].split()[2:4] == ["too", "few"]


def test_bad_trace_lines_are_skipped_only_when_asked(runner, traces, tmp_path) -> None:
    trace = traces(2)
    trace.write_text(trace.read_text() + "torn line\n")
    strict = _compile(runner, trace, "-o", tmp_path / "s.jdsl")
    assert strict.exit_code == 1 and "pass --skip-bad-lines to skip such lines" in strict.output
    assert "strict=False" not in strict.output
    lenient = _compile(runner, trace, "-o", tmp_path / "l.jdsl", "--skip-bad-lines")
    assert lenient.exit_code == 0, lenient.output


def test_a_bad_canonical_mapping_names_its_option(runner, traces, tmp_path) -> None:
    result = _compile(runner, traces(1), "-o", tmp_path / "c.jdsl", "--canonical", "nonsense")
    assert result.exit_code == 2
    assert "Invalid value for --canonical: 'nonsense' is not KEY=VALUE" in result.output
    ok = _compile(runner, traces(1, name="u.jsonl"), "-o", tmp_path / "c.jdsl",
                  "--canonical", "lookup=retail.lookup")  # fmt: skip
    assert ok.exit_code == 0, ok.output
    assert "retail.lookup" in load_package(tmp_path / "c.jdsl").required_capabilities


def test_missing_trace_file_is_a_usage_error(runner, tmp_path: Path) -> None:
    result = _compile(runner, tmp_path / "nope.jsonl", "-o", tmp_path / "x.jdsl")
    assert result.exit_code == 2 and "does not exist" in result.output


@pytest.mark.parametrize("how", ["same", "relative", "link"])
def test_a_trace_file_given_twice_is_refused(runner, traces, tmp_path, how, monkeypatch) -> None:
    """Its episodes would count twice: two runs would pass a constant's 3-run threshold."""
    trace = traces(2)
    other = trace
    if how == "relative":
        monkeypatch.chdir(trace.parent)
        other = Path(trace.name)
    elif how == "link":
        other = tmp_path / "link.jsonl"
        other.symlink_to(trace)
    out = tmp_path / "twice.jdsl"
    result = _compile(runner, trace, other, "-o", out)
    assert result.exit_code == 1 and not out.exists(), result.output
    assert f"error: trace file {other} is given twice" in result.output
    assert "pass each file once" in result.output


def test_a_broken_chain_names_no_flag_the_command_line_lacks(runner, traces, tmp_path) -> None:
    trace = traces(2)
    lines = trace.read_text().splitlines(keepends=True)
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(lines[:4] + lines[5:]))  # an event dropped mid-episode
    result = _compile(runner, edited, "-o", tmp_path / "e.jdsl")
    assert result.exit_code == 1, result.output
    assert "the trace's hash chain is broken" in result.output
    assert "or pass allow_broken_chain=True" not in result.output
    assert "compile_behavior(..., allow_broken_chain=True)" in result.output


def test_a_trace_cut_before_its_first_call_says_it_is_truncated(runner, traces, tmp_path) -> None:
    whole = traces(1)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(whole.read_text().splitlines(keepends=True)[:6]))  # mid-episode
    result = _compile(runner, cut, "-o", tmp_path / "x.jdsl")
    assert result.exit_code == 1 and not (tmp_path / "x.jdsl").exists()
    assert (
        "error: the 1 episode(s) to compile from (ep_success_0) end without episode.finished: "
        "they look cut off mid-run" in result.output
    )
    assert "needs at least one child" not in result.output


@pytest.mark.parametrize(
    ("option", "value", "choices"),
    [
        ("--group-by", "bogus", "'intent', 'task', 'sequence'"),
        ("--engine", "spark", "'local', 'dask'"),
    ],
)
def test_an_unknown_choice_names_the_choices_without_a_validator_prefix(
    runner, traces, tmp_path, option, value, choices
) -> None:
    result = _compile(runner, traces(2), "-o", tmp_path / "out", option, value)
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}': {value!r} is not one of {choices}" in result.output
    assert "Value error" not in result.output


@pytest.mark.parametrize("extra", [[], ["--holdout", "1"]])
def test_an_unknown_initial_state_is_a_usage_error_with_or_without_holdout(
    runner, traces, tmp_path, extra
) -> None:
    out = tmp_path / "out"
    result = _compile(runner, traces(3), "-o", out, "--initial-state", "bogus", *extra)
    assert result.exit_code == 2, result.output
    assert "'bogus' is not a known domain; pass one of: tau_airline, tau_retail" in result.output
    assert not out.exists()


@pytest.mark.parametrize("n", ["0", "-2"])
def test_a_holdout_below_one_is_a_usage_error_naming_the_fix(runner, traces, tmp_path, n) -> None:
    out = tmp_path / "out"
    result = _compile(runner, traces(3), "-o", out, "--holdout", n)
    assert result.exit_code == 2, result.output
    assert "Input should be" not in result.output
    assert f"--holdout {n} holds out no run" in result.output, result.output
    assert "pass --holdout 1 or more" in result.output and "leave --holdout out" in result.output
    assert not out.exists()


def test_an_output_ending_in_a_slash_is_a_directory_made_for_the_package(
    runner, traces, tmp_path
) -> None:
    result = _compile(runner, traces(3), "-o", f"{tmp_path}/pkgs/")
    assert result.exit_code == 0, result.output
    assert [p.name for p in (tmp_path / "pkgs").iterdir()] == ["cancel.jdsl"]


def test_the_family_table_names_matched_and_fallback_runs(runner, traces, tmp_path) -> None:
    """'exec 0/3' on a passed family read as three failed executions; the runs it handed to
    its fallback are counted in their own column, as the demo and --holdout tables do."""
    result = _compile(runner, traces(3), "-o", tmp_path / "fams", "--group-by", "sequence")
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if line.startswith("family"))
    assert header.split()[:7] == [
        "family",
        "ok/runs",
        "verify",
        "replay",
        "matched",
        "fallback",
        "model",
    ]
    row = next(line for line in result.output.splitlines() if " passed " in line)
    assert row.split()[4:6] == ["3/3", "0"]


def test_a_family_with_no_successful_run_is_too_few_alike_and_fails_nothing(
    runner, traces, tmp_path
) -> None:
    """fresh8 finding 7: plain compile called it 'refused' and exited 1 (every real results
    file has such a family), --holdout called it 'too few' and exited 0."""
    ok, failed = traces(3), traces(2, outcome="failure", name="failed.jsonl")
    plain = _compile(runner, ok, failed, "-o", f"{tmp_path / 'p'}/", "--group-by", "sequence")
    held = _compile(runner, ok, failed, "-o", f"{tmp_path / 'h'}/", "--group-by", "sequence",
                    "--holdout", "1")  # fmt: skip
    for result in (plain, held):
        assert result.exit_code == 0, result.output
        rows = [line.split() for line in result.stdout.splitlines()]
        few = [row for row in rows if "too" in row and "few" in row]
        assert len(few) == 1 and few[0][1] == "0/2", result.output
        assert not any(row[2:3] == ["refused"] for row in rows), result.output
    assert "no successful run to compile from" in plain.stdout


def test_the_compile_table_columns_mean_what_the_demo_s_do(runner, traces, tmp_path) -> None:
    """'eps' and 'model' meant successful runs and arguments that are a model output in the
    demo's table, all runs and model decisions in compile's: compile says ok/runs, and its
    model column is the demo's."""
    result = _compile(runner, traces(3), "-o", tmp_path / "fams", "--group-by", "sequence")
    header = next(line for line in result.output.splitlines() if line.startswith("family"))
    assert header.split()[1] == "ok/runs" and "eps" not in header.split()
    package = next((tmp_path / "fams").glob("*.jdsl"))
    from jdsl.package import load_package

    metrics = load_package(package).manifest["metrics"]
    row = next(line for line in result.output.splitlines() if " passed " in line).split()
    assert row[1] == "3/3" and row[6] == str(metrics["residual_refs"]), result.output


def _cut_last_finish(path: Path) -> Path:
    """Drop the last ``episode.finished`` line: that run ends at its reward, cut off."""
    lines = path.read_text().splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if '"episode.finished"' in line)
    path.write_text("".join(lines[:last] + lines[last + 1 :]))
    return path


def test_an_unfinished_episode_is_not_counted_as_failed(runner, traces, tmp_path) -> None:
    result = _compile(runner, _cut_last_finish(traces(3, "failure")), "-o", tmp_path / "x.jdsl")
    assert result.exit_code == 1
    assert "(2 failed or cancelled, 1 cut off mid-run)" in result.output


def test_show_lists_a_run_without_episode_finished_as_unfinished(runner, traces) -> None:
    result = runner.invoke(app, ["show", str(_cut_last_finish(traces(2)))])
    assert result.exit_code == 0, result.output
    assert " unfinished " in result.output


def test_a_holdout_that_holds_out_nothing_creates_no_directory(runner, traces, tmp_path) -> None:
    out = tmp_path / "h"
    result = _compile(runner, traces(3), "--holdout", "99999999999999999999", "-o", f"{out}/")
    assert result.exit_code == 1 and "or fewer successful runs" in result.output, result.output
    assert not out.exists()
