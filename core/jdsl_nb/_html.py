"""Small pieces of self-contained HTML: inline CSS, tables, truncated values.

Nothing here loads anything from outside the page: no CDN, no script, no iframe, so the same
HTML reads the same in JupyterLab, VS Code, nbconvert and GitHub.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = [
    "CSS",
    "PREVIEW_CHARS",
    "STATIC_FULL_CHARS",
    "esc",
    "page",
    "preview",
    "table",
    "value_html",
    "value_text",
]

PREVIEW_CHARS = 120
STATIC_FULL_CHARS = 20_000

CSS = """<style>
.jdsl-view{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:13px}
.jdsl-view h4{margin:10px 0 4px 0;font-size:13px}
.jdsl-view table.jdsl-table{border-collapse:collapse;margin:2px 0}
.jdsl-view table.jdsl-table td,.jdsl-view table.jdsl-table th{border:1px solid #ddd;
 padding:2px 6px;text-align:left;vertical-align:top}
.jdsl-view table.jdsl-table th{background:#f6f6f6}
.jdsl-view code,.jdsl-view pre{font-family:Menlo,Consolas,monospace;font-size:12px}
.jdsl-view pre{white-space:pre-wrap;margin:0;max-height:24em;overflow:auto}
.jdsl-note{color:#777;font-size:12px}
.jdsl-badge{border-radius:3px;padding:0 4px;font-size:11px;background:#eee}
.jdsl-status-success{background:#9be39b}.jdsl-status-failure{background:#f4a3a3}
.jdsl-status-error{background:#f7b267}.jdsl-status-running{background:#fff59d}
.jdsl-gantt{position:relative;height:14px;background:#fafafa;min-width:300px}
.jdsl-gantt span{position:absolute;top:1px;height:12px;background:#9bb8e3}
.jdsl-gantt span.jdsl-status-success{background:#9be39b}
.jdsl-gantt span.jdsl-status-failure{background:#f4a3a3}
.jdsl-gantt span.jdsl-status-error{background:#f7b267}
.jdsl-side{display:flex;gap:16px;flex-wrap:wrap;align-items:flex-start}
.jdsl-side>div{flex:0 1 auto;max-width:100%;overflow-x:auto}
.jdsl-drawing{max-width:100%}.jdsl-drawing svg{max-width:100%;height:auto}
.jdsl-cursor{display:none;position:absolute;top:-2px;bottom:-2px;width:2px;background:#1565c0}
.jdsl-pane{max-height:260px;overflow:auto}.jdsl-pane-tall{max-height:540px;overflow:auto}
.jdsl-view details.jdsl-section>summary{cursor:pointer;margin:8px 0 4px 0}
.jdsl-status-not_taken{background:#ececec}.jdsl-status-not_run{background:#fff;border:1px dashed #999}
</style>"""


def esc(value: Any) -> str:
    """HTML-escape ``str(value)``."""
    return html.escape(str(value), quote=True)


def value_text(value: Any) -> str:
    """A value as compact text: strings as they are, everything else as sorted JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def preview(value: Any, limit: int = PREVIEW_CHARS) -> tuple[str, bool]:
    """``(text, truncated)``: the value's text on one line, cut to ``limit`` characters."""
    text = " ".join(value_text(value).split())
    if len(text) <= limit:
        return text, False
    return text[: limit - 1] + "…", True


def value_html(value: Any, limit: int = PREVIEW_CHARS, full_limit: int = STATIC_FULL_CHARS) -> str:
    """A value's preview; when cut, a ``<details>`` holding up to ``full_limit`` characters.

    ``full_limit=0`` gives the preview alone (widgets fetch the whole value on demand).
    """
    text, truncated = preview(value, limit)
    if not truncated or full_limit <= 0:
        return f"<code>{esc(text)}</code>"
    full = value if isinstance(value, str) else json.dumps(value, indent=2, default=str)
    full_text = str(full)
    extra = ""
    if len(full_text) > full_limit:
        extra = f"\n… {len(full_text) - full_limit} more characters (open the widget view)"
        full_text = full_text[:full_limit]
    return (
        f"<details><summary><code>{esc(text)}</code></summary>"
        f"<pre>{esc(full_text + extra)}</pre></details>"
    )


def table(
    headers: Sequence[str], rows: Iterable[Sequence[str]], *, cls: str = "", raw: bool = True
) -> str:
    """An HTML table; cells are HTML already when ``raw`` else escaped text."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{c if raw else esc(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f'<table class="jdsl-table {cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def page(title: str, body: str, *, cls: str = "") -> str:
    """One view: the inline CSS, a heading and the body, in a ``div.jdsl-view``."""
    return f'{CSS}<div class="jdsl-view {cls}"><h4>{esc(title)}</h4>{body}</div>'
