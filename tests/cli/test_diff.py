"""``jdsl show --diff PKG TRACES``: a held-out run side by side with the package's replay."""

from __future__ import annotations

from jdsl.cli import app
from jdsl.package import export_jdsl
from jdsl.trace import JsonlTraceSink

from tests.nb.lesson_diff import compiled, failed_run, held_out


def test_show_diff_prints_the_steps_and_writes_html(runner, tmp_path) -> None:
    package = export_jdsl(compiled().package, tmp_path / "remind.jdsl")
    sink = JsonlTraceSink(tmp_path / "held.jsonl")
    held_out(sink)
    sink.close()
    page = tmp_path / "diff.html"
    result = runner.invoke(app, ["show", "--diff", str(package), str(tmp_path / "held.jsonl"),
                                 "--html", str(page)])  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "episode held: DIVERGED at step 1" in result.stdout
    assert ">>   1 ≠ teacher: add_note(student_id='s9')" in result.stdout
    assert "1 episode(s): 0 matched, 0 handed to the fallback, 1 diverged" in result.stdout
    assert "jdsl-diff-first" in page.read_text(encoding="utf-8")


def test_show_diff_wants_the_package_first(runner, tmp_path) -> None:
    sink = JsonlTraceSink(tmp_path / "held.jsonl")
    held_out(sink)
    sink.close()
    result = runner.invoke(app, ["show", "--diff", str(tmp_path / "held.jsonl")])
    assert result.exit_code == 1 and "needs a package and traces" in result.output


def test_show_diff_skips_a_failed_recorded_run(runner, tmp_path) -> None:
    package = export_jdsl(compiled().package, tmp_path / "remind.jdsl")
    sink = JsonlTraceSink(tmp_path / "failed.jsonl")
    failed_run(sink)
    sink.close()
    result = runner.invoke(app, ["show", "--diff", str(package), str(tmp_path / "failed.jsonl")])
    assert result.exit_code == 0, result.output
    assert "forgot_request" not in result.stdout
    assert (
        "0 episode(s): 0 matched, 0 handed to the fallback, 0 diverged; 1 failed recorded run skipped"
        in result.stdout
    )
    asked = runner.invoke(app, ["show", "--diff", str(package), str(tmp_path / "failed.jsonl"),
                                "--episode", "forgot_request"])  # fmt: skip
    assert "episode forgot_request" in asked.stdout


def test_a_torn_trace_line_advice_is_a_flag_show_has(runner, tmp_path) -> None:
    """The reader's advice for a torn line is --skip-bad-lines: ``jdsl show`` takes it too."""
    package = export_jdsl(compiled().package, tmp_path / "remind.jdsl")
    sink = JsonlTraceSink(tmp_path / "held.jsonl")
    held_out(sink)
    sink.close()
    torn = tmp_path / "torn.jsonl"
    torn.write_text((tmp_path / "held.jsonl").read_text(encoding="utf-8") + '{"kind": "ep')
    for args in (["show", str(torn)], ["show", "--diff", str(package), str(torn)]):
        refused = runner.invoke(app, args)
        assert refused.exit_code == 1 and "--skip-bad-lines" in refused.output
        skipped = runner.invoke(app, [*args, "--skip-bad-lines"])
        assert "episode held" in skipped.stdout and "No such option" not in skipped.output


def test_html_without_diff_is_refused(runner, tmp_path) -> None:
    sink = JsonlTraceSink(tmp_path / "held.jsonl")
    held_out(sink)
    sink.close()
    result = runner.invoke(
        app, ["show", str(tmp_path / "held.jsonl"), "--html", str(tmp_path / "x.html")]
    )
    assert result.exit_code == 1 and "--html writes the --diff view" in result.output
    assert not (tmp_path / "x.html").exists()


def test_show_diff_takes_the_package_family_runs_unless_all(runner, tmp_path) -> None:
    """A package compiled per family is diffed on its family's runs (as `jdsl package
    validate` checks them): diffing all 87 runs of the results file against the
    update_reservation_flights package printed 87 fallbacks."""
    from pathlib import Path

    slice_ = Path(__file__).parents[1] / "fixtures" / "tau_bench" / "gpt-4o-airline.slice.json"
    traces, families = tmp_path / "slice.jsonl", tmp_path / "families"
    runner.invoke(app, ["import", "tau-bench", str(slice_), "-o", str(traces)])
    runner.invoke(app, ["compile", str(traces), "-o", str(families)])  # by intent
    family = "airline.no_write"
    package = families / f"{family}.jdsl"
    result = runner.invoke(app, ["show", "--diff", str(package), str(traces)])
    assert result.exit_code == 0, result.output
    assert f"the 6 run(s) of family {family!r}" in result.stderr
    assert "14 run(s) of other families skipped (--all diffs them too)" in result.stderr
    assert "4 episode(s):" in result.stdout and "2 failed recorded runs skipped" in result.stdout
    every = runner.invoke(app, ["show", "--diff", str(package), str(traces), "--all"])
    assert "15 episode(s):" in every.stdout and "5 failed recorded runs skipped" in every.stdout


def test_show_diff_episode_is_repeatable_and_an_unknown_id_is_named(runner, tmp_path) -> None:
    """``-e`` means what it means in ``jdsl package validate``: repeatable, each id shown; an
    id the traces lack is named, with the ids there are and where to list them."""
    package = export_jdsl(compiled().package, tmp_path / "remind.jdsl")
    traces = tmp_path / "both.jsonl"
    with JsonlTraceSink(traces) as sink:
        held_out(sink)
        failed_run(sink)
    both = runner.invoke(app, ["show", "--diff", str(package), str(traces),
                               "-e", "held", "-e", "forgot_request"])  # fmt: skip
    assert "episode held:" in both.stdout and "episode forgot_request" in both.stdout
    assert "2 episode(s):" in both.stdout
    nope = runner.invoke(app, ["show", "--diff", str(package), str(traces), "-e", "nope"])
    assert nope.exit_code == 1
    assert "no episode 'nope' in" in nope.output and "no episodes in" not in nope.output
    assert "forgot_request" in nope.output and "jdsl show" in nope.output
    shown = runner.invoke(app, ["show", str(traces), "-e", "held", "-e", "forgot_request"])
    assert shown.exit_code == 0 and "held" in shown.stdout and "forgot_request" in shown.stdout


def test_a_bad_html_path_is_refused_before_the_diff_runs(runner, tmp_path) -> None:
    """fresh9: `--html DIR` or `--html missing/x.html` failed only after the whole diff was
    computed and printed; it is refused first, as every other output path is."""
    package = export_jdsl(compiled().package, tmp_path / "remind.jdsl")
    sink = JsonlTraceSink(tmp_path / "held.jsonl")
    held_out(sink)
    sink.close()
    for html, said in [
        (tmp_path, "is a directory"),
        (tmp_path / "no" / "x.html", "does not exist"),
    ]:
        result = runner.invoke(app, ["show", "--diff", str(package), str(tmp_path / "held.jsonl"),
                                     "--html", str(html)])  # fmt: skip
        assert result.exit_code == 1, result.output
        assert said in result.stderr and "--html" in result.stderr, result.stderr
        assert "episode held" not in result.stdout, result.stdout
