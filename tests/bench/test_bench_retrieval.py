"""Smoke test of the retrieval benchmark: it runs and reports what it says (no timing asserts)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import retrieval  # noqa: E402


def test_retrieval_rows_over_the_real_corpus() -> None:
    docs = retrieval.corpus()
    assert len(docs) == len({d.id for d in docs}) and len(docs) > 635
    rows = retrieval.measure(quick=True)
    assert [r.target for r in rows] == ["<= 0.5 s", "<= 10 ms", "<= 5 ms"]
    assert all(r.value is not None and r.value > 0 and r.met is not None for r in rows)
    assert rows[1].note == "50/50 queries find their own instruction first"
