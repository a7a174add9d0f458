"""Drawings as self-contained HTML: inline SVG, else a nested-list outline plus the DOT source.

No scripts, no CDN: the page a drawing lands in (a notebook output, the demo report) stays
readable offline. :func:`drawing_html` never raises, so a display hook can always call it.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping
from typing import Any

from jdsl.drawing.dot import legend_entries, tree_dot
from jdsl.drawing.labels import node_label, unescape_quotes
from jdsl.drawing.svg import render_svg
from jdsl.ir.walk import as_ir, labelled_children, structural_ids

__all__ = ["MIN_LABEL_PX", "drawing_html", "legend_html", "legible_width", "outline_html"]

_NO_RENDERER = "no Graphviz renderer available (install graphviz's dot or jdsl[notebook])"


def outline_html(tree: Any, statuses: Mapping[str, str] | None = None) -> str:
    """A nested-list outline of a tree; every item carries its node id (``data-node-id``).

    Raises:
        TypeError: when ``tree`` holds no tree.
    """
    ir = as_ir(tree)
    ids = structural_ids(ir)

    def item(node: Mapping[str, Any], edge: str) -> str:
        node_id = ids[id(node)]
        status = (statuses or {}).get(node_id, "not_run" if statuses else "")
        text = status.replace("_", " ")
        badge = f' <span class="jdsl-badge jdsl-status-{status}">{text}</span>' if status else ""
        prefix = f"<em>{html.escape(edge)}:</em> " if edge else ""
        kids = "".join(item(c, e) for e, c in labelled_children(node))
        sub = f"<ul>{kids}</ul>" if kids else ""
        return (
            f'<li data-node-id="{html.escape(node_id)}" title="{html.escape(node_id)}">'
            f"{prefix}<code>{html.escape(unescape_quotes(node_label(node)))}</code>{badge}{sub}</li>"
        )

    return f'<ul class="jdsl-outline">{item(ir, "")}</ul>'


def legend_html(statuses: Mapping[str, str]) -> str:
    """The status legend as HTML (a swatch per :func:`jdsl.drawing.legend_entries` entry)."""
    swatches = "".join(
        f'<span class="jdsl-legend-{status}" style="background:{fill};color:{ink};'
        f"border:1px {'dashed' if status == 'not_run' else 'solid'} #777;padding:0 4px;"
        f'margin-left:4px;border-radius:2px">{html.escape(text)}</span>'
        for status, fill, ink, text in legend_entries(statuses)
    )
    return f'<div class="jdsl-legend" style="font-size:11px;margin:2px 0">status:{swatches}</div>'


MIN_LABEL_PX = 11
"""The smallest rendered text of a drawing, in CSS pixels."""


def legible_width(svg: str) -> int:
    """The CSS width (px) at which the smallest ``font-size`` of ``svg`` renders as
    :data:`MIN_LABEL_PX` pixels: the viewBox width scaled by ``MIN_LABEL_PX / font-size`` (0 when
    the SVG has no viewBox or no text).

    >>> legible_width('<svg viewBox="0 0 1000 300"><text font-size="11.00">a</text></svg>')
    1000
    """
    box = re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) [\d.]+"', svg)
    sizes = [float(size) for size in re.findall(r'font-size="([\d.]+)"', svg)]
    if not box or not sizes or min(sizes) <= 0:
        return 0
    return math.ceil(float(box.group(1)) * MIN_LABEL_PX / min(sizes))


def drawing_html(tree: Any, statuses: Mapping[str, str] | None = None) -> str:
    """Inline SVG of a tree, or its outline plus DOT source when no renderer works. Never raises.

    The SVG scales down to the width of the page (``max-width:100%``), but never so far that
    its smallest text is under :data:`MIN_LABEL_PX` pixels (``min-width``, :func:`legible_width`):
    a wider tree scrolls sideways inside its own box. With ``statuses`` a legend follows the
    drawing, whichever renderer drew it.

    Returns:
        ``<div class="jdsl-drawing" data-renderer="dot|wasm|outline">...</div>``; the outline
        form lists what failed and holds the DOT source when it could be made.
    """
    legend = legend_html(statuses) if statuses else ""
    try:
        source = tree_dot(tree, statuses)
    except Exception as exc:  # noqa: BLE001 - a display path never raises
        return _fallback(tree, statuses, "", [f"{type(exc).__name__}: {exc}"], legend)
    rendered = render_svg(source)
    if rendered.svg is not None:
        style = f"max-width:100%;min-width:{legible_width(rendered.svg)}px;height:auto"
        svg = rendered.svg.replace("<svg ", f'<svg style="{style}" ', 1)
        return (
            f'<div class="jdsl-drawing" data-renderer="{rendered.renderer}" '
            f'style="overflow-x:auto">{svg}{legend}</div>'
        )
    return _fallback(tree, statuses, source, list(rendered.problems), legend)


def _fallback(
    tree: Any, statuses: Mapping[str, str] | None, source: str, problems: list[str], legend: str
) -> str:
    try:
        outline = outline_html(tree, statuses)
    except Exception as exc:  # noqa: BLE001
        outline = f"<pre>{html.escape(repr(tree)[:2000])}</pre>"
        problems.append(f"outline: {exc}")
    details = "".join(f"<li>{html.escape(p)}</li>" for p in problems)
    dot = f"<details><summary>DOT source</summary><pre>{html.escape(source)}</pre></details>"
    return (
        f'<div class="jdsl-drawing" data-renderer="outline">{outline}{legend}'
        f'<div class="jdsl-note">{_NO_RENDERER}</div><ul class="jdsl-note">{details}</ul>'
        f"{dot if source else ''}</div>"
    )
