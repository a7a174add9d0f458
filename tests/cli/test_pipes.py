"""The command line in a pipeline: ``python -m jdsl`` works, and a reader that leaves early
(``jdsl show T | head``) is no error with a wrong fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from jdsl.testing import ScriptedModel
from jdsl.text import parse_behavior
from jdsl.trace import JsonlTraceSink

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "core"), str(REPO)])}


def test_python_dash_m_jdsl_runs_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "jdsl", "--help"], capture_output=True, text=True, env=ENV,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "compile" in done.stdout


def test_show_into_a_pipe_closed_early_prints_no_error(tmp_path: Path) -> None:
    tree = parse_behavior("root t\n  act lookup(q=q) -> r\n")
    path = tmp_path / "t.jsonl"
    with JsonlTraceSink(path) as sink:
        for i in range(400):  # a timeline well over a pipe's buffer
            tree.run(
                model=ScriptedModel(),
                tools={"lookup": lambda q: q * 40},
                trace_sink=sink,
                q=f"q{i}",
            )
    shown = subprocess.Popen(
        [sys.executable, "-m", "jdsl", "show", str(path)], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=ENV,
    )  # fmt: skip
    assert shown.stdout is not None and shown.stderr is not None
    shown.stdout.readline()
    shown.stdout.close()  # `| head -1`
    error = shown.stderr.read().decode()
    shown.wait(timeout=60)
    assert "error" not in error and "Traceback" not in error, error
