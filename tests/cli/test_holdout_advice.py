"""``--holdout N`` that holds out no run says which ``--holdout`` would (the largest family's
successful runs less one), and never "a smaller --holdout" when there is none: --holdout 0 is
refused (fresh9 finding 7)."""

from __future__ import annotations

from jdsl.cli import app


def test_holdout_1_on_one_run_families_says_add_runs_not_a_smaller_holdout(
    runner, traces, tmp_path
) -> None:
    result = runner.invoke(app, ["compile", str(traces(1)), "--group-by", "intent",
                                 "--holdout", "1", "-o", f"{tmp_path / 'out'}/"])  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "smaller --holdout" not in result.stderr, result.stderr
    assert "add runs" in result.stderr and "Traceback" not in result.output


def test_a_holdout_too_large_names_the_largest_that_fits(runner, traces, tmp_path) -> None:
    result = runner.invoke(app, ["compile", str(traces(3)), "--group-by", "intent",
                                 "--holdout", "5", "-o", f"{tmp_path / 'out'}/"])  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "--holdout 2 or less" in result.stderr, result.stderr
