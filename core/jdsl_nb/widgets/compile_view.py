"""CompileView: a compile result in the notebook (ipywidgets 8).

The teacher tree (the IR recorded in the trace's ``episode.started``) and the compiled IR side by
side; the candidates with their evidence grades as a pandas table, filterable by grade; the
lineage flows; the verification report; the residual signatures left to a model.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w
from jdsl.drawing import drawing_html

from jdsl_nb import compile_views as cv
from jdsl_nb._html import CSS, esc
from jdsl_nb.widgets._static import LIVE_CSS, StaticFallbackBox
from jdsl_nb.widgets.run_view import Section

__all__ = ["CompileView", "candidates_frame"]

_ALL = "(all grades)"


def candidates_frame(result: Any) -> Any:
    """The candidates of a compile result as a pandas DataFrame (one row per candidate)."""
    try:
        import pandas as pd
    except ImportError as exc:
        from jdsl.errors import MissingDependencyError

        raise MissingDependencyError("pandas", "notebook") from exc
    return pd.DataFrame(cv.candidate_rows(result), columns=cv.CANDIDATE_COLUMNS)


def _view(body: str, cls: str) -> w.HTML:
    widget = w.HTML(value=f"<div class='jdsl-view'>{body}</div>")
    widget.add_class(cls)
    return widget


def _frame_html(frame: Any, cls: str, limit: int = 300) -> str:
    if frame is None or len(frame) == 0:
        return "<div class='jdsl-note'>(none)</div>"
    more = len(frame) - limit
    note = f"<div class='jdsl-note'>{more} more rows</div>" if more > 0 else ""
    return (
        str(frame.head(limit).to_html(index=False, classes=f"jdsl-table {cls}", escape=True)) + note
    )


class CompileView(StaticFallbackBox):
    """A compile result next to the tree that taught it.

    Args:
        result: a ``CompileResult`` (``package, compiled, candidates, verification, normalized``).
        trace: the trace (or events) the result was compiled from, for the teacher tree.
    """

    def __init__(self, result: Any, trace: Any = None) -> None:
        import pandas as pd

        self.result = result
        self.trace = trace
        self.candidates = candidates_frame(result)
        teacher, compiled = cv.teacher_ir(trace), cv.compiled_ir(result)
        right = drawing_html(compiled) if compiled else "<i>(no compiled IR)</i>"
        trees = [Section("compiled tree", [_view(right, "jdsl-compiled-tree")])]
        if teacher:  # stacked, each at the output's width: side by side they overflowed
            trees.append(
                Section(
                    "teacher tree", [_view(drawing_html(teacher), "jdsl-teacher-tree")], open=False
                )
            )
        grades = sorted({str(g) for g in self.candidates.get("grade", [])})
        self.grade_picker = w.Dropdown(options=[_ALL, *grades], value=_ALL, description="grade")
        self.table = _view("", "jdsl-candidates")
        self.grade_picker.observe(lambda _: self._show_candidates(), names="value")
        self._show_candidates()
        lineage = pd.DataFrame(cv.lineage_rows(result))
        residuals = pd.DataFrame(cv.residual_rows(result))
        super().__init__(
            children=[
                w.HTML(CSS + LIVE_CSS + "<b>compile result</b>"),
                _view(cv.compile_summary_html(result), "jdsl-verification"),
                *trees,
                Section(
                    f"candidates ({len(self.candidates)})",
                    [self.grade_picker, self.table],
                    open=False,
                ),
                Section(
                    f"lineage flows ({len(lineage)})",
                    [_view(_frame_html(lineage, "jdsl-lineage"), "jdsl-lineage-view")],
                    open=False,
                ),
                Section(
                    f"residual signatures ({len(residuals)})",
                    [_view(_frame_html(residuals, "jdsl-residuals"), "jdsl-residual-view")],
                    open=False,
                ),
            ]
        )
        self.add_class("jdsl-compile-view")

    def _show_candidates(self) -> None:
        grade = self.grade_picker.value
        frame = (
            self.candidates if grade == _ALL else self.candidates[self.candidates["grade"] == grade]
        )
        self.table.value = f"<div class='jdsl-view'>{_frame_html(frame, 'jdsl-candidates')}</div>"

    def static_text(self) -> str:
        return cv.compile_text(self.result)

    def static_html(self) -> str:
        return cv.compile_html(self.result, self.trace)

    def __repr__(self) -> str:
        return f"CompileView(candidates={len(self.candidates)}, verification={esc(cv.verification_dict(self.result).get('status', '?'))})"
