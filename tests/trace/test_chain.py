"""verify_chain: intact chains pass; edits, drops and broken links are reported."""

from __future__ import annotations

import json

from jdsl.trace import JsonlTraceSink, read_events, verify_chain


def test_an_intact_trace_has_no_problems(list_sink, write_episode) -> None:
    write_episode(list_sink, "ep_1")
    write_episode(list_sink, "ep_2")
    assert verify_chain(list_sink.events) == []
    assert [e.sequence for e in list_sink.episode("ep_2")] == list(range(9))


def test_tampering_one_payload_on_disk_is_detected(tmp_path, write_episode) -> None:
    path = tmp_path / "run.jsonl"
    write_episode(JsonlTraceSink(path))
    lines = path.read_text().splitlines()
    event = json.loads(lines[2])
    event["payload"]["result"] = {"id": "U666"}
    lines[2] = json.dumps(event)
    path.write_text("\n".join(lines) + "\n")
    problems = verify_chain(read_events(path))
    assert len(problems) == 1
    assert "sequence 2" in problems[0] and "was edited" in problems[0]


def test_a_dropped_event_is_a_gap_and_a_broken_link(list_sink, write_episode) -> None:
    write_episode(list_sink)
    events = list_sink.events[:3] + list_sink.events[4:]
    problems = verify_chain(events)
    assert any("expected 3" in p for p in problems)
    assert any("prev_event_hash" in p for p in problems)


def test_rehashing_an_edited_event_still_breaks_the_next_link(list_sink, write_episode) -> None:
    write_episode(list_sink)
    forged = list_sink.events[1].model_copy(update={"payload": {"forged": True}})
    forged.event_hash = forged.compute_hash()
    events = [list_sink.events[0], forged, *list_sink.events[2:]]
    problems = verify_chain(events)
    assert problems and all("sequence 2" in p for p in problems)


def test_a_repeated_sequence_is_reported(list_sink, write_episode) -> None:
    write_episode(list_sink)
    events = [*list_sink.events, list_sink.events[-1]]
    assert any("repeated" in p for p in verify_chain(events))
