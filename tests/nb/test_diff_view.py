"""The step-aligned diff of a recorded episode against its replay: data, text, HTML, live view,
``%behavior diff`` (issue 27)."""

from __future__ import annotations

import pytest
from jdsl.compiler.stepdiff import diff_html, diff_text, step_diff

from tests.nb.lesson_diff import compiled, held_out, held_out_normalized


@pytest.fixture(scope="module")
def result():
    return compiled()


def test_a_held_out_divergence_is_aligned_by_step_with_reads_and_writes(result):
    diff = step_diff(result.package.ir, held_out_normalized()[0])
    assert not diff.matched and diff.first == 1
    assert [s.state for s in diff.steps] == ["same", "differs", "missing"]
    teacher, package = diff.steps[1].teacher, diff.steps[1].package
    assert teacher.tool == "add_note" and teacher.writes == ("noted",)
    assert package.tool == "send_reminder" and "student.loans[$loan_index].book" in package.reads
    assert diff.steps[0].package.writes == ("student",)
    text = diff_text(diff)
    assert ">>   1 ≠ teacher: add_note(student_id='s9')" in text
    assert "first divergence: expected add_note(student_id='s9')" in text
    page = diff_html(diff)
    assert "jdsl-diff-first" in page and "<script" not in page and "read student.id" in page


def test_a_compiled_episode_matches_step_for_step(result):
    diff = step_diff(result.package.ir, result.normalized[0])
    assert diff.matched and diff.first is None and {s.state for s in diff.steps} == {"same"}


def test_a_fallback_node_taking_over_is_shown(result):
    from jdsl.compiler import normalize_all
    from jdsl.text import parse_behavior
    from jdsl.trace import ListTraceSink, segment_episodes

    from tests.nb.lesson_diff import get_student, send_reminder

    ir = result.package.ir
    selector = ir["root"]["child"]  # compiled_or_fallback: the compiled flow, then the react
    flow, *rest = selector["children"]
    children = flow["children"]
    fallback = {"kind": "sequence", "id": "fallback_react", "children": children[1:]}
    flow = {**flow, "children": [children[0], fallback]}
    patched = {**ir, "root": {**ir["root"], "child": {**selector, "children": [flow, *rest]}}}
    tree = parse_behavior(
        "seq\n  act get_student(student_id=student_id) -> student\n"
        '  predict "request, student -> loan_index: int"\n'
        "  act send_reminder(student_id=student.id, book=student.loans[$loan_index].book) -> sent\n"
    ).bind(tools=[get_student, send_reminder])
    sink = ListTraceSink()
    from jdsl.testing import ScriptedModel

    tree.run(model=ScriptedModel("0"), trace_sink=sink, student_id="s1", request="r")
    diff = step_diff(patched, normalize_all(segment_episodes(sink.events))[0])
    assert diff.fallback == (1, "fallback_react")
    assert "fallback" in diff_text(diff) and "takes over" in diff_html(diff)


def test_the_live_view_steps_and_jumps_to_the_first_divergence(result):
    from jdsl_nb.widgets import DiffView

    view = DiffView(step_diff(result.package.ir, held_out_normalized()[0]))
    assert view.slider.value == 1 and "differs" in view.detail.value
    view.slider.value = 0
    assert "data-step='0'" in view.cursor.value and "same" in view.detail.value
    view.to_first.click()
    assert view.slider.value == 1
    assert "jdsl-widget-fallback" in view.static_bundle()["text/html"]


def test_the_magic_shows_the_diverged_episodes(ip, monkeypatch, result):
    shown: list = []
    monkeypatch.setattr("jdsl_nb.magics.display", lambda obj, **kw: shown.append(obj))
    from jdsl.trace import Trace

    ip.user_ns["remind_pkg"] = result
    ip.user_ns["held_trace"] = Trace(held_out())
    ip.run_line_magic("behavior", "diff remind_pkg held_trace")
    assert (
        shown[0]["text/plain"]
        == "1 episode(s): 0 matched, 0 handed to the fallback, 1 diverged; showing the unmatched ones"
    )
    assert type(shown[1]).__name__ == "DiffView" and shown[1].diff.first == 1
    ip.run_line_magic("behavior", "diff remind_pkg")
    assert shown[-2]["text/plain"].startswith("4 episode(s): 4 matched")


def test_the_fallback_takes_over_in_the_diff_when_it_lists_tools_the_program_never_calls():
    """A package's react fallback carries every tool of the family (tutorial 04's
    ``update_reservation_flights``: ``calculate``, the searches ...), most never called by the
    compiled program. The diff's replay bound only the program's tools, so the run ended in a
    BindingError before any node ran: no package calls and no hand-over row. Now the fallback's
    tools answer from the record too and the table shows the fallback taking over."""
    import copy

    from jdsl.compiler import compile_behavior, normalize_all

    from tests.compiler.test_step_diff_outcome import _cancel

    result = compile_behavior([_cancel(i) for i in range(3)], name="cancel")
    ir = copy.deepcopy(result.package.ir)
    react = ir["root"]["child"]["children"][-1]
    assert react["kind"] == "react" and react["id"] == "fallback"
    react["tools"] = [*react["tools"], "search_flights"]
    (episode,) = normalize_all([_cancel(7, reservation=False)])
    diff = step_diff(ir, episode)
    assert diff.package_outcome != "error"
    assert diff.fallback == (1, "fallback") and diff.steps[0].state == "same"
    assert "fallback <code>fallback</code> took over after the last call" in diff_html(diff)


def test_a_failed_recorded_run_is_skipped_unless_asked_for(ip, monkeypatch, result):
    """The lesson's first run forgot an input and failed before any call; it is in the trace
    but never compiled from. ``%behavior diff`` called it "diverged" (teacher: no call,
    package: get_student). Now it is skipped and said so; ``--episode`` still shows it."""
    from jdsl.trace import Trace

    from tests.nb.lesson_diff import failed_run

    shown: list = []
    monkeypatch.setattr("jdsl_nb.magics.display", lambda obj, **kw: shown.append(obj))
    ip.user_ns["remind_pkg"] = result
    ip.user_ns["mixed"] = Trace(failed_run() + held_out())
    ip.run_line_magic("behavior", "diff remind_pkg mixed")
    assert shown[0]["text/plain"] == (
        "1 episode(s): 0 matched, 0 handed to the fallback, 1 diverged; 1 failed recorded run "
        "skipped (never compiled from; --episode ID shows it); showing the unmatched ones"
    )
    assert [v.diff.episode_id for v in shown[1:]] == ["held"]
    shown.clear()
    ip.run_line_magic("behavior", "diff remind_pkg mixed --episode forgot_request")
    assert shown[1].diff.episode_id == "forgot_request"
