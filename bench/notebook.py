"""Notebook: RunView build time and bytes sent at first show; time to draw a 300-node tree;
one debugger step (moving the step slider) on a run of the 300-node tree.

Traces: one episode of a small tree (``repeat`` over a sequence of two storing actions, the
second reading what the first wrote) run until it has emitted about N events, traced to a
``ListTraceSink``. ``RunView(ctx)`` is what a notebook cell shows after a run.

Bytes at first show = the display bundle (``_repr_mimebundle_``: the widget reference, the
``text/plain`` and ``text/html`` fallbacks) + the state of every widget the view depends on
(``ipywidgets.embed.dependency_state``, all attributes, as JSON), which is what the kernel sends
to the front end when the cell output appears.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bench.table import Row
from bench.timing import median_seconds, timed_once

__all__ = ["EVENTS_PER_PASS", "drawing_tree", "first_show_bytes", "measure", "run_with_events"]

SECTION = "notebook"
EVENTS_PER_PASS = 14  # seq enter/exit + 2 x (enter, read, started, completed, write, exit)
_FIXED_EVENTS = 4  # episode started/finished + repeat enter/exit
MEGABYTE = 1_000_000


def bump(count: int) -> int:
    """The counter's next value."""
    return count + 1


def describe(count: int) -> dict[str, Any]:
    """A small record about the counter (what a real tool returns: a few fields)."""
    return {"count": count, "parity": "even" if count % 2 == 0 else "odd", "label": f"item-{count}"}


