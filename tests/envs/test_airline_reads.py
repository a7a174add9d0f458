"""The airline initial-state lookups answer what the recorded runs saw before any write."""

from __future__ import annotations

from jdsl.envs.data import data_path, load_json
from jdsl.envs.tau_airline import initial_reads
from jdsl.expr import MISSING
from jdsl.importers import import_tau_bench

from tests.envs.recorded import compare_reads_before_writes


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
    compared = compare_reads_before_writes(reads, raw.episodes)
    assert compared > 150
