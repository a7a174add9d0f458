"""DiffView: a recorded episode against its replay by a package, step by step (ipywidgets 8).

The static form is :func:`jdsl.compiler.stepdiff.diff_html` (nbconvert, GitHub, VS Code, a
notebook reopened without its kernel). The live view adds a step slider: the current step's row
is outlined and its two calls are shown in full below, with buttons to jump to the first
divergence and to the fallback's hand-over.
"""

from __future__ import annotations

import html
import json
import secrets

import ipywidgets as w
from jdsl.compiler.stepdiff import StepDiff, diff_html, diff_text

from jdsl_nb.widgets._keys import StepKeys
from jdsl_nb.widgets._static import LIVE_CSS, StaticFallbackBox

__all__ = ["DiffView"]


class DiffView(StaticFallbackBox):
    """The teacher's calls and the package's side by side, aligned by step.

    Args:
        diff: a :class:`~jdsl.compiler.stepdiff.StepDiff` (:func:`jdsl.compiler.stepdiff.step_diff`).

    Example:
        >>> DiffView(step_diff(result.package.ir, result.normalized[0]))  # doctest: +SKIP
    """

    def __init__(self, diff: StepDiff) -> None:
        self.diff = diff
        self._scope = f"jdsl-diff-{secrets.token_hex(4)}"
        last = max(len(diff.steps) - 1, 0)
        self.slider = w.IntSlider(value=diff.first if diff.first is not None else 0, min=0,
                                  max=last, description="step", continuous_update=True)  # fmt: skip
        self.slider.add_class("jdsl-step-slider")
        self.table = w.HTML(value=LIVE_CSS + diff_html(diff))
        self.table.add_class(self._scope)
        self.cursor = w.HTML()
        self.detail = w.HTML()
        self.to_first = w.Button(description="first divergence", disabled=diff.first is None)
        self.to_fallback = w.Button(description="fallback hand-over",
                                    disabled=diff.fallback is None)  # fmt: skip
        self.to_first.on_click(lambda _: self._go(diff.first))
        self.to_fallback.on_click(lambda _: self._go(diff.fallback[0] if diff.fallback else None))
        self.slider.observe(lambda _: self._refresh(), names="value")
        self._refresh()
        self.step_keys = StepKeys(self.slider)
        super().__init__(children=[self.cursor, w.HBox([self.slider, self.to_first,
                                                        self.to_fallback, self.step_keys]),
                                   self.table, self.detail])  # fmt: skip

    def _go(self, index: int | None) -> None:
        if index is not None and self.diff.steps:
            self.slider.value = min(index, self.slider.max)

    def _refresh(self) -> None:
        step = self.slider.value
        self.cursor.value = (f"<style>.{self._scope} tr[data-step='{step}'] td"
                             "{outline:2px solid #1c71d8}</style>")  # fmt: skip
        if not self.diff.steps:
            self.detail.value = "<i>no calls on either side</i>"
            return
        row = self.diff.steps[step]
        sides = []
        for title, side in (("teacher (recorded)", row.teacher), ("package (replay)", row.package)):
            body = ("<i>no call</i>" if side is None else
                    f"<b>{html.escape(side.tool)}</b> at <code>{html.escape(side.node_id or '')}"
                    f"</code><pre>{html.escape(json.dumps(side.arguments, indent=1, default=str))}"
                    "</pre>")  # fmt: skip
            sides.append(
                f"<td style='vertical-align:top;padding-right:16px'><div>{title}</div>{body}</td>"
            )
        self.detail.value = (
            f"<div>step {step}: <b>{html.escape(row.state)}</b></div>"
            f"<table><tr>{''.join(sides)}</tr></table>"
        )

    def static_text(self) -> str:
        return diff_text(self.diff)

    def static_html(self) -> str:
        return diff_html(self.diff)

    def __repr__(self) -> str:
        return f"DiffView(episode={self.diff.episode_id!r}, steps={len(self.diff.steps)})"
