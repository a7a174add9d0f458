"""A real browser: JupyterLab on loopback, headless Debian chromium, the smoke notebook run whole.

Checks in the DOM: a writer id in the provenance table, a tree node by its id in the drawing, the
step slider changing the blackboard shown, and the static fallback output hidden by the live widget. Skips only when chromium is missing and CI is not
"true" (in CI a missing browser is a failure).
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
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-gpu", "--disable-dev-shm-usage"]
NOTEBOOK = Path(__file__).with_name("retail_smoke.ipynb")
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


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on 127.0.0.1 with a token, serving a copy of the notebook."""
    if not Path(CHROMIUM).exists() and os.environ.get("CI") != "true":
        pytest.skip("chromium is not installed (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")
    shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "cfg"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"), JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "ws"))
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
               f"--port={port}", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={tmp_path}", "--LabApp.news_url=",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    server = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=(tmp_path / "lab.log").open("wb"),
    )
    try:
        _wait_for(f"http://127.0.0.1:{port}/api/status?token={token}", 60)
        yield f"http://127.0.0.1:{port}/lab/tree/{NOTEBOOK.name}?token={token}"
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


def test_notebook_widgets_render_in_jupyterlab(lab):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(lab, timeout=60_000)
            _run_all(page)
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
        finally:
            browser.close()