def run_with_events(events: int) -> Any:
    """A traced run (its ``RunContext``) of about ``events`` events (never fewer)."""
    from jdsl import act, ref, repeat, root, seq
    from jdsl.trace import ListTraceSink

    passes = max(1, -(-(events - _FIXED_EVENTS) // EVENTS_PER_PASS))
    body = seq(
        act(bump, count=ref("count")) >> "count", act(describe, count=ref("count")) >> "info"
    )
    tree = root("counter").do(repeat(body, max=passes))
    return tree.run(trace_sink=ListTraceSink(), count=0)


def first_show_bytes(view: Any) -> int:
    """Bytes of JSON the front end receives when ``view`` is first displayed."""
    from ipywidgets.embed import dependency_state

    bundle = view._repr_mimebundle_()
    state = dependency_state([view], drop_defaults=False)
    return len(json.dumps(bundle, default=str).encode()) + len(
        json.dumps(state, default=str).encode()
    )


def drawing_tree(nodes: int = 300) -> Any:
    """A tree of exactly ``nodes`` nodes (root + sequence + selector groups of 9 + actions)."""
    from jdsl import act, ref, root, sel, seq

    def step(**kwargs: Any) -> None:
        """A tool only named in the drawing."""

    groups, spare = divmod(nodes - 2, 9)
    kids: list[Any] = []
    for g in range(groups):
        inner = seq(
            *(act(step, x=ref(f"k{g}_{i - 1}") if i else g) >> f"k{g}_{i}" for i in range(6))
        )
        kids.append(sel(inner, act(step, why=f"group {g} failed") >> f"fallback{g}"))
    kids += [act(step) for _ in range(spare)]
    tree = root("drawing").do(seq(*kids))
    count = sum(1 for _ in tree.walk())
    if count != nodes:
        raise AssertionError(f"drawing tree has {count} nodes, expected {nodes}")
    return tree


@contextmanager
def _renderer(name: str) -> Iterator[None]:
    from jdsl.drawing import RENDERER_ENV

    old = os.environ.get(RENDERER_ENV)
    os.environ[RENDERER_ENV] = name
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(RENDERER_ENV, None)
        else:
            os.environ[RENDERER_ENV] = old


def runview_rows(size: int, *, repeats: int, with_targets: bool) -> list[Row]:
    """Build time, display-bundle time and bytes at first show of a RunView of ``size`` events."""
    from jdsl_nb import RunView

    ctx = run_with_events(size)
    actual = len(ctx.trace_sink.events)
    build = median_seconds(lambda: RunView(ctx), repeats=repeats)
    view = RunView(ctx)
    bundle_s = median_seconds(view._repr_mimebundle_, repeats=repeats, warmup=0)
    sent = first_show_bytes(view)
    label = f"RunView of {actual:,} events"
    return [
        Row(
            SECTION,
            f"{label}: build",
            build,
            "s",
            target="< 1 s" if with_targets else None,
            met=build < 1 if with_targets else None,
        ),
        Row(
            SECTION,
            f"{label}: display bundle (text/plain + text/html)",
            bundle_s,
            "s",
            note="computed when the cell output appears",
        ),
        Row(
            SECTION,
            f"{label}: bytes at first show",
            float(sent),
            "B",
            target="<= 1 MB" if with_targets else None,
            met=sent <= MEGABYTE if with_targets else None,
            note="bundle + widget states as JSON",
        ),
    ]


def drawing_rows(*, repeats: int, nodes: int = 300) -> list[Row]:
    """Time to draw a ``nodes``-node tree with each available Graphviz renderer."""
    from jdsl.drawing import available_renderers
    from jdsl_nb import drawing_html

    tree = drawing_tree(nodes)
    title = f"{nodes}-node drawing"
    rows = []
    for name, present in available_renderers().items():
        if not present:
            rows.append(
                Row(
                    SECTION,
                    f"{title} ({name})",
                    None,
                    "s",
                    note=f"{name} renderer not available here",
                )
            )
            continue
        with _renderer(name):
            seconds, html = timed_once(lambda: drawing_html(tree))
            if f'data-renderer="{name}"' not in html:
                rows.append(
                    Row(
                        SECTION,
                        f"{title} ({name})",
                        None,
                        "s",
                        target="< 1 s" if name == "dot" else None,
                        note=f"{name} did not render (fell back to the outline)",
                    )
                )
                continue
            seconds = median_seconds(lambda: drawing_html(tree), repeats=repeats, warmup=0)
        target = name == "dot"  # the renderer used wherever Graphviz is installed (Binder too)
        rows.append(
            Row(
                SECTION,
                f"{title} ({name})",
                seconds,
                "s",
                target="< 1 s" if target else None,
                met=seconds < 1 if target else None,
                note="drawing_html: tree_dot + render to inline SVG",
            )
        )
    return rows


def step_rows(*, repeats: int, nodes: int = 300) -> list[Row]:
    """One step of the run view's debugger on a run of the ``nodes``-node tree: the time the
    kernel takes to move the slider (recolour, cursor, panes) and the bytes that step sends."""
    from jdsl.trace import ListTraceSink
    from jdsl_nb import RunView

    tree = drawing_tree(nodes)
    sink = ListTraceSink()
    tree.run(trace_sink=sink)
    view = RunView(sink.events)
    last = view.slider.max
    targets = iter([last // 4, last // 2, 3 * last // 4, last // 3, 2 * last // 3] * 50)

    def move() -> None:
        view.slider.value = next(targets)

    seconds = median_seconds(move, repeats=repeats * 3, warmup=1)
    parts = (view.style, view.now, view.events, view.payload, view.blackboard)
    sent = sum(len(p.value.encode()) for p in parts)
    label = f"debugger step, {nodes}-node tree ({last + 1:,} events)"
    return [
        Row(
            SECTION,
            f"{label}: time",
            seconds,
            "s",
            target="< 0.1 s",
            met=seconds < 0.1,
            note="slider moved: style sheet, now line, panes; the drawing is not redrawn",
        ),
        Row(
            SECTION,
            f"{label}: bytes sent",
            float(sent),
            "B",
            target="<= 100 kB",
            met=sent <= 100_000,
            note="the changed HTML values (the drawing is not resent)",
        ),
    ]


def measure(*, quick: bool) -> list[Row]:
    """All notebook rows (3 samples per figure, 5 in a full run)."""
    repeats = 3 if quick else 5
    rows: list[Row] = []
    for size in (100, 1_000, 10_000):
        rows += runview_rows(size, repeats=repeats, with_targets=size == 10_000)
    return rows + drawing_rows(repeats=repeats) + step_rows(repeats=repeats)
