"""A real browser: JupyterLab on loopback, headless Debian chromium (playwright), notebooks run whole.

The smoke notebook: a writer id in the provenance table, a tree node by its id in the drawing,
the step slider changing the blackboard shown, and the static fallback output hidden by the live
widget. Tutorial 01: moving the step slider recolours the tree drawing (the computed fill of a
node's shape) and moves the timeline cursor (its on-screen position), and a screenshot of the
run view is not blank. Skips only when chromium is missing and CI is not "true" (in CI a missing
browser is a failure).
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-gpu",
    "--disable-dev-shm-usage",
]
NOTEBOOK = Path(__file__).with_name("retail_smoke.ipynb")
TUTORIAL = Path(__file__).parents[2] / "notebooks" / "01_quickstart.ipynb"
WRITER_ID = "root/sequence.0/action.0"
TREE_NODE_ID = "resolve_target"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(url: str, deadline_s: float) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - loopback only
                return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"JupyterLab did not answer at {url}")


@pytest.fixture(params=[NOTEBOOK, TUTORIAL], ids=["smoke", "tutorial01"])
def lab(request, tmp_path):
    """A JupyterLab server on 127.0.0.1 with a token, serving a copy of the notebook."""
    if not Path(CHROMIUM).exists() and os.environ.get("CI") != "true":
        pytest.skip("chromium is not installed (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")
    notebook = request.param
    shutil.copy(notebook, tmp_path / notebook.name)
    news = tmp_path / "cfg" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True)
    (news / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(tmp_path / "cfg"),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "ws"),
    )
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={tmp_path}",
        "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    server = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "lab.log").open("wb"),
    )
    try:
        _wait_for(f"http://127.0.0.1:{port}/api/status?token={token}", 60)
        yield notebook, f"http://127.0.0.1:{port}/lab/tree/{notebook.name}?token={token}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


def _run_all(page) -> None:
    from playwright.sync_api import expect

    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    expect(page.get_by_text("Python 3 (ipykernel) | Idle")).to_be_visible(timeout=60_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()


def test_notebook_widgets_render_in_jupyterlab(lab, tmp_path):
    from playwright.sync_api import sync_playwright

    notebook, url = lab
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url, timeout=60_000)
            _run_all(page)
            if notebook == NOTEBOOK:
                _check_smoke(page)
            else:
                _check_stepping(page, tmp_path / "run_view.png")
        finally:
            browser.close()


def _check_smoke(page) -> None:
    from playwright.sync_api import expect

    provenance = page.locator(".jdsl-run-provenance").first
    expect(provenance).to_contain_text(WRITER_ID, timeout=90_000)
    fallback = page.locator(".jdsl-widget-fallback").first  # the static output
    expect(fallback).to_be_attached()
    expect(fallback).to_be_hidden()  # the live widget's CSS hides it in Lab
    node = page.locator(f'.jdsl-run-tree svg g[id="{TREE_NODE_ID}"]').first
    expect(node).to_be_attached(timeout=30_000)
    board = page.locator(".jdsl-step-blackboard").first
    before = board.inner_text()
    page.locator(".jdsl-step-slider .noUi-handle").first.focus()
    page.keyboard.press("Home")
    expect(board).to_contain_text("as of step 0", timeout=30_000)
    assert board.inner_text() != before
    page.locator(".jdsl-run-view .jdsl-step-button:has-text('›')").first.click()
    expect(board).to_contain_text("as of step 1", timeout=30_000)


def _fill(page, node_id: str) -> str:
    shape = page.locator(f'.jdsl-run-view .jdsl-run-tree svg g[id="{node_id}"] polygon').first
    return str(shape.evaluate("el => getComputedStyle(el).fill"))


def _check_stepping(page, screenshot: Path) -> None:
    """Tutorial 01: the slider drives the tree colouring and the timeline cursor."""
    from playwright.sync_api import expect

    view = page.locator(".jdsl-run-view").first
    expect(view.locator(".jdsl-step-now")).to_contain_text("step", timeout=90_000)
    expect(view.locator('.jdsl-run-tree svg g[id="root/sequence.0/action.2"]')).to_be_attached()
    cursor = view.locator(".jdsl-cursor").first
    final_fill, final_x = _fill(page, "root/sequence.0/action.2"), cursor.bounding_box()["x"]
    assert final_fill == "rgb(155, 227, 155)"  # success, as the run ended
    view.locator(".jdsl-step-slider .noUi-handle").first.focus()
    page.keyboard.press("Home")
    expect(view.locator(".jdsl-step-now")).to_contain_text("step 0 of", timeout=30_000)
    page.wait_for_function(
        "() => getComputedStyle(document.querySelector('.jdsl-run-view .jdsl-run-tree svg "
        "g[id=\"root/sequence.0/action.2\"] polygon')).fill === 'rgb(255, 255, 255)'",
        timeout=30_000,
    )  # not run yet at step 0
    assert cursor.bounding_box()["x"] < final_x - 50  # the cursor moved left
    for _ in range(6):
        page.keyboard.press("ArrowRight")  # the slider's keys step through the run
    expect(view.locator(".jdsl-step-now")).to_contain_text("step 6 of", timeout=30_000)
    assert _fill(page, "root/sequence.0/action.0") in ("rgb(255, 245, 157)", "rgb(155, 227, 155)")
    height = view.bounding_box()["height"]
    assert height < 1300, f"the run view is {height:.0f} px tall; about one screen is expected"
    view.screenshot(path=str(screenshot))
    _assert_not_blank(screenshot)


def _assert_not_blank(path: Path) -> None:
    """A screenshot with real content: many distinct colours, not one flat fill."""
    from PIL import Image

    with Image.open(path) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20) or []
    assert image.size[0] > 600 and image.size[1] > 300, image.size
    assert len(colours) > 50, f"{path} looks blank ({len(colours)} colours)"
    dominant = max(count for count, _ in colours)
    assert dominant < 0.97 * image.size[0] * image.size[1], f"{path} is one flat colour"


def test_views_fit_the_output_width_without_scrolling(tmp_path, cancel_ir, run_events):
    """Tutorial 03's drawings (the shipped teacher, a wide compiled tree) in the static run and
    compile views, in headless chromium at 900 px: no horizontal scroll, every SVG inside, no
    blank band above the tree."""
    from tests.system import require_program

    require_program(CHROMIUM, "apt-get install chromium")
    from jdsl.demo import teacher_tree
    from jdsl.drawing import drawing_html
    from playwright.sync_api import sync_playwright

    from jdsl_nb.compile_views import compile_html
    from jdsl_nb.rundata import RunData
    from jdsl_nb.views import run_html

    wide = {
        "kind": "root",
        "name": "wide",
        "child": {
            "kind": "sequence",
            "children": [{"kind": "sequence", "children": [cancel_ir["child"]] * 3}] * 4,
        },
    }

    class Result:
        compiled = wide
        verification = {"status": "passed", "structural_ok": True}

    page_html = (
        "<div class='jdsl-view' style='width:860px'>"
        + drawing_html(teacher_tree())
        + run_html(RunData.build(run_events))
        + compile_html(Result(), run_events)
        + "</div>"
    )
    path = tmp_path / "views.html"
    path.write_text(page_html, encoding="utf-8")
    probe = (
        "() => ({page: document.documentElement.scrollWidth, view: window.innerWidth,"
        " svgs: [...document.querySelectorAll('svg')].map(s => {const r = s.getBoundingClientRect();"
        " return [r.left, r.right, r.top, s.parentElement.getBoundingClientRect().top]})})"
    )
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 900, "height": 1000})
            page.goto(path.as_uri())
            seen = page.evaluate(probe)
        finally:
            browser.close()
    assert seen["page"] <= seen["view"], seen
    assert len(seen["svgs"]) >= 4
    for left, right, top, parent_top in seen["svgs"]:
        assert left >= 0 and right <= 870, seen
        assert top - parent_top < 5, seen  # the drawing starts at the top of its box
