"""``%behavior doctor``: the report of :func:`jdsl.doctor.doctor_report` as HTML too."""

from __future__ import annotations

from jdsl.doctor import doctor_report, doctor_text

from jdsl_nb._html import page, table

__all__ = ["doctor_html", "doctor_report", "doctor_text"]


def doctor_html(report: dict[str, str]) -> str:
    """The report as a two-column table."""
    return page("jdsl doctor", table(["check", "finding"], report.items(), raw=False))
