"""The retail initial-state lookups (``--initial-state tau_retail``, the name every imported
retail run records) answer what the recorded runs saw before any write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jdsl.commands.validate import INITIAL_STATES, initial_state
from jdsl.demo.retail_styles import style_runs
from jdsl.envs.tau_retail import initial_reads
from jdsl.expr import MISSING
from jdsl.importers import import_tau_bench

from tests.envs.recorded import compare_reads_before_writes


def test_the_name_the_importer_records_is_an_initial_state() -> None:
    assert "tau_retail" in INITIAL_STATES and initial_state("tau_retail") is not None


def test_an_unknown_order_is_not_answered() -> None:
    reads = initial_reads()
    assert reads("get_order_details", {"order_id": "#W0000000"}) is MISSING
    assert reads("find_user_id_by_email", {"email": "x@example.com"}) is MISSING


@pytest.mark.slow
def test_every_recorded_lookup_before_a_write_equals_the_answer(tmp_path: Path) -> None:
    path = tmp_path / "retail.json"
    path.write_text(json.dumps(style_runs("direct")), encoding="utf-8")
    reads = initial_reads()
    compared = compare_reads_before_writes(reads, import_tau_bench(str(path)).episodes)
    assert compared > 30
