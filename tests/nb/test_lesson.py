"""The lesson of issue 27, as a teacher writes it: a library-reminder agent in the magics."""

from __future__ import annotations

import pytest
from jdsl_nb.views import run_text

REMIND = """seq
  act get_student(student_id=student_id) -> student
  predict "request, student -> loan_index: int"
    | Which loan does the librarian mean? Answer with its 0-based index in student.loans.
  act send_reminder(student_id=student.id, book=student.loans[$loan_index].book) -> sent
"""


def get_student(student_id: str) -> dict:
    return {"id": student_id, "name": "Ann",
            "loans": [{"book": "Dune"}, {"book": "Emma"}]}  # fmt: skip


def send_reminder(student_id: str, book: str) -> dict:
    return {"sent": True, "book": book}


@pytest.fixture
def shown(monkeypatch):
    items: list = []
    monkeypatch.setattr("jdsl_nb.magics.display", lambda obj, **kw: items.append(obj))
    return items


@pytest.fixture
def lesson(ip):
    from jdsl.testing import ScriptedModel

    model = ScriptedModel("1")
    ip.user_ns.update(get_student=get_student, send_reminder=send_reminder, model=model,
                      model5=ScriptedModel("5"))  # fmt: skip
    ip.run_cell_magic("behavior", "remind --show none", REMIND)
    return model


def test_check_names_a_missing_run_input_and_the_flag(ip, shown, lesson):
    ip.run_line_magic("behavior", "check remind --input student_id=s1")
    text = shown[-1]["text/plain"]
    assert text.startswith("1 error") and "missing-input" in text and "reads request" in text
    assert "--input request=VALUE" in text and "run(" not in text


def test_a_run_without_the_input_stops_before_the_model(ip, shown, lesson):
    ip.run_line_magic("behavior", "run remind --model model --input student_id=s1")
    view = shown[-1]
    assert view.run.status == "error" and "reads request" in (view.run.error or "")
    assert "--input request=VALUE" in view.run.error and lesson.calls == []
    ip.run_line_magic("behavior", "run remind --model model --input student_id=s1 request=Emma")
    assert shown[-1].run.status == "success" and "null" not in str(lesson.calls[0])


def test_a_misspelt_key_says_did_you_mean(ip, shown, lesson):
    ip.run_cell_magic(
        "behavior",
        "typo --show none",
        REMIND.replace("student.loans[$loan_index]", "studnet.loans[0]"),
    )
    ip.run_line_magic("behavior", "check typo")
    assert "did you mean student?" in shown[-1]["text/plain"]


def test_an_answer_out_of_range_says_what_is_wrong_not_give_an_input(ip, shown, lesson):
    ip.run_line_magic("behavior", "run remind --model model5 --input student_id=s1 request=x")
    view = shown[-1]
    assert view.run.status == "error" and "$loan_index = 5" in view.run.error
    assert "--input student=" not in view.run.error
    text = run_text(view.run)
    assert text.startswith("run: error") and "ended in error" in text


@pytest.fixture
def traced(ip, shown, lesson):
    from jdsl.testing import ScriptedModel

    for i in range(4):
        ip.user_ns["pick"] = ScriptedModel(str(i % 2))
        ip.run_line_magic("behavior", f"run remind --model pick --input student_id=s{i} "
                                      f"request=r{i} --show none")  # fmt: skip
    assert shown == [] and len(ip.user_ns["remind_trace"].episodes) == 4
    return ip.user_ns["remind_trace"]


def test_run_show_summary_is_one_line_per_run(ip, shown, lesson):
    ip.run_line_magic("behavior", "run remind --model model --input student_id=s1 request=x "
                                  "--show summary")  # fmt: skip
    assert shown[-1]["text/plain"] == "remind_0: success"
    ip.run_cell_magic("behavior", "again --run --model model --input student_id=s1 "
                                  "--show summary", REMIND)  # fmt: skip
    assert shown[-1]["text/plain"].startswith("again_0: error · BehaviorCheckError")


def test_compile_announces_what_it_bound_and_the_result_runs(ip, shown, traced):
    ip.run_line_magic("behavior", "compile remind_trace -o reminder --show summary")
    (said,) = shown
    assert said["text/plain"].startswith("reminder = the compile result of remind_trace (verified")
    assert "%behavior run reminder" in said["text/plain"]
    result = ip.user_ns["reminder"]
    (predict,) = [n for n in result.ir["root"]["child"]["children"] if n["kind"] == "predict"]
    assert predict["instructions"].startswith("Which loan does the librarian mean?")
    ip.run_line_magic("behavior", "run reminder --model model --input student_id=s7 request=x")
    view = shown[-1]
    assert type(view).__name__ == "RunView" and view.run.status == "success", view.run.error
    assert ip.user_ns["reminder_run"].blackboard["sent"] == {"sent": True, "book": "Emma"}
    ip.user_ns["pkg"] = result.package
    ip.run_line_magic("behavior", "run pkg --model model --input student_id=s7 request=x "
                                  "--show summary")  # fmt: skip
    assert shown[-1]["text/plain"] == "pkg_0: success"


