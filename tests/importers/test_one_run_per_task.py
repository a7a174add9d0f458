"""One successful run per task (issue 24, "positions are choices"): a fresh user keeps, from
tau-bench's own ``gpt-4o-airline.dev.json`` (shipped as package data), the first successful run
of each task and every failed one (59 runs, 26 successful), imports it and compiles by intent
with the last successful run of each family held out. The cancel family is compiled from one
run cancelling one reservation; its held-out run cancels two of seven. A write on an element
of a list is a loop over a residual selection, so that run is served and matched; the same
family compiled with a fixed count (or a fixed position) does not match it.

The file is rebuilt by :func:`one_run_per_task`; from the command line::

    python tests/importers/test_one_run_per_task.py /tmp/one.json
    jdsl import tau-bench /tmp/one.json -o /tmp/one.jsonl
    jdsl compile /tmp/one.jsonl --group-by intent --holdout 1 -o /tmp/pk
"""

from __future__ import annotations

import copy
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_normalized, group_episodes
from jdsl.compiler.fallback import compiled_program
from jdsl.compiler.holdout import holdout_split, validate_package
from jdsl.compiler.replay import execute_all
from jdsl.compiler.staticize import loops
from jdsl.compiler.stream import normalize_stream
from jdsl.compiler.verify import verify
from jdsl.demo.heldout_job import RAW_RESULTS, holdout_figures
from jdsl.envs.data import data_path
from jdsl.envs.tau_airline import initial_reads
from jdsl.importers import import_tau_bench
from jdsl.ir.walk import walk_ir

FAMILY = "airline.cancel_reservation"


def one_run_per_task() -> list[dict[str, Any]]:
    """The runs of the shipped results file, keeping only the first successful run of each
    task (every failed run stays)."""
    raw = json.loads(data_path(*RAW_RESULTS).read_text("utf-8"))
    seen: set[Any] = set()
    kept = []
    for run in raw:
        if run["reward"] == 1.0:
            if run["task_id"] in seen:
                continue
            seen.add(run["task_id"])
        kept.append(run)
    return kept


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    path = tmp_path_factory.mktemp("one") / "one.json"
    runs = one_run_per_task()
    assert (len(runs), sum(r["reward"] == 1.0 for r in runs)) == (59, 26)
    path.write_text(json.dumps(runs), encoding="utf-8")
    return list(import_tau_bench(str(path)).episodes)


@pytest.mark.slow
def test_every_served_held_out_run_matches(imported: list[Any]) -> None:
    figures = holdout_figures(imported, reads=initial_reads())
    assert (figures.held_out, figures.served, figures.fallback) == (5, 4, 1), figures.lines()
    assert figures.matched == figures.served and figures.divergences == 0, figures.lines()


def _cancel_family(imported: list[Any]) -> tuple[list[Any], list[Any]]:
    episodes = list(normalize_stream(imported))
    members = dict(group_episodes(episodes, "intent"))[FAMILY]
    kept, held = holdout_split(members, 1)
    assert [e.episode_id for e in held] == ["tau_airline_test_30_1"]
    return kept, held


def _wrong(ir: dict[str, Any], how: str) -> dict[str, Any]:
    """The program with its cancel loop replaced by one cancel at a fixed position."""
    ir = copy.deepcopy(compiled_program(ir))
    for node in walk_ir(ir["root"]):  # the selection's predict goes too
        if node.get("children"):
            node["children"] = [c for c in node["children"]
                                if c.get("id") != "choose_reservation_indexes"]  # fmt: skip
    for node in walk_ir(ir["root"]):
        selection = "[$" in str(node.get("items"))  # the cancel's loop, not the reads'
        if node.get("kind") == "for_each" and selection and how == "fixed position":
            action = next(n for n in walk_ir(node["child"]) if n.get("kind") == "action")
            action["args"]["reservation_id"] = {"ref": "get_user_details_out.reservations[0]"}
            node.clear()
            node.update(action)
            return ir
    raise AssertionError("no loop to break")


def test_the_cancel_family_of_one_run_serves_a_run_cancelling_two(imported: list[Any]) -> None:
    kept, held = _cancel_family(imported)
    result = compile_normalized(kept, name=FAMILY, reads=initial_reads())
    assert result.ok, result.report().text
    loop = [n["items"] for n in walk_ir(result.ir["root"]) if n.get("kind") == "for_each"]
    # a loop reading every reservation (one run read each: tests/compiler/
    # test_one_run_traversal.py), then the cancel's loop over the selected ones
    assert loop == ["get_user_details_out.reservations",
                    "get_user_details_out.reservations[$reservation_indexes]"]  # fmt: skip
    report = validate_package(result.package, held, reads=initial_reads())
    (row,) = report.rows
    assert row.served and row.matched, report.text
    # built wrong on purpose: one cancel at position 0 (its own run cancelled that one)
    wrong = _wrong(result.package.ir, "fixed position")
    (own,) = execute_all(wrong, [e for e in kept if e.success])
    assert own.matched  # executing the one run it was compiled from cannot tell
    checked = verify(dataclasses.replace(result.compiled, ir=wrong), kept, reads=initial_reads())
    assert any("fixed position" in p for p in checked.structural_problems), checked.problems
    (other,) = execute_all(wrong, held)
    assert not other.matched and other.divergence is not None, other


def test_a_fixed_count_is_caught_on_the_held_out_run(
    imported: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    kept, held = _cancel_family(imported)
    monkeypatch.setattr(loops, "_acting", lambda *a, **k: set())  # built wrong: one cancel
    result = compile_normalized(kept, name=FAMILY, reads=initial_reads())
    assert result.ok and "[$reservation_indexes]" not in json.dumps(result.ir)
    report = validate_package(result.package, held, reads=initial_reads())
    (row,) = report.rows
    assert row.served and not row.matched and report.divergences == 1, report.text


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(one_run_per_task()), encoding="utf-8")
