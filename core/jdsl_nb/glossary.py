"""The words of the compile and package views, explained where they appear (hover text and a
legend) and in docs/glossary.md (the same sentences; ``tests/nb/test_readable_views`` checks
that every term here is in the glossary)."""

from __future__ import annotations

from jdsl_nb._html import esc

__all__ = ["GRADES", "METRICS", "TERMS", "abbr", "grade_legend", "metrics_html"]

GRADES: dict[str, str] = {
    "E0": "evidence grade E0: seen once, or contradicted with fewer than two supports",
    "E1": "evidence grade E1: two supports and no counterexample (or contested with two or more)",
    "E2": "evidence grade E2: three or more supports and no counterexample",
    "E3": "evidence grade E3: backed by a tool contract",
    "E4": "evidence grade E4: verified by replaying the episodes",
}
METRICS: dict[str, str] = {
    "RDB": "residual decision burden: the package's model decisions / all its decisions "
    "(actions, guards, checks, predicts, reacts); lower means less left to a model",
    "coverage": "deterministic coverage = 1 - RDB: the share of decisions made by code, "
    "not by a model",
    "replay coverage": "the share of recorded calls the verification replay checked",
}
TERMS: dict[str, str] = {**GRADES, **METRICS}


def abbr(term: str, text: str | None = None) -> str:
    """``term`` with its explanation as hover text (an ``<abbr title=...>``)."""
    meaning = TERMS.get(term)
    shown = esc(text if text is not None else term)
    return f"<abbr title='{esc(meaning)}'>{shown}</abbr>" if meaning else shown


def grade_legend() -> str:
    """One line explaining E0 to E4 (hover each for the full sentence)."""
    items = " · ".join(f"{abbr(g)} {esc(GRADES[g].split(': ', 1)[1])}" for g in GRADES)
    return f"<div class='jdsl-note jdsl-legend'>grades: {items}</div>"


def metrics_html(metrics: object) -> str:
    """RDB and coverage with their meaning in place, from a ``PackageMetrics`` (or nothing)."""
    rdb = getattr(metrics, "residual_decision_burden", None)
    coverage = getattr(metrics, "deterministic_coverage", None)
    if not isinstance(rdb, int | float) or not isinstance(coverage, int | float):
        return ""
    return (
        f"<div class='jdsl-metrics'>{abbr('RDB')} {rdb:.2f} "
        f"<span class='jdsl-note'>({esc(METRICS['RDB'])})</span> · {abbr('coverage')} "
        f"{coverage:.2f} <span class='jdsl-note'>({esc(METRICS['coverage'])})</span></div>"
    )
