"""RunView: one run, live in the notebook (ipywidgets 8).

The tree coloured by status; the blackboard with provenance per key (every write, its writer
node, the previous value, the later reads and tool arguments that consumed it); the tool calls
whose arguments a react leaf's model chose; the timeline by node; a step slider that shows the
event at that step (prompt, raw model output, tool arguments and result) and the blackboard as
of that step. Only one step's detail is in the page at a time, and
tables are capped, so a 10,000-event run sends well under 1 MB when it first shows.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w
from jdsl.drawing import drawing_html

from jdsl_nb import views
from jdsl_nb._html import CSS, esc
from jdsl_nb.rundata import RunData
from jdsl_nb.timeline import blackboard_at
from jdsl_nb.widgets._static import LIVE_CSS, StaticFallbackBox
from jdsl_nb.widgets._values import ValueInspector, truncated_entries

__all__ = ["RunView"]

_ALL_KEYS = "(all keys)"
_WINDOW = 10


def _html(value: str, cls: str) -> w.HTML:
    widget = w.HTML(value=value)
    widget.add_class(cls)
    return widget


def _section(title: str) -> w.HTML:
    return w.HTML(value=f"<b>{esc(title)}</b>")


class RunView(StaticFallbackBox):
    """A run's tree, blackboard provenance and step-by-step timeline.

    Displayed as two outputs: the static run view (nbconvert, GitHub), then the live widget,
    which hides the static one where it renders (see ``jdsl_nb.widgets._static``).

    Args:
        source: a RunContext, a Trace, an episode or a list of event dicts.
        tree: the tree that ran, when the events do not carry its IR.
        error: an exception raised by the run, shown instead of a traceback.

    Example:
        >>> ctx = root.run(trace_sink=sink, raise_errors=False, email="a@b.c")  # doctest: +SKIP
        >>> RunView(ctx)  # doctest: +SKIP
    """

    def __init__(self, source: Any, *, tree: Any = None, error: Any = None) -> None:
        self.run = RunData.build(source, tree=tree, error=error)
        run = self.run
        last = max(len(run.events) - 1, 0)
        header = _html(CSS + LIVE_CSS + f"<div class='jdsl-view'>{views.run_header(run)}</div>", "jdsl-run-header")
        drawing = drawing_html(run.ir, run.statuses) if run.ir else "<i>(no tree in the trace)</i>"
        self.tree = _html(f"<div class='jdsl-view'>{drawing}</div>", "jdsl-run-tree")
        keys = sorted({r.key for r in run.records})
        self.key_picker = w.Dropdown(options=[_ALL_KEYS, *keys], value=_ALL_KEYS, description="key")
        self.provenance = _html("", "jdsl-run-provenance")
        self.inspector = ValueInspector()
        self.key_picker.observe(lambda _: self._show_provenance(), names="value")
        timeline = _html(f"<div class='jdsl-view'>{views.gantt_html(run.events)}</div>", "jdsl-run-timeline")
        chosen: list[w.Widget] = []
        if run.choices:
            table = views.choices_html(run.choices, full_limit=0)
            chosen = [_section("tool calls chosen by the model"),
                      _html(f"<div class='jdsl-view'>{table}</div>", "jdsl-run-choices")]
        self.slider = w.IntSlider(value=last, min=0, max=last, description="step",
                                  continuous_update=False, layout=w.Layout(width="70%"))
        self.slider.add_class("jdsl-step-slider")
        buttons = [self._step_button(label, delta) for label, delta in
                   (("«", -(10**9)), ("‹", -1), ("›", 1), ("»", 10**9))]
        self.events = _html("", "jdsl-step-events")
        self.payload = _html("", "jdsl-step-payload")
        self.blackboard = _html("", "jdsl-step-blackboard")
        self.slider.observe(lambda _: self._show_step(), names="value")
        self._show_provenance()
        self._show_step()
        super().__init__(children=[
            header, _section("tree"), self.tree,
            _section("blackboard provenance"), self.key_picker, self.provenance, *chosen,
            _section("timeline by node"), timeline,
            _section("step"), w.HBox([self.slider, *buttons]), self.events,
            w.HBox([self.payload, self.blackboard]), self.inspector,
        ])
        self.add_class("jdsl-run-view")

    def _step_button(self, label: str, delta: int) -> w.Button:
        button = w.Button(description=label, layout=w.Layout(width="40px"))
        button.add_class("jdsl-step-button")

        def move(_: Any) -> None:
            self.slider.value = min(max(self.slider.value + delta, 0), self.slider.max)

        button.on_click(move)
        return button

    def _show_provenance(self) -> None:
        key = self.key_picker.value
        records = self.run.records if key == _ALL_KEYS else [r for r in self.run.records if r.key == key]
        limit = views.MAX_ROWS if key == _ALL_KEYS else 1000
        table = views.provenance_html(records, limit=limit, full_limit=0)
        self.provenance.value = f"<div class='jdsl-view'>{table}</div>"
        if key != _ALL_KEYS:
            self.inspector.offer(truncated_entries(f"{key}@", {
                f"step {r.step}": r.value for r in records[-50:]}))

    def _show_step(self) -> None:
        step = int(self.slider.value)
        events = self.run.events
        start = max(step - _WINDOW, 0)
        self.events.value = (f"<div class='jdsl-view'>"
                             f"{views.events_html(events, start, step + _WINDOW + 1, current=step)}</div>")
        state = blackboard_at(self.run.records, step)
        self.blackboard.value = (f"<div class='jdsl-view'><b>blackboard as of step {step}</b>"
                                 f"{views.blackboard_html(state, full_limit=0)}</div>")
        event = events[step] if events else {}
        self.payload.value = (f"<div class='jdsl-view'><b>event at step {step}</b>"
                              f"{views.payload_html(event, full_limit=0) if event else ''}</div>")
        offered = truncated_entries("event.", dict(event.get("payload") or {}))
        offered += truncated_entries("blackboard.", {k: r.value for k, r in sorted(state.items())})
        self.inspector.offer(offered)

    def static_text(self) -> str:
        return views.run_text(self.run)

    def static_html(self) -> str:
        return views.run_html(self.run)

    def __repr__(self) -> str:
        return f"RunView(status={self.run.status!r}, events={len(self.run.events)})"
