"""ipywidgets 8 views: RunView (a run), CompileView (a compile result) and DiffView (a
recorded episode against its replay)."""

from jdsl_nb.widgets.compile_view import CompileView, candidates_frame
from jdsl_nb.widgets.diff_view import DiffView
from jdsl_nb.widgets.run_view import RunView

__all__ = ["CompileView", "DiffView", "RunView", "candidates_frame"]
