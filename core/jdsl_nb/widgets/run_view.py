"""RunView: one run, live in the notebook (ipywidgets 8), with a step-through debugger.

The step slider (and the ←/→ keys anywhere in the view, :mod:`jdsl_nb.widgets._keys`) drives the whole view: the tree drawing
coloured as of step N (entered, running, success, failure so far; the current node outlined in
blue), a cursor on the timeline by node, the events around N, the event at N in full (prompt,
raw model output, tool arguments and result) and the blackboard as of N. Buttons jump to the
next or previous model call, tool call, write or failure. The drawing and the timeline are laid
out once; a step changes only a small style sheet scoped to this view
(:func:`jdsl_nb.stepping.step_css`). Sections fold, and each pane scrolls inside a bounded
height, so the view starts about one screen tall. Only one step's detail is in the page at a
time and tables are capped, so a 10,000-event run sends well under 1 MB when it first shows.
"""

from __future__ import annotations

import secrets
from typing import Any

import ipywidgets as w
from jdsl.drawing import drawing_html
from jdsl.ir.walk import structural_ids

from jdsl_nb import views
from jdsl_nb._html import CSS, esc, preview
from jdsl_nb.rundata import RunData
from jdsl_nb.stepping import JUMP_KINDS, StepIndex, step_css
from jdsl_nb.timeline import blackboard_at, event_node, event_summary
from jdsl_nb.widgets._keys import StepKeys
from jdsl_nb.widgets._static import LIVE_CSS, StaticFallbackBox
from jdsl_nb.widgets._values import ValueInspector, truncated_entries

__all__ = ["RunView"]

_ALL_KEYS = "(all keys)"
_WINDOW = 6


def _html(value: str, cls: str) -> w.HTML:
    widget = w.HTML(value=value)
    widget.add_class(cls)
    return widget


def _view(body: str) -> str:
    return f"<div class='jdsl-view'>{body}</div>"


class Section(w.VBox):
    """A titled section that folds: a toggle button over its children."""

    def __init__(self, title: str, children: list[w.Widget], *, open: bool = True) -> None:
        self.title = title
        self.toggle = w.ToggleButton(value=open, layout=w.Layout(width="auto"))
        self.toggle.add_class("jdsl-section-toggle")
        self.body = w.VBox(children)
        self.toggle.observe(lambda _: self._refresh(), names="value")
        self._refresh()
        super().__init__(children=[self.toggle, self.body])
        self.add_class("jdsl-section")

    def _refresh(self) -> None:
        self.toggle.description = ("▾ " if self.toggle.value else "▸ ") + self.title
        self.body.layout.display = None if self.toggle.value else "none"


