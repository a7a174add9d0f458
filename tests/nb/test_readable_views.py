"""Compile and package views read top down: a summary first, details folded, grades and
metrics explained in place and in docs/glossary.md (issue 27)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from jdsl_nb.compile_views import compile_html, package_html
from jdsl_nb.glossary import TERMS

from tests.nb.lesson_diff import compiled

GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "glossary.md"


@pytest.fixture(scope="module")
def result():
    return compiled()


def test_every_term_of_the_views_is_in_the_glossary():
    text = " ".join(GLOSSARY.read_text(encoding="utf-8").split())
    for term, meaning in TERMS.items():
        assert f"**{term}**" in text and meaning in text, term


def test_the_compile_view_starts_with_a_summary_and_folds_the_details(result):
    page = compile_html(result)
    first_fold = page.index("<details")
    summary = page[:first_fold]
    assert "jdsl-summary" in summary and "candidates (" in summary
    assert (
        "<abbr title='residual decision burden" in summary and "deterministic coverage" in summary
    )
    assert "grades: <abbr title='evidence grade E0" in summary
    folds = re.findall(r"<details class='jdsl-section'( open)?><summary><b>([^<]*)</b>", page)
    assert folds[0] == (" open", "compiled tree")
    assert [title.split(" (")[0] for opened, title in folds[1:] if not opened] == [
        "candidates",
        "lineage flows",
        "residual signatures",
    ]
    assert re.search(r"<td><abbr title='evidence grade E\d", page)  # each grade hovers


def test_the_package_view_starts_with_one_line(result):
    page = package_html(result.package)
    assert page.index("jdsl-summary") < page.index("<details")
    assert (
        "<summary><b>files (" in page
        and "<details class='jdsl-section'><summary><b>manifest" in page
    )
