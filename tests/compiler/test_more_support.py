"""More runs of the same paths never serve fewer (fresh7 finding 0).

On the shipped gpt-4o airline file, family ``airline.no_write`` compiles to a program that
serves its runs end to end at the default ``--min-support``. With every path supported
(``min_support=1``, or every run given twice) a route the record cannot answer for some runs
made the whole program fall back to the paths' common part (serving none) with a note blaming
thin support. Those runs' paths hand over where they part instead; the rest stay served.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest
from jdsl.compiler.families import group_episodes
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.pipeline import compile_normalized
from jdsl.compiler.stream import normalize_stream
from jdsl.envs.data import data_path
from jdsl.importers import import_tau_bench

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def no_write() -> Sequence[NormEpisode]:
    raw = import_tau_bench(str(data_path("tau_airline", "raw", "gpt-4o-airline.dev.json")))
    families = dict(group_episodes(normalize_stream(raw.episodes), "intent"))
    return list(families["airline.no_write"])


def _twice(episodes: Sequence[NormEpisode]) -> list[NormEpisode]:
    copies = [dataclasses.replace(e, episode_id=f"{e.episode_id}_again") for e in episodes]
    return [*episodes, *copies]


def test_every_path_supported_still_serves_runs(no_write: Sequence[NormEpisode]) -> None:
    base = compile_normalized(no_write, name="no_write").verification
    one = compile_normalized(no_write, name="no_write", min_support=1)
    assert one.verification.ok
    assert one.verification.matched >= base.matched > 0
    assert not any("none with 1 episodes" in note for note in one.compiled.notes)


def test_the_same_runs_twice_serve_twice_as_many(no_write: Sequence[NormEpisode]) -> None:
    base = compile_normalized(no_write, name="no_write").verification
    twice = compile_normalized(_twice(no_write), name="no_write").verification
    assert twice.ok
    assert twice.matched >= base.matched > 0


def test_a_recovery_given_twice_serves_as_once() -> None:
    """Family ``update_reservation_flights+transfer_to_human_agents``: one run's failed tries
    (a recovery of support 1) given twice are not compiled at the bar that serves the runs
    (tests/compiler/test_doubled_recovery.py)."""
    raw = import_tau_bench(str(data_path("tau_airline", "raw", "gpt-4o-airline.dev.json")))
    families = dict(group_episodes(normalize_stream(raw.episodes), "intent"))
    runs = list(families["airline.update_reservation_flights+transfer_to_human_agents"])
    base = compile_normalized(runs, name="update").verification
    twice = compile_normalized(_twice(runs), name="update").verification
    assert twice.ok
    assert twice.matched >= 2 * base.matched > 0
