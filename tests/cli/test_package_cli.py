"""``jdsl package ...``: advice and help name only options the command has; a file of another
kind given as PKG is named for what it is."""

from __future__ import annotations

from jdsl.cli import app
from jdsl.envs.data import data_path
from jdsl.package import export_jdsl
from jdsl.trace import JsonlTraceSink

from tests.nb.lesson_diff import compiled, held_out


def test_validate_takes_the_skip_bad_lines_it_advises(runner, tmp_path) -> None:
    package = export_jdsl(compiled().package, tmp_path / "remind.jdsl")
    sink = JsonlTraceSink(tmp_path / "held.jsonl")
    held_out(sink)
    sink.close()
    torn = tmp_path / "torn.jsonl"
    torn.write_text((tmp_path / "held.jsonl").read_text(encoding="utf-8") + '{"kind": "ep')
    args = ["package", "validate", str(package), str(torn), "--all"]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 1 and "--skip-bad-lines" in refused.output
    skipped = runner.invoke(app, [*args, "--skip-bad-lines"])
    assert "No such option" not in skipped.output
    assert "held" in skipped.stdout, skipped.output


def test_validate_help_names_no_holdout(runner) -> None:
    result = runner.invoke(app, ["package", "validate", "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "--holdout" not in result.output


def test_a_trace_or_tau_bench_file_given_as_a_package_says_what_it_is(runner, tmp_path) -> None:
    sink = JsonlTraceSink(tmp_path / "runs.jsonl")
    held_out(sink)
    sink.close()
    raw = data_path("tau_airline", "raw", "gpt-4o-airline.dev.json").read_text(encoding="utf-8")
    (tmp_path / "tb.jsonl").write_text(raw, encoding="utf-8")
    for name, what, fix in (
        ("runs.jsonl", "is a trace (JSONL)", "jdsl compile {} -o"),
        ("tb.jsonl", "is a tau-bench results file", "jdsl import tau-bench {} -o"),
    ):
        path = str(tmp_path / name)
        for argv in (["package", "run", path, "--tools", "tools:TOOLS"],
                     ["package", "inspect", path]):  # fmt: skip
            result = runner.invoke(app, argv, terminal_width=300)
            assert result.exit_code == 1, result.output
            assert what in result.output and fix.format(path) in result.output, result.output
            assert "not a valid .jdsl archive" not in result.output


def test_package_run_help_names_file_py_tools(runner) -> None:
    result = runner.invoke(app, ["package", "run", "--help"], terminal_width=200)
    assert "file.py:NAME" in result.output, result.output


def test_inspect_says_n_a_for_a_coverage_nothing_was_replayed_for() -> None:
    """fresh7: ``jdsl package inspect`` printed Python's ``None`` as the replay coverage."""
    from jdsl.commands.show import verification_line

    line = verification_line({"status": "failed", "replay_coverage": None, "executed": 2,
                              "matched": 0, "fallback": 2})  # fmt: skip
    assert "None" not in line and "replay coverage n/a" in line
    assert "executed 2 episode(s), 0 matched, 2 handed to the fallback" in line
    assert "replay coverage 0.5;" in verification_line({"status": "passed", "replay_coverage": 0.5})


def test_a_trace_given_as_a_package_is_advised_a_compile_that_works(runner, tmp_path) -> None:
    """fresh8: the advice was `-o OUT.jdsl`, which a tau-bench import (many families) refuses;
    a directory takes one package or one per family."""
    sink = JsonlTraceSink(tmp_path / "runs.jsonl")
    held_out(sink)
    sink.close()
    result = runner.invoke(app, ["package", "inspect", str(tmp_path / "runs.jsonl")],
                           terminal_width=300)  # fmt: skip
    assert result.exit_code == 1
    assert "-o OUT/`" in result.output and "OUT.jdsl" not in result.output, result.output


def test_package_run_with_tools_that_miss_its_capabilities_gives_cli_advice(
    runner, traces, tmp_path
) -> None:
    """fresh9 finding 8: the error gave Python advice (`pass tools={'lookup': fn, ...}`) and
    all 16 names the wrong module bound; it names the --tools given, what it lacks, and how to
    find the names the mapping needs."""
    package = tmp_path / "p.jdsl"
    assert runner.invoke(app, ["compile", str(traces(3)), "-o", str(package)]).exit_code == 0
    result = runner.invoke(app, ["package", "run", str(package), "--tools",
                                 "jdsl.envs.tau_retail:capability_tools", "--reply", "0"])  # fmt: skip
    assert result.exit_code == 1, result.output
    error = result.stderr
    assert "tools={" not in error and "Traceback" not in result.output, error
    assert "--tools jdsl.envs.tau_retail:capability_tools" in error
    assert "get_order, list_orders, lookup" in error and "jdsl package inspect" in error
    assert "retail.modify_user_address" not in error  # not the whole wrong list
