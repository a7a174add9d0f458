"""The static view of a held-out validation (:class:`jdsl.compiler.HeldOutReport`): the summary,
then one row per episode (outcome, why, the first divergence, contradicted constants)."""

from __future__ import annotations

from typing import Any

from jdsl_nb._html import esc, page, table

__all__ = ["holdout_html", "holdout_text"]

_CLASSES = {
    "matched": "jdsl-badge jdsl-status-success",
    "diverged": "jdsl-badge jdsl-status-failure",
}


def holdout_text(report: Any) -> str:
    """The report's own text (the per-episode table and the summary)."""
    return str(report.text)


def holdout_html(report: Any) -> str:
    """The summary and a table: episode, outcome, why / first divergence, constants."""
    rows = []
    for row in report.rows:
        divergence = row.divergence
        why = row.reason or (divergence.reason if divergence else "")
        where = f"node {divergence.node_id}, call {divergence.call_index}: " if divergence else ""
        outcome = (
            f"<span class='{_CLASSES.get(row.outcome, 'jdsl-note')}'>{esc(row.outcome)}</span>"
        )
        rows.append([esc(row.episode_id), outcome, esc(where + why),
                     esc("; ".join(row.contradicted) or "-")])  # fmt: skip
    body = (f"<p>{esc(report.summary())}</p>"
            + table(["episode", "outcome", "why / first divergence", "constants contradicted"],
                    rows, cls="jdsl-table"))  # fmt: skip
    return page(f"held-out validation of {report.package}", body, cls="jdsl-holdout")
