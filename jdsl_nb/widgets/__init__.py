"""ipywidgets 8 views: RunView (a run) and CompileView (a compile result)."""

from jdsl_nb.widgets.compile_view import CompileView, candidates_frame
from jdsl_nb.widgets.run_view import RunView

__all__ = ["CompileView", "RunView", "candidates_frame"]