def test_compile_refuses_to_replace_another_object_unless_forced(ip, shown, traced):
    from IPython.core.error import UsageError

    with pytest.raises(UsageError, match="'remind' already holds a Root.*--force"):
        ip.run_line_magic("behavior", "compile remind_trace -o remind")
    assert type(ip.user_ns["remind"]).__name__ == "Root"
    ip.run_line_magic("behavior", "compile remind_trace -o remind --force --show none")
    assert shown == [] and type(ip.user_ns["remind"]).__name__ == "CompileResult"
    ip.run_line_magic("behavior", "compile remind_trace -o remind --show none")  # its own kind


def test_run_of_something_else_is_a_usage_error_not_an_empty_run_view(ip, shown, lesson):
    from IPython.core.error import UsageError

    ip.user_ns["numbers"] = [1, 2]
    with pytest.raises(UsageError, match="'numbers' is a list; %behavior run takes a tree"):
        ip.run_line_magic("behavior", "run numbers")
    assert shown == []


def test_a_traced_ctx_shows_the_live_view_and_an_untraced_one_the_static(ip, monkeypatch):
    from jdsl.testing import ScriptedModel
    from jdsl.text import parse_behavior
    from jdsl.trace import ListTraceSink

    shown: list = []
    monkeypatch.setattr("IPython.display.display", lambda obj, **kw: shown.append(obj))
    tree = parse_behavior(REMIND).bind(tools=[get_student, send_reminder])
    traced = tree.run(model=ScriptedModel("0"), trace_sink=ListTraceSink(), student_id="s1",
                      request="x")  # fmt: skip
    assert ip.display_formatter.ipython_display_formatter(traced)
    assert type(shown[-1]).__name__ == "RunView" and shown[-1].run.status == "success"
    untraced = tree.run(model=ScriptedModel("0"), student_id="s1", request="x")
    assert ip.display_formatter.ipython_display_formatter(untraced)
    assert "text/html" in shown[-1] and "jdsl-run" in shown[-1]["text/html"]


def test_a_summary_line_says_which_check_error_stopped_the_run(ip, shown, lesson):
    """``--show summary`` in a loop printed ``typo_0: error · BehaviorCheckError: the tree does
    not pass its static check (1 error, 0 warnings):`` and stopped at the colon: the line never
    said which key or what to do."""
    ip.run_cell_magic("behavior", "typo --show none",
                      REMIND.replace("student.loans[$loan_index]", "studnet.loans[0]"))  # fmt: skip
    ip.run_line_magic("behavior", "run typo --model model --input student_id=s1 request=x "
                                  "--show summary")  # fmt: skip
    (line,) = shown[-1]["text/plain"].splitlines()
    assert line.startswith("typo_0: error · BehaviorCheckError: ")
    assert "reads studnet" in line and "did you mean student?" in line
    assert not line.endswith(":")


def test_check_takes_what_run_takes_a_compile_result_and_a_package(ip, shown, traced):
    """``%behavior run`` takes trees, packages and compile results; ``%behavior check`` refused
    the last two ("not a tree"), so the lesson could not check what it was about to run."""
    ip.run_line_magic("behavior", "compile remind_trace -o reminder --show none")
    ip.run_line_magic("behavior", "check reminder --input student_id=s1 request=x")
    assert shown[-1]["text/plain"].startswith("0 errors")
    ip.user_ns["pkg"] = ip.user_ns["reminder"].package
    ip.run_line_magic("behavior", "check pkg")
    text = shown[-1]["text/plain"]
    assert text.startswith("0 errors"), text


def test_the_compiled_package_never_sends_null_for_an_input_nobody_gave(ip, shown, traced):
    """Issue 27 class 1 on the compiled package: its predict sits under the package's
    compiled-or-fallback selector, where the static check lets a missing input pass (there the
    fallback takes the run), so ``%behavior run reminder`` without ``request`` succeeded with
    ``- request: null`` in the model's prompt. Now the predict fails on it, the fallback takes
    the rest, and the run view says both."""
    from jdsl.testing import ScriptedModel

    ip.run_line_magic("behavior", "compile remind_trace -o reminder --show none")
    ip.user_ns["fresh"] = fresh = ScriptedModel("1")
    ip.run_line_magic("behavior", "run reminder --model fresh --input student_id=s1")
    prompts = [m.content for call in fresh.calls for m in call["messages"]]
    assert len(prompts) == 1 and prompts[0].startswith("You continue a run of 'reminder'")
    assert not any(p.startswith("Which loan") for p in prompts)  # the predict never asked
    header = shown[-1].children[0].value
    assert "missing run inputs: request" in header
    assert "the compiled program stopped at decide_1 (reads request" in header
    assert "took the rest of the run" in header
    ip.run_line_magic("behavior", "run reminder --model fresh --input student_id=s1 --show summary")
    first, said = shown[-1]["text/plain"].splitlines()
    assert first.endswith(": success") and said.startswith(
        "the compiled program stopped at decide_1"
    )
