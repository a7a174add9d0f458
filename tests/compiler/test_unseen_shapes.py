"""Compiler faults found on results files shaped as other models write them (bench/unseen_files.py).

Each test is a minimal reproduction, strict xfail until the compiler handles it (issue 24:
"reads are free", "runs that differ only in extra or missing reads are one path"). The runs are
the scripted retail agent's (:mod:`jdsl.demo.retail_styles`: real environment, real tasks)
imported as a tau-bench results file and compiled by intent, as ``jdsl compile --group-by
intent`` does.
"""

from __future__ import annotations

import json
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior
from jdsl.demo.heldout_job import holdout_figures
from jdsl.demo.retail_styles import Style, style_runs
from jdsl.importers import import_tau_bench

from bench.unseen_files import weak_retail

pytestmark = pytest.mark.slow

_STYLE = Style("unseen", "tool-calling", "name_zip", "stated", second_run=1.0, tasks_per_family=4)


def _repeat_reads(traj: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A weak model's run: every lookup made twice with the same arguments (same result)."""
    out: list[dict[str, Any]] = []
    for i, message in enumerate(traj):
        out.append(message)
        if message["role"] != "tool":
            continue
        call = traj[i - 1]["tool_calls"][0]
        if call["function"]["name"].startswith(("get_", "find_")):
            again = {**call, "id": call["id"] + "_again"}
            out.append({"role": "assistant", "content": None, "tool_calls": [again]})
            out.append({**message, "tool_call_id": again["id"]})
    return out


@cache
def _inputs(repeat: bool) -> dict[str, tuple[str, ...]]:
    """``{family: run inputs}`` of the successful runs of :data:`_STYLE` compiled by intent."""
    rows = [r for r in style_runs(_STYLE) if r["reward"] == 1.0]
    if repeat:
        rows = [{**r, "traj": _repeat_reads(r["traj"])} for r in rows]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "results.json"
        path.write_text(json.dumps(rows), encoding="utf-8")
        episodes = import_tau_bench(path).episodes
    families = compile_behavior(episodes, name="", group_by="intent")
    return {name: tuple(r.compiled.inputs) for name, r in families.results.items() if r.ok}


def test_a_repeated_identical_read_adds_no_run_inputs() -> None:
    once, twice = _inputs(False), _inputs(True)
    assert set(once) == set(twice) and once
    assert twice == once


def test_an_unused_read_does_not_split_the_stated_order_id_into_two_inputs() -> None:
    for family, inputs in _inputs(False).items():
        assert not [i for i in inputs if i.endswith("_2")], (family, inputs)


def test_a_weak_models_family_hands_its_held_out_run_to_the_fallback_not_refuses_it(
    tmp_path: Path,
) -> None:
    """The held-out run is served or handed to the fallback, never refused. When its program
    failed verification (lineage took the first equal value, not the most recent) the family got a fallback-only package (compiler/fallback_only.py, pinned
    in test_hand_over.py); lineage ranked by the object acted on, then the most recent, lets
    it verify and serve the run."""
    rows = [r for r in weak_retail(hand_over=False) if r["reward"] == 1.0
            and {a["name"] for a in r["info"]["task"]["actions"]} == {"modify_pending_order_items"}]  # fmt: skip
    assert len(rows) == 4
    path = tmp_path / "weak.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    figures = holdout_figures(import_tau_bench(path).episodes)
    assert figures.held_out == 1
    assert figures.refused == 0, figures.unverified
    assert figures.fallback + figures.served == 1, figures
    assert figures.verified + len(figures.fallback_only) == 1, figures


_TRIALS = Style("k4", "act", "email", "mixed", extra_reads=0.3, think=0.2, recover=0.2, fail=0.3)


def test_twenty_runs_of_one_intent_over_four_trials_compile_and_serve(tmp_path: Path) -> None:
    """Three paths: the stated order read directly (2 runs), the user then one order (17), the
    user then two orders (2); the fast reproduction is tests/compiler/test_nested_routes.py."""
    rows = [r for r in style_runs(_TRIALS, trials=4) if r["reward"] == 1.0
            and {a["name"] for a in r["info"]["task"]["actions"]} == {"modify_pending_order_items"}]  # fmt: skip
    assert len(rows) == 21
    path = tmp_path / "trials.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    figures = holdout_figures(import_tau_bench(path).episodes)
    assert figures.refused == 0 and figures.served == 1, figures
