"""DOT -> inline SVG and HTML drawings: the notebook layer's names for :mod:`jdsl.drawing`.

``JDSL_NB_GRAPHVIZ`` (``RENDERER_ENV``) picks the renderer: ``auto`` (default), ``dot``,
``wasm`` or ``outline``. ``drawing_html`` never raises. The code lives in core
(``jdsl.drawing.svg`` and ``jdsl.drawing.outline``).
"""

from __future__ import annotations

from jdsl.drawing.outline import drawing_html, outline_html
from jdsl.drawing.svg import RENDERER_ENV, Rendered, available_renderers, render_svg

__all__ = [
    "RENDERER_ENV",
    "Rendered",
    "available_renderers",
    "drawing_html",
    "outline_html",
    "render_svg",
]
