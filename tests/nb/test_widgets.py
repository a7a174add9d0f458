"""RunView and CompileView: content, step slider, on-demand full values, state budget."""

from __future__ import annotations

import json
import subprocess
import sys

import ipywidgets as w
import pytest
from jdsl_nb.widgets import CompileView, RunView, candidates_frame


def widget_state_bytes(root: w.Widget) -> int:
    """Bytes of JSON state of every widget reachable from ``root`` (what first show sends)."""
    seen: set[int] = set()
    total, stack = 0, [root]
    while stack:
        widget = stack.pop()
        if id(widget) in seen:
            continue
        seen.add(id(widget))
        total += len(json.dumps(widget.get_state(), default=str).encode())
        for name in widget.keys:
            value = getattr(widget, name)
            values = value if isinstance(value, list | tuple) else [value]
            stack.extend(v for v in values if isinstance(v, w.Widget))
    return total


def test_run_view_shows_tree_provenance_and_timeline(run_events):
    view = RunView(run_events)
    assert (
        '<g id="root/sequence.0/action.0"' in view.tree.value
        or 'data-node-id="root/sequence.0/action.0"' in view.tree.value
    )
    assert "root/sequence.0/action.0" in view.provenance.value
    assert "list_orders.customer_id" in view.provenance.value
    assert view.slider.max == len(run_events) - 1 == view.slider.value


def test_step_slider_changes_the_blackboard_and_event_shown(run_events):
    view = RunView(run_events)
    final = view.blackboard.value
    view.slider.value = 0
    assert view.blackboard.value != final
    assert "receipt" in final and "receipt" not in view.blackboard.value
    assert "episode.started" in view.payload.value
    asked = next(i for i, e in enumerate(run_events) if e["kind"] == "model.requested")
    view.slider.value = asked
    assert "prompt" in view.payload.value and "Pick the order." in view.payload.value


def test_full_values_are_fetched_on_demand(run_events):
    view = RunView(run_events)
    asked = next(i for i, e in enumerate(run_events) if e["kind"] == "model.requested")
    view.slider.value = asked
    assert "p" * 400 not in view.payload.value
    labels = [label for label, _ in view.inspector.picker.options]
    assert "event.prompt" in labels
    view.inspector.picker.value = labels.index("event.prompt") - 1
    assert "p" * 400 in view.inspector.full.value


def test_key_picker_shows_one_keys_history(run_events):
    view = RunView(run_events)
    view.key_picker.value = "orders"
    assert "customer_id" not in view.provenance.value.split("<tbody>")[1].split("orders")[0]
    assert any(label.startswith("orders@") for label, _ in view.inspector.picker.options)


def test_error_is_shown_in_the_view_not_raised(run_events):
    view = RunView(run_events[:3], error=KeyError("email"))
    assert "KeyError" in view.children[0].value
    assert view.run.status == "error"


def test_ten_thousand_events_send_at_most_one_megabyte(big_run_events):
    events = big_run_events
    view = RunView(events)
    assert len(events) >= 10_000 and view.slider.max == len(events) - 1
    size = widget_state_bytes(view)
    assert 10_000 < size <= 1_000_000, size


def test_static_form_in_the_mime_bundle(run_events):
    bundle = RunView(run_events)._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "jdsl-provenance" in bundle["text/html"]
    assert bundle["text/plain"].startswith("run: success")


class _Result:
    candidates = [
        {
            "candidate_id": f"cand_{i}",
            "type": "DATAFLOW",
            "grade": grade,
            "status": "accepted",
            "claim": {"source": "customer.id"},
            "evidence": {"support": 2, "applicable": 2, "counterexamples": 0},
        }
        for i, grade in enumerate(["E1", "E2", "E2"])
    ]
    verification = {"status": "passed"}
    compiled = {"kind": "sequence", "id": "flow", "children": [{"kind": "action", "tool": "x"}]}


def test_compile_view_stacks_the_trees_and_formats_verification(run_events):
    view = CompileView(_Result(), trace=run_events)
    frame = candidates_frame(_Result())
    assert list(frame["grade"]) == ["E1", "E2", "E2"]
    summary, compiled, teacher = view.children[1:4]  # the summary first, then the trees
    assert compiled.title == "compiled tree" and compiled.toggle.value  # open
    assert teacher.title == "teacher tree" and not teacher.toggle.value  # folded
    verification = summary.value
    assert "jdsl-status-success'>passed</span>" in verification and "{" not in verification
    view.grade_picker.value = "E1"
    assert "cand_0" in view.table.value and "cand_1" not in view.table.value


def test_compile_view_without_trace():
    view = CompileView(object())
    assert view.children[2].title == "compiled tree"
    assert not any(getattr(c, "title", "") == "teacher tree" for c in view.children)
    static = view.static_html()
    assert "no trace given" not in static and "CompileView(result, trace=TRACE)" in static


def test_verification_reads_as_one_line():
    from jdsl_nb.compile_views import verification_html, verification_line

    report = {
        "status": "failed",
        "structural_ok": True,
        "replay_checks": 40,
        "replay_passed": 38,
        "replay_coverage": 0.95,
        "problems": ["guard g: false"],
        "problems_omitted": 0,
        "executed": 12,
        "matched": 11,
        "recheck": "later",
    }
    assert verification_line(report) == (
        "failed: structure ok, 38/40 replay checks passed, "
        "executed 12 episodes, 11 matched, recheck later"
    )  # no "(coverage 0.95)": the view's "coverage" is the deterministic coverage, explained
    assert "<li>guard g: false</li>" in verification_html(report)
    assert verification_line({}) == "no verification report"