class RunView(StaticFallbackBox):
    """A run's tree, timeline and blackboard provenance, stepped through event by event.

    Displayed as two outputs: the static run view (nbconvert, GitHub; the final state), then
    the live widget, which hides the static one where it renders (``jdsl_nb.widgets._static``).

    Args:
        source: a RunContext, a Trace, an episode or a list of event dicts.
        tree: the tree that ran, when the events do not carry its IR.
        error: an exception raised by the run (or its text), shown instead of a traceback.
        notes: lines to show under the header (the magics say how ``--input`` was read).

    Example:
        >>> ctx = root.run(trace_sink=sink, raise_errors=False, email="a@b.c")  # doctest: +SKIP
        >>> view = RunView(ctx)  # doctest: +SKIP
        >>> view.slider.value = 5  # doctest: +SKIP
        (the tree, timeline cursor and panes show step 5)
    """

    def __init__(
        self, source: Any, *, tree: Any = None, error: Any = None, notes: list[str] | None = None
    ) -> None:
        self.run = RunData.build(source, tree=tree, error=error, notes=notes)
        self.index = StepIndex.build(self.run.events)
        self.scope = f"jdsl-run-{secrets.token_hex(4)}"
        self._node_ids = list(structural_ids(self.run.ir).values()) if self.run.ir else []
        last = max(len(self.run.events) - 1, 0)
        self.slider = w.IntSlider(
            value=last,
            min=0,
            max=last,
            description="step",
            continuous_update=True,
            layout=w.Layout(width="60%"),
        )
        self.slider.add_class("jdsl-step-slider")
        self.style = _html("", "jdsl-step-style")
        self.now = _html("", "jdsl-step-now")
        self.events = _html("", "jdsl-step-events")
        self.payload = _html("", "jdsl-step-payload")
        self.blackboard = _html("", "jdsl-step-blackboard")
        self.inspector = ValueInspector()
        self.tree = _html(_view(self._drawing()), "jdsl-run-tree")
        self.timeline = _html(
            _view(views.gantt_html(self.run.events, cursor=True)), "jdsl-run-timeline"
        )
        self.slider.observe(lambda _: self._show_step(), names="value")
        super().__init__(children=[self._header(), self.style, self._controls(), *self._sections()])
        self.add_class("jdsl-run-view")
        self.add_class(self.scope)
        self._show_provenance()
        self._show_step()

    # -- building --------------------------------------------------------------------------
    def _header(self) -> w.HTML:
        return _html(CSS + LIVE_CSS + _view(views.run_header(self.run)), "jdsl-run-header")

    def _drawing(self) -> str:
        if not self.run.ir:
            return "<i>(no tree in the trace)</i>"
        return drawing_html(self.run.ir, self.run.statuses)

    def _controls(self) -> w.VBox:
        moves = [
            self._button(label, lambda step, d=delta: step + d, tip)
            for label, delta, tip in (
                ("«", -(10**9), "first step"),
                ("‹", -1, "previous step (←)"),
                ("›", 1, "next step (→)"),
                ("»", 10**9, "last step"),
            )
        ]
        self.jump_kind = w.Dropdown(
            options=list(JUMP_KINDS),
            value="model call",
            description="jump to",
            layout=w.Layout(width="220px"),
        )
        jumps = [
            self._button(label, lambda step, d=direction: self._jump(step, d), tip)
            for label, direction, tip in (
                ("◀ previous", -1, "previous of the kind"),
                ("next ▶", 1, "next of the kind"),
            )
        ]
        self.step_keys = StepKeys(self.slider)
        return w.VBox(
            [
                w.HBox([self.slider, *moves, self.step_keys]),
                w.HBox([self.jump_kind, *jumps]),
                self.now,
            ]
        )

    def _button(self, label: str, target: Any, tooltip: str) -> w.Button:
        button = w.Button(
            description=label, tooltip=tooltip, layout=w.Layout(width="auto", min_width="36px")
        )
        button.add_class("jdsl-step-button")

        def move(_: Any) -> None:
            step = target(int(self.slider.value))
            if step is not None:
                self.slider.value = min(max(step, 0), self.slider.max)

        button.on_click(move)
        return button

    def _jump(self, step: int, direction: int) -> int | None:
        found = self.index.jump(str(self.jump_kind.value), step, direction)
        if found is None:
            where = "after" if direction > 0 else "before"
            self.now.value = _view(
                f"<span class='jdsl-note'>no {esc(self.jump_kind.value)} {where} step {step}</span>"
            )
        return found

    def _sections(self) -> list[w.Widget]:
        keys = sorted({r.key for r in self.run.records})
        self.key_picker = w.Dropdown(options=[_ALL_KEYS, *keys], value=_ALL_KEYS, description="key")
        self.provenance = _html("", "jdsl-run-provenance")
        self.key_picker.observe(lambda _: self._show_provenance(), names="value")
        self.tree.add_class("jdsl-pane-tall")
        for pane in (self.timeline, self.events, self.payload, self.blackboard, self.provenance):
            pane.add_class("jdsl-pane")
        sections = [
            Section("tree", [self.tree]),
            Section("timeline by node", [self.timeline]),
            Section("the event at this step", [self.payload, self.inspector]),
            Section("the blackboard as of this step", [self.blackboard]),
            Section("events around this step", [self.events], open=False),
            Section("blackboard provenance", [self.key_picker, self.provenance], open=False),
        ]
        if self.run.choices:
            table = views.choices_html(self.run.choices, full_limit=0)
            sections.append(
                Section(
                    "tool calls chosen by the model",
                    [_html(_view(table), "jdsl-run-choices")],
                    open=False,
                )
            )
        return sections

    # -- showing ---------------------------------------------------------------------------
    def _show_provenance(self) -> None:
        key = self.key_picker.value
        records = (
            self.run.records if key == _ALL_KEYS else [r for r in self.run.records if r.key == key]
        )
        limit = views.MAX_ROWS if key == _ALL_KEYS else 1000
        self.provenance.value = _view(views.provenance_html(records, limit=limit, full_limit=0))
        if key != _ALL_KEYS:
            self.inspector.offer(
                truncated_entries(f"{key}@", {f"step {r.step}": r.value for r in records[-50:]})
            )

    def _show_step(self) -> None:
        step = int(self.slider.value)
        events = self.run.events
        statuses, current = self.index.state(step) if events else ({}, "")
        self.style.value = step_css(
            self.scope, self._node_ids, statuses, current, step, len(events)
        )
        event = events[step] if events else {}
        node = event_node(event) or current
        self.now.value = _view(
            f"<b>step {step} of {max(len(events) - 1, 0)}</b> · <code>{esc(event.get('kind', ''))}"
            f"</code> · node <code>{esc(node)}</code> · "
            f"{esc(preview(event_summary(event), 160)[0]) if event else ''}"
        )
        start = max(step - _WINDOW, 0)
        self.events.value = _view(
            views.events_html(events, start, step + _WINDOW + 1, current=step)
        )
        self.payload.value = _view(
            f"<b>event at step {step}</b>{views.payload_html(event, full_limit=0) if event else ''}"
        )
        state = blackboard_at(self.run.records, step)
        self.blackboard.value = _view(
            f"<b>blackboard as of step {step}</b>{views.blackboard_html(state, full_limit=0)}"
        )
        offered = truncated_entries("event.", dict(event.get("payload") or {}))
        offered += truncated_entries("blackboard.", {k: r.value for k, r in sorted(state.items())})
        self.inspector.offer(offered)

    def static_text(self) -> str:
        return views.run_text(self.run)

    def static_html(self) -> str:
        return views.run_html(self.run)

    def __repr__(self) -> str:
        return f"RunView(status={self.run.status!r}, events={len(self.run.events)})"
