"""``python -m jdsl.demo.styles_job --tasks-per-family N STYLE``: a styles corpus of another
size, measured as the demo measures the shipped ones (the 40-task corpora: N = 10)."""

from __future__ import annotations

import pytest
from jdsl.demo.retail_styles import style_runs
from jdsl.demo.styles_job import main


def test_a_corpus_of_one_task_per_family(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--tasks-per-family", "1", "direct"])
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    (direct,) = [row for row in rows if row[:1] == ["direct"]]
    runs = len(style_runs("direct", tasks_per_family=1))  # 4 tasks, some run twice
    assert direct[1:3] == ["tool-calling", str(runs)], direct