def test_import_is_lazy_and_fast():
    code = (
        "import sys, time; t = time.perf_counter(); import jdsl_nb; "
        "d = time.perf_counter() - t; "
        "print(d, [m for m in ('ipywidgets', 'graphviz', 'pandas', 'IPython') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, loaded = out.stdout.split(" ", 1)
    assert loaded.strip() == "[]"
    assert float(seconds) < 0.3


@pytest.mark.parametrize("bad", [None, 42])
def test_run_view_of_nothing_is_empty_not_an_error(bad):
    if bad is None:
        view = RunView([])
        assert view.slider.max == 0
    else:
        with pytest.raises(TypeError):
            RunView(bad)


def test_run_view_lists_react_tool_calls_as_chosen_by_the_model():
    react = "root/react.0"
    events = [
        {"kind": "episode.started", "payload": {"inputs": {"question": "pending?"}}},
        {"kind": "node.enter", "payload": {"node_id": react, "type": "react"}},
        {"kind": "blackboard.read", "payload": {"path": "question", "reader": react}},
        {
            "kind": "tool.call.started",
            "payload": {
                "node_id": react,
                "tool": {"host_name": "get_order"},
                "arguments": {"order_id": "#W1"},
            },
        },
        {"kind": "node.exit", "payload": {"node_id": react, "type": "react", "status": "success"}},
    ]
    view = RunView(events)
    (section,) = [s for s in view.children if "chosen by the model" in getattr(s, "title", "")]
    assert "get_order" in section.body.children[0].value
    assert "get_order" not in view.provenance.value
    assert not any(
        "chosen by the model" in getattr(s, "title", "") for s in RunView(events[:3]).children
    )


def test_display_is_a_static_output_then_the_live_widget(run_events, monkeypatch):
    from jdsl_nb.widgets._static import FALLBACK_CLASS, LIVE_CLASS, WIDGET_VIEW, StaticFallbackBox

    shown: list = []
    monkeypatch.setattr("IPython.display.display", lambda obj, **kw: shown.append((obj, kw)))
    view = RunView(run_events)
    view._ipython_display_()
    (static, static_kw), (live, live_kw) = shown
    assert static_kw == live_kw == {"raw": True}
    assert WIDGET_VIEW not in static and FALLBACK_CLASS in static["text/html"]
    assert "jdsl-provenance" in static["text/html"] and static["text/plain"].startswith("run: ")
    assert WIDGET_VIEW in live and "text/html" not in live
    assert LIVE_CLASS in view._dom_classes and "display:none" in view.children[0].value
    with pytest.raises(NotImplementedError):
        StaticFallbackBox().static_html()


def test_a_reopened_notebook_hides_the_model_not_found_error_next_to_the_static_view(run_events):
    """Reopened without its kernel, the widget output renders as an empty ``.jupyter-widgets``
    node with the error text; the static output carries a rule that hides exactly that."""
    from jdsl_nb.widgets._static import FALLBACK_CLASS, ORPHAN_CSS

    html = RunView(run_events).static_bundle()["text/html"]
    assert html.startswith(f'<div class="{FALLBACK_CLASS}">{ORPHAN_CSS}')
    assert ".jupyter-widgets:not(.jdsl-live-view):not(:has(*))" in ORPHAN_CSS
    assert "{display:none}" in ORPHAN_CSS


def _step_keys(view: w.Widget) -> list[w.Widget]:
    from jdsl_nb.widgets._keys import StepKeys

    found, stack = [], [view]
    while stack:
        widget = stack.pop()
        if isinstance(widget, StepKeys):
            found.append(widget)
        stack.extend(getattr(widget, "children", ()))
    return found


def test_the_arrow_keys_belong_to_the_run_view_in_every_front_end(run_events):
    """Notebook 7's command-mode ← moved focus to another cell: the view carries a key widget
    that puts lumino's suppress attribute on the view and steps the slider on ←/→."""
    from jdsl_nb.widgets._keys import SUPPRESS_ATTRIBUTE
    from jdsl_nb.widgets._static import LIVE_CLASS

    view = RunView(run_events)
    (keys,) = _step_keys(view)
    assert keys.slider is view.slider
    assert SUPPRESS_ATTRIBUTE in keys._esm and f"closest('.{LIVE_CLASS}')" in keys._esm
    view.slider.value = 3
    keys._on_message(keys, {"step": 1}, [])
    keys._on_message(keys, {"step": 1}, [])
    assert view.slider.value == 5 and "step 5 of" in view.now.value
    keys._on_message(keys, {"step": -1}, [])
    keys._on_message(keys, {"step": 40}, [])  # not a key press: ignored
    assert view.slider.value == 4
    view.slider.value = view.slider.max
    keys.press(1)
    assert view.slider.value == view.slider.max


def test_the_diff_view_steps_on_the_arrow_keys_too():
    from jdsl.compiler.stepdiff import step_diff
    from jdsl_nb.widgets import DiffView

    from tests.nb.lesson_diff import compiled, held_out_normalized

    view = DiffView(step_diff(compiled().package.ir, held_out_normalized()[0]))
    (keys,) = _step_keys(view)
    view.slider.value = 0
    keys._on_message(keys, {"step": 1}, [])
    assert view.slider.value == min(1, view.slider.max)
