"""The hypothesis settings every fuzz target shares (see conftest.py for the budget)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("JDSL_FUZZ_EXAMPLES", "25"))
"""Examples per target: 25 in ``make test``, 10,000 in ``make fuzz``."""

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize="JDSL_FUZZ_EXAMPLES" not in os.environ,  # make test: the same cases every run
    suppress_health_check=list(HealthCheck),
)
