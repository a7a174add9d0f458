"""``jdsl show --diff PKG TRACES``: a held-out run side by side with the package's replay."""

from __future__ import annotations

from jdsl.cli import app
from jdsl.package import export_jdsl
from jdsl.trace import JsonlTraceSink

from tests.nb.lesson_diff import compiled, held_out


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
