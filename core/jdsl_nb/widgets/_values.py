"""Large values in widgets: previews in the page, the whole value fetched when asked for.

A ``ValueInspector`` holds the values a view truncated. Its dropdown lists them by label; picking
one sends that one value, whole, to the front end. Nothing large is sent before it is picked,
which keeps the state a view sends at first show small.
"""

from __future__ import annotations

import json
from typing import Any

import ipywidgets as w

from jdsl_nb._html import esc, preview

__all__ = ["ValueInspector", "truncated_entries"]

_NONE = "(pick a value to see it whole)"


class ValueInspector(w.VBox):
    """A "show full value" dropdown and the area where the picked value appears whole."""

    def __init__(self) -> None:
        self._values: list[Any] = []
        self.picker = w.Dropdown(
            options=[(_NONE, -1)],
            value=-1,
            description="show full value",
            style={"description_width": "initial"},
            layout=w.Layout(width="60%"),
        )
        self.full = w.HTML(value="")
        self.full.add_class("jdsl-full-value")
        self.picker.observe(self._show, names="value")
        super().__init__(children=[self.picker, self.full])

    def offer(self, entries: list[tuple[str, Any]]) -> None:
        """Replace the offered values with ``entries`` (label, value) whose preview is cut."""
        self._values = [value for _, value in entries]
        options = [(_NONE, -1)] + [(label, i) for i, (label, _) in enumerate(entries)]
        self.picker.options = options
        self.picker.value = -1
        self.full.value = ""

    def _show(self, change: dict[str, Any]) -> None:
        index = change.get("new", -1)
        if not isinstance(index, int) or not 0 <= index < len(self._values):
            self.full.value = ""
            return
        value = self._values[index]
        text = value if isinstance(value, str) else json.dumps(value, indent=2, default=str)
        self.full.value = f"<pre style='white-space:pre-wrap'>{esc(text)}</pre>"


def truncated_entries(
    prefix: str, values: dict[str, Any], limit: int = 120
) -> list[tuple[str, Any]]:
    """``(label, value)`` for the values in ``values`` whose preview is cut at ``limit``."""
    return [(f"{prefix}{key}", value) for key, value in values.items() if preview(value, limit)[1]]
