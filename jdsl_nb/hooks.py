"""IPython display hooks for core objects: ``text/html`` and ``text/plain`` per type.

``register(ip)`` adds a formatter for every core class that is importable (trees, RunContext,
Trace and episodes, CompileResult, packages); ``unregister(ip)`` removes them. A hook never
raises: a failing view becomes a short note with the error and the object's repr.
"""

from __future__ import annotations

import html
import importlib
from collections.abc import Callable
from typing import Any

from jdsl_nb import compile_views, holdout_views, views
from jdsl_nb.rundata import RunData

__all__ = ["HOOKED", "html_view", "register", "text_view", "unregister"]

View = Callable[[Any], str]

# (module, class name, html view, text view); the first class found in a module wins its MRO.
HOOKED: tuple[tuple[str, str, View, View], ...] = (
    ("jdsl.tree", "Node", lambda o: views.tree_html(o), views.tree_text),
    ("jdsl.tree", "RunContext", lambda o: views.run_html(RunData.build(o)),
     lambda o: views.run_text(RunData.build(o))),
    ("jdsl.trace", "Trace", views.trace_html, views.trace_text),
    ("jdsl.trace", "Episode", lambda o: views.run_html(RunData.build(o)),
     lambda o: views.run_text(RunData.build(o))),
    ("jdsl.compiler", "CompileResult", compile_views.compile_html, compile_views.compile_text),
    ("jdsl.compiler", "HeldOutReport", holdout_views.holdout_html, holdout_views.holdout_text),
    ("jdsl.package", "BehaviorPackage", compile_views.package_html, compile_views.package_text),
    ("jdsl.package", "LoadedPackage", compile_views.package_html, compile_views.package_text),
)


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
    return _safe_html(views.tree_html)(obj)


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
        return views.tree_text(obj)
    except Exception:  # noqa: BLE001 - not a tree either: the plain repr
        return repr(obj)


def _find_class(module: str, name: str) -> type | None:
    try:
        found = getattr(importlib.import_module(module), name, None)
    except Exception:  # noqa: BLE001 - a core package that is missing or broken is skipped
        return None
    return found if isinstance(found, type) else None


def register(ip: Any) -> list[type]:
    """Add the display hooks to an IPython shell; returns the classes hooked."""
    formatters = ip.display_formatter.formatters
    hooked = []
    for module, name, make_html, make_text in HOOKED:
        cls = _find_class(module, name)
        if cls is None:
            continue
        formatters["text/html"].for_type(cls, _safe_html(make_html))
        formatters["text/plain"].for_type(cls, _safe_text(make_text))
        hooked.append(cls)
    return hooked


def unregister(ip: Any) -> None:
    """Remove the display hooks ``register`` added."""
    formatters = ip.display_formatter.formatters
    for module, name, _, _ in HOOKED:
        cls = _find_class(module, name)
        if cls is None:
            continue
        for mime in ("text/html", "text/plain"):
            try:
                formatters[mime].pop(cls)
            except KeyError:
                pass
