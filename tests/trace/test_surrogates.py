"""A lone surrogate (a str with no UTF-8: ``surrogateescape`` file names, half an emoji) in a
tool result, a run input or an episode id must not crash a traced run or tear its trace."""

from __future__ import annotations

from pathlib import Path

import pytest
from jdsl.testing import ScriptedModel
from jdsl.text import parse_behavior
from jdsl.trace import JsonlTraceSink, ListTraceSink, iter_episodes, verify_chain
from jdsl.trace.canonical import event_json

TREE = """
root t
  act lookup(q=q) -> r
"""


def test_event_json_writes_a_lone_surrogate_as_the_replacement_character() -> None:
    assert event_json({"a": "x\ud800y", "b": ["\udcff"]}) == '{"a":"x\ufffdy","b":["\ufffd"]}'
    event_json({"a": "x\ud800"}).encode("utf-8")  # encodable


@pytest.mark.parametrize(
    ("result", "inputs"),
    [
        ("bad\udcff", {}),  # os.fsdecode of a non-UTF-8 file name
        ("ok", {"q": "\ud83d"}),  # half an emoji
        ("ok", {"episode_id": "ep\ud800"}),
    ],
)
def test_a_traced_run_with_a_lone_surrogate_succeeds_and_reads_back(
    tmp_path: Path, result: str, inputs: dict[str, str]
) -> None:
    tree = parse_behavior(TREE)
    path = tmp_path / "t.jsonl"
    with JsonlTraceSink(path) as sink:
        ctx = tree.run(
            model=ScriptedModel(), tools={"lookup": lambda q: result}, trace_sink=sink,
            **{"q": "x", **inputs},
        )  # fmt: skip
        after = tree.run(
            model=ScriptedModel(), tools={"lookup": lambda q: "fine"}, trace_sink=sink, q="y"
        )
    assert (ctx.status.name, after.status.name) == ("SUCCESS", "SUCCESS")
    episodes = list(iter_episodes(path))
    assert len(episodes) == 2
    for episode in episodes:
        assert verify_chain(episode.events) == []
    assert [e.kind for e in episodes[0].events][-1] == "episode.finished"


def test_a_list_sink_seals_a_lone_surrogate() -> None:
    sink = ListTraceSink()
    tree = parse_behavior(TREE)
    ctx = tree.run(
        model=ScriptedModel(), tools={"lookup": lambda q: "\udc80"}, trace_sink=sink, q="x"
    )
    assert ctx.status.name == "SUCCESS"
    assert verify_chain(sink.events) == []
