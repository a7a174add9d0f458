"""The step diff in a real browser: JupyterLab, Notebook 7 and nbconvert's static HTML (issue 27,
"the diff view shows a held-out divergence side by side in Lab, Notebook 7 and static HTML").

One notebook shows two :class:`jdsl_nb.widgets.DiffView`: the reminder lesson's held-out run
(``tests/nb/lesson_diff.py``: the same first call, then the teacher's ``add_note`` against the
package's ``send_reminder``, diverged at step 1) and tutorial 04's held-out run of
``airline.update_reservation_flights``, which the package hands to its fallback at step 0. Each
front end must show the rows side by side (teacher and package in one row), the first divergence
highlighted (its background) and the fallback's hand-over row. Skips as ``test_browser.py`` does
when chromium is missing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.nb.test_browser import CHROMIUM, CHROMIUM_ARGS, _kernel_ready, _open, _run_all, _server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = Path(__file__).with_name("lesson_diff.py")
NAME = "diff_views.ipynb"
FIRST_BACKGROUND = "rgb(244, 163, 163)"  # .jdsl-diff-first (jdsl.compiler.stepdiff.DIFF_CSS)
HAND_OVER_BACKGROUND = "rgb(255, 243, 205)"  # .jdsl-diff-fallback

AIRLINE = """\
from jdsl.compiler import compile_normalized, group_episodes, holdout_split, normalize_all
from jdsl.envs import data_path
from jdsl.importers import import_tau_bench

raw = normalize_all(import_tau_bench(str(data_path(
    "tau_airline", "raw", "gpt-4o-airline.dev.json"))).episodes)
kept, held = holdout_split(dict(group_episodes(raw, "intent"))["airline.update_reservation_flights"], 1)
package = compile_normalized(kept, name="update_reservation_flights").package
DiffView(step_diff(package.ir, held[0]))"""


def _notebook(folder: Path) -> Path:
    """The two diffs as a notebook in ``folder`` (the lesson's module is its first cell, so the
    kernel needs nothing outside the installed packages)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    lesson = LESSON.read_text(encoding="utf-8").replace("from __future__ import annotations\n", "")
    nb = new_notebook(
        cells=[
            new_markdown_cell("# The step diff of two held-out runs"),
            new_code_cell(
                lesson
                + "\nfrom jdsl.compiler.stepdiff import step_diff\nfrom jdsl_nb.widgets import DiffView"
            ),
            new_code_cell("DiffView(step_diff(compiled().package.ir, held_out_normalized()[0]))"),
            new_code_cell(AIRLINE),
        ],
        metadata={
            "kernelspec": {
                "name": "python3",
                "display_name": "Python 3 (ipykernel)",
                "language": "python",
            }
        },  # fmt: skip
    )
    path = folder / NAME
    nbformat.write(nb, path)
    return path


def _background(locator) -> str:
    return str(locator.locator("td").first.evaluate("el => getComputedStyle(el).backgroundColor"))


def _check_diffs(page, scope: str) -> None:
    """The two diffs under ``scope`` (the live widget, or the static output) as a reader sees
    them."""
    from playwright.sync_api import expect

    lesson, airline = (
        page.locator(f"{scope} .jdsl-diff").nth(0),
        page.locator(f"{scope} .jdsl-diff").nth(1),
    )
    lesson.scroll_into_view_if_needed(timeout=120_000)
    expect(lesson).to_be_visible(timeout=60_000)
    expect(lesson.locator("tr[data-step]")).to_have_count(3)
    same = lesson.locator("tr[data-step='0']")
    expect(same).to_be_visible()
    sides = same.locator("td > code")
    expect(sides).to_have_count(2)  # teacher | package, one row
    expect(sides.nth(0)).to_contain_text("get_student(student_id='s9')")
    expect(sides.nth(1)).to_contain_text("get_student(student_id='s9')")
    box0, box1 = sides.nth(0).bounding_box(), sides.nth(1).bounding_box()
    assert box0 and box1 and box1["x"] > box0["x"] + box0["width"] - 1, (box0, box1)
    assert abs(box1["y"] - box0["y"]) < 5, (box0, box1)  # side by side, not stacked
    first = lesson.locator("tr.jdsl-diff-first")
    expect(first).to_have_count(1)
    expect(first).to_be_visible()
    expect(first).to_have_attribute("data-step", "1")
    expect(first).to_contain_text("add_note(student_id='s9')")
    expect(first).to_contain_text("send_reminder(")
    assert _background(first) == FIRST_BACKGROUND
    expect(lesson).to_contain_text("diverged at step 1")

    airline.scroll_into_view_if_needed(timeout=120_000)
    expect(airline).to_be_visible(timeout=120_000)
    expect(airline).to_contain_text("handed to the fallback at step 0")
    hand_over = airline.locator("tr.jdsl-diff-fallback:not([data-step])")
    expect(hand_over).to_have_count(1)
    expect(hand_over).to_be_visible()
    expect(hand_over).to_contain_text("fallback fallback takes over here")
    assert _background(hand_over) == HAND_OVER_BACKGROUND
    expect(airline.locator("tr.jdsl-diff-first")).to_contain_text("get_user_details(")


@pytest.mark.parametrize("app", ["jupyterlab", "notebook"])
def test_the_diff_view_shows_a_held_out_divergence_in_the_front_end(app, tmp_path):
    """Run All in JupyterLab / Notebook 7: the live DiffViews show both diffs, the static
    output of each cell hidden behind its widget."""
    from playwright.sync_api import expect, sync_playwright

    _notebook(tmp_path)
    with _server(tmp_path, app) as url, sync_playwright() as pw:
        browser, page = _open(pw, url.format(name=NAME))
        try:
            if app == "jupyterlab":
                _run_all(page)
            else:
                _kernel_ready(page, url)
                page.get_by_role("menuitem", name="Run", exact=True).click()
                page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
            live = page.locator(".jdsl-live-view")
            expect(live).to_have_count(2, timeout=180_000)
            _check_diffs(page, ".jdsl-live-view")
            for each in page.locator(".jdsl-widget-fallback").all():
                expect(each).to_be_hidden()  # the live widget hides its static twin
            assert live.nth(0).locator("button:has-text('first divergence')").is_enabled()
        finally:
            browser.close()


def test_the_diff_view_shows_a_held_out_divergence_in_static_html(tmp_path):
    """The notebook executed by nbclient (widget state saved, as nbconvert --execute does)
    and exported by nbconvert's HTML exporter, opened offline (every http request refused, so
    the widget embedder from its CDN cannot load): the static diffs are what a reader sees."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists() and os.environ.get("CI") != "true":
        pytest.skip("chromium is not installed (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")
    nb = nbformat.read(_notebook(tmp_path), as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", store_widget_state=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()  # fmt: skip
    page_html, _ = HTMLExporter().from_notebook_node(nb)
    assert len(re.findall(r'class="jdsl-widget-fallback"', page_html)) == 2
    path = tmp_path / "diff_views.html"
    path.write_text(page_html, encoding="utf-8")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.route(re.compile(r"^https?://"), lambda route: route.abort())
            page.goto(path.as_uri(), timeout=60_000)
            _check_diffs(page, ".jdsl-widget-fallback")
        finally:
            browser.close()
