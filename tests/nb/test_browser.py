"""A real browser: JupyterLab on loopback, headless Debian chromium (playwright), notebooks run whole.

The smoke notebook: a writer id in the provenance table, a tree node by its id in the drawing,
the step slider changing the blackboard shown, and the static fallback output hidden by the live
widget. Tutorial 01: moving the step slider recolours the tree drawing (the computed fill of a
node's shape) and moves the timeline cursor (its on-screen position), and a screenshot of the
run view is not blank. Skips only when chromium is missing and CI is not "true" (in CI a missing
browser is a failure).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
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


@contextlib.contextmanager
def _server(tmp_path: Path, app: str) -> Iterator[str]:
    """``jupyterlab`` or ``notebook`` (Notebook 7) on 127.0.0.1 with a token over ``tmp_path``:
    yields the page URL prefix for a notebook name (``{base}/NAME?token=...``)."""
    if not Path(CHROMIUM).exists() and os.environ.get("CI") != "true":
        pytest.skip("chromium is not installed (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")
    news = tmp_path / "cfg" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True, exist_ok=True)
    (news / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(tmp_path / "cfg"),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"),
        JUPYTER_DATA_DIR=str(tmp_path / "data"),  # its notebook_secret signs trusted notebooks
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "ws"),
    )
    command = [
        sys.executable,
        "-m",
        app,
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={tmp_path}",
    ]
    if app == "jupyterlab":
        command += [
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    server = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / f"{app}.log").open("wb"),
    )
    try:
        _wait_for(f"http://127.0.0.1:{port}/api/status?token={token}", 60)
        path = "lab/tree" if app == "jupyterlab" else "notebooks"
        yield f"http://127.0.0.1:{port}/{path}/{{name}}?token={token}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture(params=[NOTEBOOK, TUTORIAL], ids=["smoke", "tutorial01"])
def lab(request, tmp_path):
    """A JupyterLab server on 127.0.0.1 with a token, serving a copy of the notebook."""
    notebook = request.param
    shutil.copy(notebook, tmp_path / notebook.name)
    with _server(tmp_path, "jupyterlab") as url:
        yield notebook, url.format(name=notebook.name)


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
    compile views, in headless chromium at 900 px: no horizontal scroll of the page, every
    drawing's box inside, no blank band above the tree, labels rendered at 11 px or more."""
    from tests.system import require_program

    require_program(CHROMIUM, "apt-get install chromium")
    from jdsl.demo import teacher_tree
    from jdsl.drawing import drawing_html
    from jdsl_nb.compile_views import compile_html
    from jdsl_nb.rundata import RunData
    from jdsl_nb.views import run_html
    from playwright.sync_api import sync_playwright

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
        " svgs: [...document.querySelectorAll('svg')].map(s => {"
        " const r = s.getBoundingClientRect(), box = s.parentElement.getBoundingClientRect();"
        " const px = Math.min(...[...s.querySelectorAll('text')].map(t =>"
        " parseFloat(t.getAttribute('font-size')))) * r.width / s.viewBox.baseVal.width;"
        " return [box.left, box.right, r.top, box.top, px]})})"
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
    for left, right, top, parent_top, font_px in seen["svgs"]:
        assert left >= 0 and right <= 870, seen  # a wider drawing scrolls inside its box
        assert top - parent_top < 5, seen  # the drawing starts at the top of its box
        assert font_px >= 11, seen  # labels stay legible


def _open(pw, url: str):
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url, timeout=60_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    return browser, page


def _kernel_ready(page, url: str) -> None:
    """Wait until the server's kernel is idle and the page is connected to it (Notebook 7 shows
    no "Idle" text: a Run All sent before the kernel connects is lost)."""
    import json
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(url)
    token = parse_qs(parts.query)["token"][0]
    api = f"{parts.scheme}://{parts.netloc}/api/kernels?token={token}"
    end = time.monotonic() + 90
    while time.monotonic() < end:
        with urllib.request.urlopen(api, timeout=5) as answer:  # noqa: S310 - loopback only
            if any(k.get("execution_state") == "idle" for k in json.load(answer)):
                break
        time.sleep(0.5)
    page.wait_for_function(
        "() => { const s = document.querySelector('.jp-NotebookKernelStatus');"
        " return s && !/Initializing|Connecting|Starting/.test(s.innerText) }",
        timeout=60_000,
    )
    page.wait_for_timeout(1_000)


