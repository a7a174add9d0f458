"""IPython display hooks for core objects: ``text/html`` and ``text/plain`` per type.

``register(ip)`` adds a formatter for each core class (trees, RunContext, Trace and episodes,
CompileResult, held-out reports, packages, a static check report) by its module and name, so neither jdsl nor the views are imported
until an object is shown (``%load_ext jdsl_nb`` stays quick); ``unregister(ip)`` removes them.
A hook never raises: a failing view becomes a short note with the error and the object's repr.
"""

from __future__ import annotations

import html
import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["HOOKED", "display_live", "html_view", "register", "text_view", "unregister"]

View = Callable[[Any], str]


def _views() -> Any:
    from jdsl_nb import views

    return views


def _compile_views() -> Any:
    from jdsl_nb import compile_views

    return compile_views


def _holdout_views() -> Any:
    from jdsl_nb import holdout_views

    return holdout_views


def _run(obj: Any) -> Any:
    from jdsl_nb.rundata import RunData

    return RunData.build(obj)


# (defining module, class name, html view, text view); the first class in an MRO wins.
HOOKED: tuple[tuple[str, str, View, View], ...] = (
    ("jdsl.tree.base", "Node", lambda o: _views().tree_html(o), lambda o: _views().tree_text(o)),
    ("jdsl.tree.context", "RunContext", lambda o: _views().run_html(_run(o)),
     lambda o: _views().run_text(_run(o))),
    ("jdsl.trace.collection", "Trace", lambda o: _views().trace_html(o),
     lambda o: _views().trace_text(o)),
    ("jdsl.trace.episodes", "Episode", lambda o: _views().run_html(_run(o)),
     lambda o: _views().run_text(_run(o))),
    ("jdsl.compiler.pipeline", "CompileResult", lambda o: _compile_views().compile_html(o),
     lambda o: _compile_views().compile_text(o)),
    ("jdsl.compiler.holdout", "HeldOutReport", lambda o: _holdout_views().holdout_html(o),
     lambda o: _holdout_views().holdout_text(o)),
    ("jdsl.package.bundle", "BehaviorPackage", lambda o: _compile_views().package_html(o),
     lambda o: _compile_views().package_text(o)),
    ("jdsl.tree.check", "CheckReport", lambda o: _views().check_html(o), str),
)  # fmt: skip


def _safe_html(view: View) -> Callable[[Any], str]:
    def show(obj: Any) -> str:
        try:
            return view(obj)
        except Exception as exc:  # noqa: BLE001 - a display hook never raises
            note = html.escape(f"jdsl_nb could not draw this {type(obj).__name__}: {exc!r}")
            return f"<div class='jdsl-note'>{note}</div><pre>{html.escape(repr(obj)[:4000])}</pre>"

    return show


def _safe_text(view: View) -> Callable[[Any, Any, bool], None]:
    def show(obj: Any, p: Any, cycle: bool) -> None:
        try:
            text = view(obj)
        except Exception as exc:  # noqa: BLE001 - a display hook never raises
            text = f"<{type(obj).__name__}; jdsl_nb text view failed: {exc!r}>"
        p.text(text)

    return show


def html_view(obj: Any) -> str:
    """The static HTML view of any hooked object (see ``HOOKED``); never raises."""
    for module, name, make_html, _ in HOOKED:
        cls = _find_class(module, name)
        if cls is not None and isinstance(obj, cls):
            return _safe_html(make_html)(obj)
    return _safe_html(_views().tree_html)(obj)


def text_view(obj: Any) -> str:
    """The text view of any hooked object; never raises."""
    for module, name, _, make_text in HOOKED:
        cls = _find_class(module, name)
        if cls is not None and isinstance(obj, cls):
            try:
                return make_text(obj)
            except Exception as exc:  # noqa: BLE001
                return f"<{type(obj).__name__}: {exc!r}>"
    try:
        return _views().tree_text(obj)
    except Exception:  # noqa: BLE001 - not a tree either: the plain repr
        return repr(obj)


def _find_class(module: str, name: str) -> type | None:
    try:
        found = getattr(importlib.import_module(module), name, None)
    except Exception:  # noqa: BLE001 - a core package that is missing or broken is skipped
        return None
    return found if isinstance(found, type) else None


_LIVE = ("jdsl.tree.context", "RunContext")
"""Shown live (a RunView with the step slider) when traced: ``ctx`` alone in a cell, in Lab or
Notebook 7, steps like ``%%behavior --run`` does; untraced, the static view."""


def display_live(obj: Any) -> None:
    """IPython's ``_ipython_display_`` hook for a RunContext: the live RunView for a traced
    run (its static form is in the same output for nbconvert), else the static view."""
    from IPython.display import display

    if getattr(obj, "tracing", False):
        try:
            from jdsl_nb.widgets import RunView

            view = RunView(obj)
        except Exception:  # noqa: BLE001 - no ipywidgets, or a view that fails: static below
            view = None
        if view is not None:
            display(view)
            return
    display({"text/html": html_view(obj), "text/plain": text_view(obj)}, raw=True)


def register(ip: Any) -> list[str]:
    """Add the display hooks to an IPython shell, by class name (nothing is imported).

    Returns:
        The hooked classes as ``module.name``.
    """
    formatters = ip.display_formatter.formatters
    hooked = []
    for module, name, make_html, make_text in HOOKED:
        formatters["text/html"].for_type_by_name(module, name, _safe_html(make_html))
        formatters["text/plain"].for_type_by_name(module, name, _safe_text(make_text))
        hooked.append(f"{module}.{name}")
    ip.display_formatter.ipython_display_formatter.for_type_by_name(*_LIVE, display_live)
    return hooked


def unregister(ip: Any) -> None:
    """Remove the display hooks ``register`` added."""
    formatters = ip.display_formatter.formatters
    for module, name, _, _ in HOOKED:
        for mime in ("text/html", "text/plain"):  # deferred by name, and once used by type
            while formatters[mime].pop(f"{module}.{name}", None) is not None:
                pass
    live = ip.display_formatter.ipython_display_formatter
    while live.pop(".".join(_LIVE), None) is not None:
        pass
