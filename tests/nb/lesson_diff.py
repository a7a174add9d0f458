"""A compiled reminder package and a held-out run that takes another path (one more write) (shared by the
diff tests of tests/nb and tests/cli)."""

from __future__ import annotations

from jdsl.compiler import CompileResult, compile_behavior, normalize_all
from jdsl.testing import ScriptedModel
from jdsl.text import parse_behavior
from jdsl.trace import ListTraceSink, segment_episodes

TEACHER = """seq
  act get_student(student_id=student_id) -> student
  predict "request, student -> loan_index: int"
    | Which loan?
  act send_reminder(student_id=student.id, book=student.loans[$loan_index].book) -> sent
"""
HELD_OUT = TEACHER.replace("  predict", "  act add_note(student_id=student.id) -> noted\n  predict")


def get_student(student_id: str) -> dict:
    return {"id": student_id, "loans": [{"book": "Dune"}, {"book": "Emma"}]}


def send_reminder(student_id: str, book: str) -> dict:
    return {"sent": True, "book": book}


def add_note(student_id: str) -> str:
    """A write (a mutating verb, :func:`jdsl.package.default_effects`): the held-out run
    differs from the compiled package in a write, so the replay diverges."""
    return "noted"


def compiled() -> CompileResult:
    tree = parse_behavior(TEACHER).bind(tools=[get_student, send_reminder])
    sink = ListTraceSink()
    for i in range(4):
        tree.run(model=ScriptedModel(str(i % 2)), trace_sink=sink, student_id=f"s{i}",
                 request="r")  # fmt: skip
    return compile_behavior(segment_episodes(sink.events), name="remind")


def held_out(sink=None) -> list:
    """The held-out run's events (into ``sink`` when given)."""
    tree = parse_behavior(HELD_OUT).bind(tools=[get_student, send_reminder, add_note])
    into = sink if sink is not None else ListTraceSink()
    tree.run(model=ScriptedModel("1"), trace_sink=into, student_id="s9", request="r",
             episode_id="held")  # fmt: skip
    return list(getattr(into, "events", []))


def held_out_normalized() -> list:
    return normalize_all(segment_episodes(held_out()))


def failed_run(sink=None) -> list:
    """A recorded run that failed before its first call (the teacher forgot ``request``):
    never compiled from, so no diff compares it unless asked by its episode id."""
    tree = parse_behavior(TEACHER).bind(tools=[get_student, send_reminder])
    into = sink if sink is not None else ListTraceSink()
    tree.run(model=ScriptedModel("1"), trace_sink=into, raise_errors=False, student_id="s8",
             episode_id="forgot_request")  # fmt: skip
    return list(getattr(into, "events", []))
