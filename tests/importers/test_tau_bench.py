"""Importing the real gpt-4o airline trajectories (tau-bench neutral episodes)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from jdsl.envs.data import data_path, load_json
from jdsl.importers import AGENT_NODE_ID, ImportFormatError, import_tau_bench
from jdsl.trace import EventKind, Trace, TraceEvent, request_messages

EPISODES = Path(str(data_path("tau_airline", "episodes.json")))


@pytest.fixture(scope="module")
def events() -> list[TraceEvent]:
    return import_tau_bench(EPISODES)


def _episodes(events: list[TraceEvent]) -> dict[str, list[TraceEvent]]:
    grouped: dict[str, list[TraceEvent]] = {}
    for event in events:
        grouped.setdefault(event.episode_id, []).append(event)
    return grouped


def test_one_jdsl_episode_per_tau_bench_episode_with_its_task(events: list[TraceEvent]) -> None:
    raw = load_json("tau_airline", "episodes.json")
    episodes = _episodes(events)
    assert isinstance(events, Trace) and len(events.episodes) == len(episodes) == 54
    first = episodes["tau_airline_test_1_1"][0]
    assert first.kind == EventKind.EPISODE_STARTED and first.sequence == 0
    payload = first.payload
    assert payload["task_id"] == 1 and payload["task_family"] == "airline_test_1"
    assert payload["skill"] == "tau_bench.airline" and payload["model_id"] == "gpt-4o"
    assert payload["inputs"] == {"user_id": "olivia_gonzalez_2305"}
    assert payload["gold_actions"] == raw[0]["gold_actions"]
    assert payload["source_episode_id"] == raw[0]["episode_id"] and payload["ir"] is None
    families = Counter(e[0].payload["task_family"] for e in episodes.values())
    assert sorted(f for f, n in families.items() if n >= 3) == [
        f"airline_test_{i}" for i in (18, 20, 24, 36, 38, 42, 48, 49)
    ]


def test_every_call_and_result_of_the_source_is_kept(events: list[TraceEvent]) -> None:
    raw = load_json("tau_airline", "episodes.json")
    calls = [c for ep in raw for s in ep["steps"] for c in s["tool_calls"]]
    started = [e for e in events if e.kind == EventKind.TOOL_CALL_STARTED]
    assert [(e.payload["tool"]["host_name"], e.payload["arguments"]) for e in started] == [
        (c["name"], c["arguments"]) for c in calls
    ]
    kinds = Counter(e.kind for e in events)
    assert (
        kinds[EventKind.TOOL_CALL_COMPLETED] + kinds[EventKind.TOOL_CALL_FAILED]
        == len(calls)
        == 250
    )
    assert kinds[EventKind.USER_MESSAGE] == 351
    assert kinds[EventKind.MODEL_REQUESTED] == kinds[EventKind.MODEL_RESPONDED] == 547


def test_json_results_are_parsed_and_text_results_kept(events: list[TraceEvent]) -> None:
    completed = [e for e in events if e.kind == EventKind.TOOL_CALL_COMPLETED]
    details = next(e for e in completed if e.payload["tool"]["host_name"] == "get_user_details")
    assert details.payload["result"]["reservations"] == ["Z7GOZK", "K67C4W", "THY2DG"]
    transfer = next(
        e for e in completed if e.payload["tool"]["host_name"] == "transfer_to_human_agents"
    )
    assert transfer.payload["result"] == "Transfer successful"


def test_error_results_become_failed_calls(events: list[TraceEvent]) -> None:
    failed = [e for e in events if e.kind == EventKind.TOOL_CALL_FAILED]
    assert len(failed) == 9
    assert all(e.payload["error"].startswith("Error: ") for e in failed)
    assert {e.payload["error_type"] for e in failed} == {"tool_error"}
    assert "Error: payment method not found" in {e.payload["error"] for e in failed}


def test_each_assistant_turn_is_a_linked_decision(events: list[TraceEvent]) -> None:
    by_id = {e.event_id: e for e in events}
    for event in events:
        parent = by_id.get(event.parent_event_id or "")
        if event.kind == EventKind.MODEL_RESPONDED:
            assert parent is not None and parent.kind == EventKind.MODEL_REQUESTED
        elif event.kind == EventKind.TOOL_CALL_STARTED:
            assert parent is not None and parent.kind == EventKind.MODEL_RESPONDED
            assert event.payload["call_id"] in {c["id"] for c in parent.payload["tool_calls"]}
            assert event.payload["node_id"] == AGENT_NODE_ID and event.actor == "model"
        elif event.kind in (EventKind.TOOL_CALL_COMPLETED, EventKind.TOOL_CALL_FAILED):
            assert parent is not None and parent.kind == EventKind.TOOL_CALL_STARTED
            assert event.actor == "tool"


def test_model_requests_carry_the_conversation_so_far(events: list[TraceEvent]) -> None:
    episode = _episodes(events)["tau_airline_test_1_1"]
    requests = [e for e in episode if e.kind == EventKind.MODEL_REQUESTED]
    assert requests[0].payload["messages"] == [
        {
            "role": "user",
            "content": "Hi! I need to change my return flight from Texas to Newark.",
            "tool_calls": [],
            "tool_call_id": None,
            "name": None,
            "is_error": False,
            "metadata": {},
        }
    ]
    later = request_messages(requests[3], episode)
    assert [m["role"] for m in later][:5] == ["user", "assistant", "user", "assistant", "tool"]
    assert later[4]["name"] == "get_user_details"
    assert len(requests[0].payload["tools"]) == 14
    # each request records only the messages new since the one before (jdsl.trace.v2)
    for before, after in zip(requests, requests[1:], strict=False):
        sent = len(request_messages(before, episode))
        assert after.payload["messages_from"] == {"event_id": before.event_id, "kept": sent}
        assert request_messages(after, episode) == (
            request_messages(before, episode) + after.payload["messages"]
        )


def test_episodes_end_with_the_reward_and_a_hash_chain(events: list[TraceEvent]) -> None:
    for episode in _episodes(events).values():
        assert [e.sequence for e in episode] == list(range(len(episode)))
        assert episode[-2].kind == EventKind.ENVIRONMENT_REWARD and episode[-2].payload == {
            "reward": 1.0,
            "passed": True,
        }
        assert (
            episode[-1].kind == EventKind.EPISODE_FINISHED
            and episode[-1].payload["status"] == "success"
        )
        previous = None
        for event in episode:
            assert event.verify_hash() and event.prev_event_hash == previous
            previous = event.event_hash


def test_importing_twice_gives_identical_traces(events: list[TraceEvent]) -> None:
    again = import_tau_bench(EPISODES)
    assert [e.to_json() for e in again] == [e.to_json() for e in events]


def test_a_failed_reward_marks_the_episode_failed(tmp_path: Path) -> None:
    row = load_json("tau_airline", "episodes.json")[0]
    row["reward"] = 0.0
    path = tmp_path / "one.json"
    path.write_text(json.dumps([row]))
    finished = import_tau_bench(path)[-1]
    assert finished.kind == EventKind.EPISODE_FINISHED and finished.payload["status"] == "failure"


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("{not json", r"bad\.json, line 1 col 2: not JSON"),
        ('{"episodes": []}', "expected a JSON list of runs"),
        (
            '[{"episode_id": "x", "domain": "airline", "task_id": 1}]',
            r"run 1 \(x\): steps: Field required",
        ),
        (
            '[{"episode_id": "x", "domain": "airline", "task_id": 1, "steps": [{"role": "robot"}]}]',
            r"run 1 \(x\): steps\.0\.role",
        ),
    ],
)
def test_a_malformed_file_names_the_place_at_fault(
    tmp_path: Path, content: str, match: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ImportFormatError, match=match):
        import_tau_bench(path, strict=True)


def test_a_missing_file_is_an_import_error(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError, match="no such file; check the path"):
        import_tau_bench(tmp_path / "nope.json")


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("", "the file is empty"),
        ("  \n", "the file is empty"),
        (
            '{"kind": "episode.started", "episode_id": "e", "event_id": "1"}\n{"kind": "x"}\n',
            r"already a jdsl trace \(JSON Lines\): compile it with `jdsl compile`",
        ),
        ('{"a": 1}\n{"b": 2}\n', "looks like JSON Lines: pass the file as one JSON document"),
    ],
)
def test_a_file_that_is_no_results_file_says_what_to_pass(
    tmp_path: Path, content: str, match: str
) -> None:
    path = tmp_path / "runs.json"
    path.write_text(content)
    with pytest.raises(ImportFormatError, match=match):
        import_tau_bench(path)


def test_the_trace_episode_views_read_the_imported_episodes(events: Trace) -> None:
    episode = events.episode("tau_airline_test_1_1")
    calls = episode.tool_calls()
    assert [c.name for c in calls][:2] == ["get_user_details", "get_reservation_details"]
    assert calls[1].arguments == {"reservation_id": "Z7GOZK"} and calls[1].ok
    assert episode.succeeded() is True and episode.inputs == {"user_id": "olivia_gonzalez_2305"}
    assert len(episode.model_calls()) == sum(e.kind == EventKind.MODEL_RESPONDED for e in episode)


@pytest.mark.parametrize(
    "domain", ["../../../../tmp/evil", "airline/../retail", "/etc", "..", "a\\b"]
)
def test_an_episode_domain_never_reaches_a_package_data_path(tmp_path: Path, domain: str) -> None:
    row = load_json("tau_airline", "episodes.json")[0]
    row["domain"] = domain
    path = tmp_path / "one.json"
    path.write_text(json.dumps([row]))
    with pytest.raises(ImportFormatError, match="domain"):
        import_tau_bench(path, strict=True)


@pytest.mark.parametrize(
    "parts",
    [
        ("..", "pyproject.toml"),
        ("tau_airline/../tau_retail", "tasks.json"),
        ("/etc", "passwd"),
        ("", "x"),
        ("a\x00", "b"),
    ],
)
def test_package_data_parts_are_plain_names(parts: tuple[str, ...]) -> None:
    from jdsl.envs.data import DataNotFoundError, data_path

    with pytest.raises(DataNotFoundError):
        data_path(*parts)


RAW = data_path("tau_airline", "raw", "gpt-4o-airline.dev.json")


@pytest.mark.parametrize("form", ["bom", "jsonl", "one run"])
def test_a_bom_a_json_lines_file_and_a_lone_run_are_read_as_runs(tmp_path: Path, form: str) -> None:
    """fresh8: each was refused with a typed error although what it holds is plain."""
    runs = json.loads(RAW.read_text(encoding="utf-8"))[:3]
    path = tmp_path / "runs.json"
    if form == "bom":
        path.write_text("\ufeff" + json.dumps(runs), encoding="utf-8")
    elif form == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    else:
        runs = runs[:1]
        path.write_text(json.dumps(runs[0]), encoding="utf-8")
    events = import_tau_bench(path)
    finished = [e for e in events if e.kind == EventKind.EPISODE_FINISHED]
    assert len(finished) == len(runs)
