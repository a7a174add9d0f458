"""Every module a document tells the user to run (``python -m jdsl...``) runs, and answers
``--help`` with its usage; a wrong argument is one usage error, never a traceback
(``python -m jdsl.demo.styles_job --help`` measured a style named ``--help``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
_RUN = re.compile(r"python -m (jdsl(?:\.\w+)+)")


def _documented() -> list[str]:
    texts = [REPO / "README.md", *(REPO / "docs").rglob("*.md"), *(REPO / "core").rglob("*.py")]
    found = {m for path in texts for m in _RUN.findall(path.read_text(encoding="utf-8"))}
    return sorted(found)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          env=env, timeout=120, check=False)  # fmt: skip


def test_the_documented_modules_include_the_demo_scripts() -> None:
    assert {"jdsl.demo.styles_job", "jdsl.demo.retail_styles"} <= set(_documented())


@pytest.mark.parametrize("module", _documented())
def test_every_documented_module_answers_help(module: str) -> None:
    result = _run(module, "--help")
    assert result.returncode == 0, result.stderr
    assert "usage:" in result.stdout.lower() and "Traceback" not in result.stderr


@pytest.mark.parametrize("module", ["jdsl.demo.styles_job", "jdsl.demo.retail_styles"])
def test_an_unknown_style_is_a_usage_error(module: str) -> None:
    result = _run(module, "nosuch")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "no style 'nosuch': pass one of direct, thorough, terse, small" in result.stderr


def test_retail_styles_writes_a_results_file_jdsl_imports(tmp_path: Path) -> None:
    out = tmp_path / "direct.json"
    result = _run("jdsl.demo.retail_styles", "direct", "-o", str(out))
    assert result.returncode == 0, result.stderr
    rows = json.loads(out.read_text(encoding="utf-8"))
    assert rows and {"task_id", "reward", "traj"} <= set(rows[0])
    assert f"jdsl import tau-bench {out}" in result.stdout  # what to do with it next
