"""The step debugger: the slider drives the tree colouring, the timeline cursor and the panes.

The drawing and the timeline are laid out once; a step only swaps the view's style sheet.
"""

from __future__ import annotations

import re

from jdsl.drawing import structural_ids
from jdsl.testing import ScriptedModel
from jdsl.text import parse_behavior
from jdsl.trace import ListTraceSink
from jdsl_nb.rundata import RunData
from jdsl_nb.stepping import StepIndex, css_string, step_css
from jdsl_nb.timeline import event_summary
from jdsl_nb.views import run_header, run_html, run_text
from jdsl_nb.widgets import RunView

LOOKUP = "root/sequence.0/action.0"


def _rule_for(css: str, node_id: str) -> str:
    """The declarations of the rule whose selector list names ``node_id``'s shapes."""
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", css):
        if (
            f'g[id="{node_id}"]' in selectors
            and selectors.endswith(":is(polygon,ellipse,path)")
            and "stroke:#1565c0" not in body
        ):
            return body
    raise AssertionError(f"no rule for {node_id}")


def test_the_slider_recolours_the_tree_without_drawing_it_again(run_events):
    view = RunView(run_events)
    drawing, timeline = view.tree.value, view.timeline.value
    final = view.style.value
    assert "#9be39b" in _rule_for(final, LOOKUP)  # success at the last step
    view.slider.value = 0
    assert view.style.value != final
    assert "stroke-dasharray:5,2" in _rule_for(view.style.value, LOOKUP)  # not entered yet
    enter = next(
        i
        for i, e in enumerate(run_events)
        if e["kind"] == "node.enter" and e["payload"]["node_id"] == LOOKUP
    )
    view.slider.value = enter
    assert "#fff59d" in _rule_for(view.style.value, LOOKUP)  # running
    assert f':is(g[id="{LOOKUP}"]) :is(polygon,ellipse,path){{stroke:#1565c0' in view.style.value
    assert view.tree.value == drawing and view.timeline.value == timeline


def test_the_timeline_cursor_moves_with_the_step(run_events):
    view = RunView(run_events)
    assert view.timeline.value.count('class="jdsl-cursor"') >= 5  # one per node row
    cursor = re.compile(r"\.jdsl-cursor\{display:block;left:([\d.]+)%\}")
    last = float(cursor.search(view.style.value).group(1))
    view.slider.value = 3
    now = float(cursor.search(view.style.value).group(1))
    assert now < last and abs(now - 100 * 3.5 / len(run_events)) < 0.01
    assert f".{view.scope} .jdsl-cursor" in view.style.value  # scoped to this view


def test_jump_buttons_go_to_the_next_and_previous_of_a_kind(run_events):
    view = RunView(run_events)
    asked = next(i for i, e in enumerate(run_events) if e["kind"] == "model.requested")
    calls = [i for i, e in enumerate(run_events) if e["kind"] == "tool.call.started"]
    previous, following = [
        b for b in view.children[2].children[1].children if hasattr(b, "on_click")
    ]
    view.slider.value = 0
    view.jump_kind.value = "model call"
    following.click()
    assert view.slider.value == asked
    view.jump_kind.value = "tool call"
    previous.click()
    assert view.slider.value == max(c for c in calls if c < asked)
    view.jump_kind.value = "failure"
    following.click()  # the run has none: the step stays and the view says so
    assert view.slider.value == max(c for c in calls if c < asked)
    assert "no failure after step" in view.now.value
    index = StepIndex.build(run_events)
    assert index.jump("write", len(run_events), 1) is None
    assert index.jump("write", len(run_events), -1) == index.jumps["write"][-1]


def test_the_current_node_is_the_step_event_else_the_innermost_running_node(run_events):
    index = StepIndex.build(run_events)
    write = index.jumps["write"][0]
    assert index.state(write)[1] == LOOKUP  # a write belongs to its writer
    assert index.state(0) == ({}, "")  # episode.started: nothing entered yet


def test_a_large_tree_steps_with_one_small_style_sheet():
    body = "seq\n" + "".join(f"  act t{i}(x=x) -> k{i}\n" for i in range(300))
    tree = parse_behavior(body).bind(tools={f"t{i}": (lambda x: x) for i in range(300)})
    sink = ListTraceSink()
    tree.run(trace_sink=sink, x=1)
    view = RunView(sink.events)
    ids = list(structural_ids(view.run.ir).values())
    assert len(ids) == 302
    view.slider.value = view.slider.max // 2
    css = view.style.value
    assert len(css) < 30_000 and css.count("{") <= 8  # grouped by status, not one per node
    assert all(css_string(node_id) in css for node_id in ids[:5])


def test_css_strings_escape_quotes_and_backslashes():
    assert css_string('a"b\\c') == '"a\\"b\\\\c"'
    css = step_css("s", ['x"y'], {}, "", 0, 1)
    assert ':is(g[id="x\\"y"])' in css


def test_a_model_turn_that_requests_a_tool_says_which_tool_and_arguments():
    event = {
        "kind": "model.responded",
        "payload": {
            "raw_output": "",
            "tool_calls": [
                {"id": "c1", "name": "get_order_details", "arguments": {"order_id": "#W2"}}
            ],
        },
    }
    assert event_summary(event) == 'requests get_order_details(order_id="#W2")'
    answer = {
        "kind": "model.responded",
        "payload": {"raw_output": "1", "parsed_output": {"selected_index": 1}},
    }
    assert event_summary(answer) == "answer 1 -> selected_index=1"
    rejected = {
        "kind": "model.responded",
        "payload": {"raw_output": "banana", "error": "output n: 'banana' is not a valid int"},
    }
    assert "rejected: output n" in event_summary(rejected)
    call = {
        "kind": "tool.call.started",
        "payload": {"tool": {"host_name": "cancel"}, "arguments": {"order_id": "#W2", "n": 2}},
    }
    assert event_summary(call) == 'call cancel(order_id="#W2", n=2)'


def test_a_failed_run_header_names_the_failing_node_and_the_reason():
    tree = parse_behavior('seq\n  predict "q -> n: int" id=count\n  act show(n=n)')
    sink = ListTraceSink()
    ctx = tree.run(model=ScriptedModel("banana"), trace_sink=sink, tools={"show": print}, q="?")
    for source in (ctx, sink.events):  # from the context, or from the trace alone
        run = RunData.build(source, tree=tree)
        header = run_header(run)
        assert "failure" in header and "stopped at" in header
        assert "count" in header and "banana" in header
    assert "stopped at predict(q -> n) [count]:" in run_text(RunData.build(ctx))
    assert "the live view steps through the run" in run_html(RunData.build(ctx))


def test_timeline_rows_are_named_for_people_and_the_status_follows_the_step(run_events):
    from jdsl_nb.widgets import RunView

    view = RunView(run_events)
    html = "".join(_values(view))
    assert "<small><code>root/sequence.0/action.0</code></small>" in html  # id under the label
    assert "jdsl-tl-now" in html
    view.slider.value = 0
    css = "".join(v for v in _values(view) if "<style>" in v)
    assert ".jdsl-tl-final{display:none}" in css and 'content:"not run"' in css
    view.slider.value = view.slider.max
    css = "".join(v for v in _values(view) if "<style>" in v)
    assert 'content:"success"' in css


def _widgets(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _widgets(child)


def _values(widget):
    return [w.value for w in _widgets(widget) if isinstance(getattr(w, "value", None), str)]
