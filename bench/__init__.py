"""jdsl benchmarks: ``python bench/run.py [--quick]`` prints the table and writes bench/out/RESULTS.md.

One module per measured area (:mod:`bench.interpreter`, :mod:`bench.compiler`,
:mod:`bench.notebook`, :mod:`bench.imports`); :mod:`bench.timing` holds the timers,
:mod:`bench.table` the rows and their rendering, :mod:`bench.machine` the machine description.
Every figure is a median of several runs; a peer's figure comes from the same process run.
"""

__all__ = [
    "compiler",
    "corpora",
    "imports",
    "interpreter",
    "machine",
    "notebook",
    "table",
    "timing",
]
