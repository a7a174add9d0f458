"""The airline initial-state lookups answer what the recorded runs saw before any write."""

from __future__ import annotations

from jdsl.compiler.families import is_write
from jdsl.compiler.stream import normalize_stream
from jdsl.envs.data import data_path, load_json
from jdsl.envs.tau_airline import initial_reads
from jdsl.expr import MISSING
from jdsl.importers import import_tau_bench


def test_a_known_user_is_answered_an_unknown_one_is_not() -> None:
    reads = initial_reads()
    users = load_json("tau_airline", "db", "users.json")
    user_id = sorted(users)[0]
    assert reads("get_user_details", {"user_id": user_id}) == users[user_id]
    assert reads("get_user_details", {"user_id": "nobody_0000"}) is MISSING
    assert reads("search_direct_flight", {"origin": "JFK"}) is MISSING


def test_every_recorded_lookup_before_a_write_equals_the_answer() -> None:
    reads = initial_reads()
    raw = import_tau_bench(str(data_path("tau_airline", "raw", "gpt-4o-airline.dev.json")))
    compared = 0
    for episode in normalize_stream(raw.episodes):
        for step in episode.steps:
            if is_write(step.logical_tool, None) and step.ok:
                break
            answer = reads(step.logical_tool, step.arguments)
            if step.ok and answer is not MISSING:
                assert answer == step.result, (episode.episode_id, step.index)
                compared += 1
    assert compared > 150
