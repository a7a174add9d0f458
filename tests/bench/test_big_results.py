"""The large results files of :mod:`bench.big_results` (issue 24's scale measurements)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from jdsl.demo.retail_styles import style_runs

from bench.big_results import airline_copies, main, retail_trials


def test_retail_trials_run_every_task_each_trial_in_run_py_order() -> None:
    rows = retail_trials("small", 2, tasks_per_family=1)
    assert [r["trial"] for r in rows] == [0] * 4 + [1] * 4
    assert Counter(r["task_id"] for r in rows) == {t: 2 for t in {r["task_id"] for r in rows}}
    assert style_runs("small", tasks_per_family=1) != rows  # the default keeps its second share


def test_airline_copies_are_further_trials_of_the_same_runs(tmp_path: Path) -> None:
    rows = airline_copies(2)
    assert len(rows) == 2 * 87
    assert len({(r["task_id"], r["trial"]) for r in rows}) == len(rows)
    out = tmp_path / "air.json"
    assert main(["airline", "1", str(out)]) == 0 and len(json.loads(out.read_text())) == 87
    assert main(["nonsense"]) == 2
