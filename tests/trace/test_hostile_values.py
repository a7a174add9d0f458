"""Tool results Python holds without trouble must not crash a traced run: an int too long to
write in decimal, a structure too deep to repr, an object whose ``__repr__`` raises."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jdsl.testing import ScriptedModel
from jdsl.text import parse_behavior
from jdsl.trace import JsonlTraceSink, ListTraceSink, iter_episodes, jsonable, verify_chain
from jdsl.trace.canonical import event_json

TREE = "root t\n  act lookup(q=q) -> r\n"


def _deep(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


class _NoRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


RESULTS = {
    "huge int": lambda: 10**5000,
    "huge int inside": lambda: {"n": [10**5000]},
    "too deep to repr": lambda: _deep(100_000),
    "raising repr": lambda: {"x": _NoRepr()},
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_a_traced_run_survives_the_value_and_its_trace_verifies(tmp_path: Path, name: str) -> None:
    tree = parse_behavior(TREE)
    value = RESULTS[name]()
    path = tmp_path / "t.jsonl"
    with JsonlTraceSink(path) as sink:
        ctx = tree.run(
            model=ScriptedModel(), tools={"lookup": lambda q: value}, trace_sink=sink, q="x"
        )
    assert ctx.status.name == "SUCCESS"
    (episode,) = iter_episodes(path)
    assert verify_chain(episode.events) == []
    listed = ListTraceSink()
    again = tree.run(
        model=ScriptedModel(), tools={"lookup": lambda q: value}, trace_sink=listed, q="x"
    )
    assert again.status.name == "SUCCESS" and verify_chain(listed.events) == []


def test_a_huge_int_is_written_as_hex() -> None:
    assert event_json({"n": 10**5000}) == event_json({"n": {"$int": hex(10**5000)}})
    assert event_json({"n": 10**30}) == '{"n":1000000000000000000000000000000}'


def test_jsonable_never_raises_on_a_failing_repr() -> None:
    assert jsonable({"x": _NoRepr()}) == {"x": "<_NoRepr>"}
    assert isinstance(jsonable(_deep(100_000)), list)
