"""A write loop over a residual selection acts on each selected element once: a selection
answer that repeats an index (``reservation_indexes = [1, 1]``) would cancel one reservation
twice; the loop fails before acting, naming the repeated index, and the package's fallback
takes over with that reason (tree/loops.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior
from jdsl.ir import from_ir
from jdsl.testing import ScriptedModel
from jdsl.trace import ListTraceSink

sys.path.insert(0, str(Path(__file__).parent))
from test_acting_loops import _run  # noqa: E402

IDS = ["R9S0T", "R9S1T", "R9S2T"]


def _answer(indexes: list[int]) -> ScriptedModel:
    return ScriptedModel(json.dumps({"reservation_indexes": indexes}), "done")


def _ran(indexes: list[int]) -> tuple[list[str], Any]:
    result = compile_behavior([_run(0, 3, [1])], name="cancel")
    assert "user.reservations[$reservation_indexes]" in json.dumps(result.ir)
    cancelled: list[str] = []
    tools = {
        "get_user": lambda user_id: {"reservations": IDS},
        "get_reservation": lambda reservation_id: {"reservation_id": reservation_id},
        "cancel_reservation": lambda reservation_id: cancelled.append(reservation_id) or "ok",
    }
    sink = ListTraceSink()
    from_ir(result.package.ir).run(tools=tools, model=_answer(indexes), trace_sink=sink,
                                   user_id="u9", conversation="cancel my trips",
                                   raise_errors=False)  # fmt: skip
    return cancelled, sink


def test_distinct_indexes_act_on_each() -> None:
    cancelled, _ = _ran([2, 0])
    assert cancelled == ["R9S2T", "R9S0T"]


def test_a_repeated_index_acts_on_nothing_and_hands_over_with_the_reason() -> None:
    cancelled, sink = _ran([1, 1])
    assert cancelled == []
    started = [e.payload for e in sink.events if e.kind == "react.started"]
    assert started, [e.kind for e in sink.events]
    failure = started[0]["inputs"]["failure"]
    assert "more than once" in failure and "reservation_indexes" in failure, failure
