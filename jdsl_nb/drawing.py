"""Graphviz DOT for behavior trees: the notebook layer's names for :mod:`jdsl.drawing.dot`.

The drawing code lives in core (``jdsl.drawing``) so the demo report draws without the
notebook layer; this module keeps the names notebooks and scripts import from ``jdsl_nb``.
"""

from __future__ import annotations

from jdsl.drawing.dot import NODE_STYLE, STATUS_COLOURS, node_statuses, tree_dot

__all__ = ["NODE_STYLE", "STATUS_COLOURS", "node_statuses", "tree_dot"]