def _is_focused(locator) -> bool:
    return bool(locator.evaluate("el => el === document.activeElement"))


def test_arrow_keys_step_the_run_view_in_notebook_7(tmp_path):
    """Notebook 7 handles keys before the page does and binds ← / → in command mode to moving
    between cells: pressed on the step slider they took the focus to another cell. Now → twice
    on the slider moves the step twice and the focus stays; ← on a step button steps back."""
    from playwright.sync_api import expect, sync_playwright

    shutil.copy(TUTORIAL, tmp_path / TUTORIAL.name)
    with _server(tmp_path, "notebook") as url, sync_playwright() as pw:
        browser, page = _open(pw, url.format(name=TUTORIAL.name))
        try:
            _kernel_ready(page, url)
            page.get_by_role("menuitem", name="Run", exact=True).click()
            page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
            view = page.locator(".jdsl-run-view").first
            now = view.locator(".jdsl-step-now")
            expect(view).to_have_attribute("data-lm-suppress-shortcuts", "true", timeout=120_000)
            handle = view.locator(".jdsl-step-slider .noUi-handle").first
            handle.focus()
            page.keyboard.press("Home")
            expect(now).to_contain_text("step 0 of", timeout=30_000)
            page.keyboard.press("ArrowRight")
            page.keyboard.press("ArrowRight")
            expect(now).to_contain_text("step 2 of", timeout=30_000)
            assert _is_focused(handle), page.evaluate("document.activeElement.className")
            button = view.locator(".jdsl-step-button:has-text('›')").first
            button.click()
            expect(now).to_contain_text("step 3 of", timeout=30_000)
            page.keyboard.press("ArrowLeft")
            expect(now).to_contain_text("step 2 of", timeout=30_000)
            assert _is_focused(button), page.evaluate("document.activeElement.className")
            assert page.locator(".jp-MarkdownHeadingCollapsed").count() == 0
        finally:
            browser.close()


@pytest.fixture(scope="module")
def executed_tutorial(tmp_path_factory) -> Path:
    """Tutorial 01 run by nbclient and saved with its widget state, as a teacher saves it."""
    import nbformat
    from nbclient import NotebookClient

    folder = tmp_path_factory.mktemp("saved")
    nb = nbformat.read(TUTORIAL, as_version=4)
    NotebookClient(
        nb,
        timeout=180,
        kernel_name="python3",
        store_widget_state=True,
        resources={"metadata": {"path": str(TUTORIAL.parent)}},
    ).execute()
    path = folder / TUTORIAL.name
    nbformat.write(nb, path)
    return path


_ERROR_SHOWN = (
    "() => [...document.querySelectorAll('.jp-OutputArea-output')].filter(el =>"
    " el.innerText.includes('Error displaying widget') && el.checkVisibility()).length"
)


@pytest.mark.parametrize("app", ["jupyterlab", "notebook"])
def test_a_reopened_saved_notebook_shows_the_static_view_without_an_error(
    app, executed_tutorial, tmp_path
):
    """The executed, saved tutorial opened again without running it: no "Error displaying
    widget: model not found" is visible and the static run view is shown. The notebook is
    trusted, as one the teacher saved from the front end is (an untrusted one shows neither the
    widget nor the static drawing)."""
    import nbformat
    from nbformat.sign import NotebookNotary
    from playwright.sync_api import expect, sync_playwright

    nb = nbformat.read(executed_tutorial, as_version=4)
    (tmp_path / "data").mkdir()
    NotebookNotary(data_dir=str(tmp_path / "data")).sign(nb)
    nbformat.write(nb, tmp_path / TUTORIAL.name)
    with _server(tmp_path, app) as url, sync_playwright() as pw:
        browser, page = _open(pw, url.format(name=TUTORIAL.name))
        try:
            drawing = page.locator(".jdsl-widget-fallback").first.locator("svg").first
            drawing.scroll_into_view_if_needed(timeout=60_000)  # Notebook 7 renders cells lazily
            expect(drawing).to_be_visible(timeout=60_000)
            page.wait_for_timeout(5_000)  # the widget outputs have tried to render
            assert page.evaluate(_ERROR_SHOWN) == 0
        finally:
            browser.close()
