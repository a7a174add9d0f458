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
