"""Large tau-bench results files, to measure import -> compile -> validate at scale (issue #24).

- ``retail STYLE TRIALS OUT``: every retail train task :mod:`jdsl.demo.retail_styles` supports
  (354 over its four families), each run ``TRIALS`` times by the scripted ``STYLE`` agent;
- ``airline COPIES OUT``: the shipped gpt-4o airline results file, its runs repeated ``COPIES``
  times as further trials (trial numbers ``k * (max trial + 1) + trial``), the order of the
  copies' runs shuffled by a seeded ``random.Random``.

Nothing generated is committed: ``python -m bench.big_results retail small 3 /tmp/small3.json``
writes a file, then ``jdsl import tau-bench``, ``jdsl compile --group-by intent --holdout 1`` and
``jdsl package validate`` run on it as on any results file.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

__all__ = ["airline_copies", "retail_trials"]


def retail_trials(style: str, trials: int, tasks_per_family: int = 1000) -> list[dict[str, Any]]:
    """``trials`` runs of every supported task by ``style`` (all trial 0, then trial 1, ...)."""
    from jdsl.demo.retail_styles import style_runs

    return style_runs(style, tasks_per_family=tasks_per_family, trials=trials)


def airline_copies(copies: int) -> list[dict[str, Any]]:
    """The shipped airline runs repeated ``copies`` times as further trials of the same tasks."""
    from jdsl.demo.heldout_job import RAW_RESULTS
    from jdsl.envs.data import data_path

    rows = json.loads(data_path(*RAW_RESULTS).read_text())
    span = max(int(r.get("trial", 0)) for r in rows) + 1
    out = [
        {**row, "trial": k * span + int(row.get("trial", 0))} for k in range(copies) for row in rows
    ]
    random.Random(copies).shuffle(out)
    return out


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[0] == "retail":
        rows = retail_trials(argv[1], int(argv[2]))
    elif len(argv) == 3 and argv[0] == "airline":
        rows = airline_copies(int(argv[1]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    Path(argv[-1]).write_text(json.dumps(rows))
    print(f"{len(rows)} runs -> {argv[-1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
