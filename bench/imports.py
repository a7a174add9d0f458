"""Import time of ``jdsl`` and ``jdsl_nb``, each in a fresh interpreter (median of several).

The figure is the time the ``import`` statement takes inside the child process (interpreter
start-up excluded), measured with ``time.perf_counter`` around it.
"""

from __future__ import annotations

import statistics
import subprocess
import sys

from bench.table import Row

__all__ = ["CASES", "import_seconds", "measure"]

SECTION = "imports"

# (statement, target in seconds or None, note)
CASES: tuple[tuple[str, float | None, str], ...] = (
    ("import jdsl", None, ""),
    ("import jdsl_nb", 0.3, "widgets, graphviz and pandas load on first use"),
    (
        "import jdsl_nb, jdsl_nb.hooks, jdsl_nb.magics",
        0.3,
        "what %load_ext jdsl_nb imports (IPython included; jdsl loads when a view is first shown)",
    ),
    ("from jdsl_nb import RunView", None, "first use of a widget"),
)

_PROBE = "import time; t = time.perf_counter(); {stmt}; print(time.perf_counter() - t)"


def import_seconds(statement: str, *, repeats: int) -> float:
    """Median seconds ``statement`` takes in ``repeats`` fresh interpreters.

    Raises:
        RuntimeError: when the statement fails in the child (its stderr is in the message).
    """
    samples = []
    for _ in range(max(repeats, 1)):
        done = subprocess.run(
            [sys.executable, "-c", _PROBE.format(stmt=statement)],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{statement!r} failed in a fresh interpreter:\n{done.stderr}")
        samples.append(float(done.stdout.strip().splitlines()[-1]))
    return statistics.median(samples)


def measure(*, quick: bool) -> list[Row]:
    """One row per statement of :data:`CASES` (3 fresh interpreters each, 7 in a full run)."""
    repeats = 3 if quick else 7
    rows = []
    for statement, target, note in CASES:
        seconds = import_seconds(statement, repeats=repeats)
        rows.append(
            Row(
                SECTION,
                f"`{statement}`",
                seconds,
                "s",
                target=None if target is None else f"< {target} s",
                met=None if target is None else seconds < target,
                note=(f"{note}; " if note else "") + f"median of {repeats} fresh interpreters",
            )
        )
    return rows
