"""More runs of a family serve more, never fewer (issue 24): the terse retail corpus at 30
tasks per family, 3 trials (:func:`jdsl.demo.retail_styles.style_runs`), compiled by intent
with each family's last successful run held out.

The exchange and return families (74 successful runs each) compiled to a bare ``hand_over_0``
that served none of them: the program over their supported paths left runs it was compiled
from to the fallback, so it was not "accounted" (``compiler/verify.py``) and the pipeline's
retries (``compiler/pipeline.py``) took the last resort. Replay (``compiler/decisions.py``)
sent a run found by email down another route (the route's first call was the by-name lookup
of its identity selector), and a run that read ``orders[1]`` directly down a scan its prefix
guard refused; a leaf sharing its prompt with others got the answer of a leaf that never ran
(a residual ``item_indexes: list[int]`` answered ``0``). ``tests/compiler/
test_replay_answers.py`` pins each on a small program.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

import pytest
from jdsl.demo.retail_styles import style_runs


@cache
def _compiled() -> dict[str, str]:
    """``{family: its row of jdsl compile's table}`` (the CLI, as a user runs it; about 40 s)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "terse.json"
        path.write_text(json.dumps(style_runs("terse", tasks_per_family=30, trials=3)))
        jdsl = [sys.executable, "-m", "jdsl"]
        traces = str(Path(tmp) / "terse.jsonl")
        subprocess.run([*jdsl, "import", "tau-bench", str(path), "-o", traces], check=True,
                       capture_output=True)  # fmt: skip
        out = subprocess.run([*jdsl, "compile", traces, "--group-by", "intent", "--holdout", "1",
                              "-o", str(Path(tmp) / "out")], capture_output=True, text=True)  # fmt: skip
    return {line.split()[0]: line for line in out.stdout.splitlines() if line.startswith("retail.")}


@pytest.mark.slow
def test_the_cancel_and_modify_families_at_scale_verify() -> None:
    rows = _compiled()
    for family in ("retail.cancel_pending_order", "retail.modify_pending_order_items"):
        assert " passed " in rows[family] and rows[family].endswith(".jdsl"), rows[family]


@pytest.mark.slow
def test_every_family_at_scale_verifies() -> None:
    rows = _compiled()
    assert all(" failed " not in row for row in rows.values()), rows
