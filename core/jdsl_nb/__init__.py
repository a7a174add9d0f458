"""jdsl_nb: the notebook layer of jdsl (docs/design.md §8).

``%load_ext jdsl_nb`` registers the ``%%behavior`` / ``%behavior`` magics and display hooks for
trees, runs, traces, compile results and packages. The widgets (``RunView``, ``CompileView``),
the Graphviz drawing (``tree_dot``, ``drawing_html``) and the static views load on first use, so
``import jdsl_nb`` stays fast and pulls in neither ipywidgets, graphviz nor pandas.

Example:
    >>> import jdsl_nb
    >>> jdsl_nb.tree_dot({"kind": "root", "name": "demo", "child": {"kind": "sequence"}})[:14]
    'digraph demo {'
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from jdsl.lazy import lazy_getattr

__all__ = [
    "CompileView",
    "RunData",
    "RunView",
    "compile_html",
    "drawing_html",
    "html_view",
    "load_ipython_extension",
    "node_statuses",
    "provenance",
    "render_svg",
    "run_html",
    "text_view",
    "tree_dot",
    "tree_html",
    "unload_ipython_extension",
]

_LAZY = MappingProxyType(
    {
        "CompileView": "jdsl_nb.widgets",
        "RunView": "jdsl_nb.widgets",
        "RunData": "jdsl_nb.rundata",
        "compile_html": "jdsl_nb.compile_views",
        "drawing_html": "jdsl.drawing",
        "render_svg": "jdsl.drawing",
        "html_view": "jdsl_nb.hooks",
        "text_view": "jdsl_nb.hooks",
        "node_statuses": "jdsl.drawing",
        "tree_dot": "jdsl.drawing",
        "provenance": "jdsl_nb.provenance",
        "run_html": "jdsl_nb.views",
        "tree_html": "jdsl_nb.views",
    }
)
"""Each name's module, imported on first use (ipywidgets, graphviz and pandas stay unloaded)."""

__getattr__ = lazy_getattr(__name__, _LAZY)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext jdsl_nb``: register the magics and the display hooks."""
    from jdsl_nb import hooks
    from jdsl_nb.magics import BehaviorMagics

    ipython.register_magics(BehaviorMagics)
    hooks.register(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext jdsl_nb``: remove the display hooks (IPython keeps registered magics)."""
    from jdsl_nb import hooks

    hooks.unregister(ipython)
