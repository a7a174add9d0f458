"""``jdsl --version`` and readable help: flags without ``<bool>``, usage in plain text."""

from __future__ import annotations

import subprocess
import sys

import jdsl
import pytest
from jdsl.cli import app


def test_version(runner) -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"jdsl {jdsl.__version__}\n"


@pytest.mark.parametrize(
    ("args", "flag"),
    [(["demo"], "-q, --quiet"), (["compile"], "--skip-bad-lines"), ([], "--version")],
)
def test_flags_show_no_value_placeholder(runner, args, flag) -> None:
    result = runner.invoke(app, [*args, "--help"])
    assert result.exit_code == 0
    line = next(line for line in result.output.splitlines() if flag in line)
    assert "<bool>" not in result.output and line.split(flag)[1].startswith("  ")


def test_the_installed_command_runs_without_a_traceback(tmp_path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    code = "from jdsl.cli import app; app()"
    done = subprocess.run(
        [sys.executable, "-c", code, "compile", str(empty), "-o", str(tmp_path / "e.jdsl")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"error: no episodes in {empty} — ")
    assert not (tmp_path / "e.jdsl").exists()


@pytest.mark.parametrize("kind", ["tau-bench", "openai-chat", "otel"])
def test_import_help_names_its_argument_source_as_out_says(runner, kind) -> None:
    """-o's help says 'SOURCE's name'; the argument was shown as episodes / log / spans."""
    result = runner.invoke(app, ["import", kind, "--help"])
    assert result.exit_code == 0
    assert f"jdsl import {kind} [OPTIONS] {{SOURCE}}" in " ".join(result.output.split())
