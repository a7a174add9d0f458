"""Run inputs and decisions say what they hold: two cancel calls whose reservation ids no
lineage explains are ``reservation_id`` and ``reservation_id_2``, never named after the step
positions of one run (``cancel_reservation_8_reservation_id``)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior
from jdsl.demo.retail_styles import style_runs
from jdsl.importers import import_tau_bench

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402

_POSITIONAL = re.compile(r"_\d+_")


def _two_cancels(i: int) -> dict[str, Any]:
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}"}, task_id=f"t{i}")
    b.call("get_user_details", {"name": f"user {i}"}, store="user", node_id="agent",
           node_type="react", user_id=f"u{i}")  # fmt: skip
    for k in range(2):
        b.call("cancel_reservation", {"ok": True}, node_id="agent", node_type="react",
               reservation_id=f"R{i}K{k}Q")  # fmt: skip
    return b.done(True)


def test_two_unexplained_ids_of_one_argument_are_numbered_not_positioned() -> None:
    result = compile_behavior([_two_cancels(i) for i in range(3)], name="cancel")
    cancels = [a for a in result.compiled.actions if a.tool == "cancel_reservation"]
    names = [str(c.source) for a in cancels for c in a.choices]
    assert names == ["reservation_id", "reservation_id_2"]
    assert not any(_POSITIONAL.search(n) for n in names)


@pytest.mark.slow
def test_an_input_is_numbered_only_against_values_stated_in_the_same_run(tmp_path: Path) -> None:
    """The imported retail cancel runs: a route that cancels one order reads ``order_id`` and
    ``reason`` (the names a user states), whatever the two-order route's second order is
    called; no caller could guess ``order_id_3`` / ``reason_3`` (fresh8 finding 8)."""
    path = tmp_path / "results.json"
    path.write_text(json.dumps(style_runs("direct")), encoding="utf-8")
    families = compile_behavior(import_tau_bench(path).episodes, name="", group_by="intent")
    inputs = set(families.results["retail.cancel_pending_order"].compiled.inputs)
    assert {"order_id", "reason", "order_id_2", "reason_2"} <= inputs
    assert not {"order_id_3", "reason_3"} & inputs, sorted(inputs)
