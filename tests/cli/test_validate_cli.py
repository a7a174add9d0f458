"""``jdsl package validate``: its advice names only options it has, and its help describes
only options it has."""

from __future__ import annotations

from jdsl.cli import app
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
