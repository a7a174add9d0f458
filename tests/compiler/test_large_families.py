"""A large intent family verifies and serves (issue 24: real corpora grouped by intent give
families of 10-40 runs, and those rarely verified).

The family: every successful ``exchange_delivered_order_items`` run of the ``direct`` scripted
agent (:mod:`jdsl.demo.retail_styles`) over 40 real retail train tasks, 59 runs of many users
with one to three exchanged items, some reading the user's details on the way, and two tasks
that exchange the items of two orders (the family's write made twice, each run its own way).
Those two are too thin to compile a path of their own: the program ends with a route decision,
done or hand the rest to the fallback (``compiler/staticize/again.py``), so every run is
accounted for (matched, or handed to the fallback after matching writes), the held-out run is
served, and nothing is frozen (``frozen.py``, run on every package by ``conftest.py``).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_normalized, group_episodes, holdout_split, validate_package
from jdsl.compiler.stream import normalize_stream
from jdsl.demo.retail_styles import STYLES, style_runs
from jdsl.importers import import_tau_bench

FAMILY = "retail.exchange_delivered_order_items"


def _family(tmp: Path) -> tuple[Any, ...]:
    style = dataclasses.replace(STYLES["direct"], tasks_per_family=40)
    rows = [r for r in style_runs(style)
            if {a["name"] for a in r["info"]["task"]["actions"]} == {FAMILY.split(".")[1]}]  # fmt: skip
    path = tmp / "direct-exchange.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    episodes = list(normalize_stream(import_tau_bench(path).episodes))
    (name, members), *others = group_episodes(episodes, "intent")
    assert name == FAMILY and not others
    return tuple(members)


@pytest.mark.slow
def test_a_family_of_sixty_runs_verifies_and_serves_its_held_out_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    members = _family(tmp_path_factory.mktemp("large"))
    assert len(members) >= 30 and len({e.metadata.get("task_id") for e in members}) >= 30
    kept, held = holdout_split(list(members), 1)
    result = compile_normalized(kept, name=FAMILY)
    v = result.verification
    assert result.ok, result.report().text
    assert v.executed == len(kept) and v.matched + v.fallbacks == v.executed
    assert v.matched >= 0.9 * v.executed, result.report().text
    notes = result.report()["notes"]
    assert any("write again after the compiled path's last write" in n for n in notes), notes
    report = validate_package(result.package, held)
    assert report.refused == 0 and report.served + report.fallbacks == len(held)
    assert report.matched == report.served == 1, report.rows
