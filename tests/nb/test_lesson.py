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
    ip.run_cell_magic("behavior", "typo --show none",
                      REMIND.replace("student.loans[$loan_index]", "studnet.loans[0]"))
    ip.run_line_magic("behavior", "check typo")
    assert "did you mean student?" in shown[-1]["text/plain"]


def test_an_answer_out_of_range_says_what_is_wrong_not_give_an_input(ip, shown, lesson):
    ip.run_line_magic("behavior", "run remind --model model5 --input student_id=s1 request=x")
    view = shown[-1]
    assert view.run.status == "error" and "loan_index is 5" in view.run.error
    assert "--input student=" not in view.run.error
    text = run_text(view.run)
    assert text.startswith("run: error") and "ended in error" in text
