"""A widget view shown twice: a static HTML output for readers, then the live widget.

A front end picks one MIME type per output. nbconvert's HTML exporter prefers
``application/vnd.jupyter.widget-view+json`` over ``text/html`` whenever the widget's state is
saved in the notebook (nbclient saves it by default) and then draws the widget with the
ipywidgets HTML embedder from a CDN, which renders nothing offline. So a view is displayed as two
outputs (:meth:`StaticFallbackBox._ipython_display_`): a plain ``text/html`` + ``text/plain``
output that every reader shows (nbconvert, GitHub, VS Code), then the widget output with only
the widget view and a one-line ``text/plain``. Where the widget is live, a CSS rule it carries
(:data:`LIVE_CSS`, scoped to the cell's output area with ``:has``) hides the static output, so
JupyterLab and Notebook 7 show the widget alone.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

__all__ = [
    "FALLBACK_CLASS",
    "LIVE_CLASS",
    "LIVE_CSS",
    "ORPHAN_CSS",
    "WIDGET_VIEW",
    "StaticFallbackBox",
]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
FALLBACK_CLASS = "jdsl-widget-fallback"
LIVE_CLASS = "jdsl-live-view"
LIVE_CSS = (
    "<style>"
    f".jp-OutputArea:has(.{LIVE_CLASS}) .{FALLBACK_CLASS},"
    f".output:has(.{LIVE_CLASS}) .{FALLBACK_CLASS}{{display:none}}"
    "</style>"
)
"""Put in the live widget's HTML: hides the static output of the same cell once it renders."""

ORPHAN_CSS = (
    "<style>"
    f".jp-OutputArea:has(.{FALLBACK_CLASS}) .jupyter-widgets:not(.{LIVE_CLASS}):not(:has(*))"
    f":not(.{LIVE_CLASS} *):not(button),"
    f".output:has(.{FALLBACK_CLASS}) .jupyter-widgets:not(.{LIVE_CLASS}):not(:has(*))"
    f":not(.{LIVE_CLASS} *):not(button)"
    "{display:none}"
    "</style>"
)
"""Put in the static output: a notebook reopened without its kernel has no widget models, and
JupyterLab / Notebook 7 write "Error displaying widget: model not found" as the text of an
empty ``.jupyter-widgets`` node in the widget's output. In a cell with a static view that node
is hidden: the reader sees the static view alone. A live widget renders children into the
node, and nothing inside a live widget (a step button has no child element either) is hidden."""


class StaticFallbackBox(w.VBox):
    """A VBox view with a static form; subclasses give :meth:`static_text` / :meth:`static_html`.

    The live widget must include :data:`LIVE_CSS` in one of its HTML children.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_class(LIVE_CLASS)

    def static_text(self) -> str:
        """The view as readable text."""
        raise NotImplementedError

    def static_html(self) -> str:
        """The view as self-contained HTML (inline CSS, no script)."""
        raise NotImplementedError

    def static_bundle(self) -> dict[str, str]:
        """The static output: ``text/plain`` and ``text/html`` (marked as the fallback)."""
        html = f'<div class="{FALLBACK_CLASS}">{ORPHAN_CSS}{self.static_html()}</div>'
        return {"text/plain": self.static_text(), "text/html": html}

    def live_bundle(self) -> dict[str, Any]:
        """The widget output: the widget view and a one-line ``text/plain``, no ``text/html``."""
        bundle = dict(super()._repr_mimebundle_() or {})
        note = f"{self!r} (live view; the static view is the output above)"
        return {key: value for key, value in bundle.items() if key == WIDGET_VIEW} | {
            "text/plain": note
        }

    def _ipython_display_(self) -> None:
        """IPython's display protocol: the static output, then the live widget."""
        from IPython.display import display

        display(self.static_bundle(), raw=True)
        display(self.live_bundle(), raw=True)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """One bundle for front ends that bypass IPython's display: widget, HTML and text."""
        bundle = dict(super()._repr_mimebundle_(**kwargs) or {})
        bundle.update(self.static_bundle())
        return bundle
