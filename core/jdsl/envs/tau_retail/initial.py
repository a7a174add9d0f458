"""The tau-bench retail domain's initial state, for answering reads a recording lacks.

tau-bench resets its database before every task, so a lookup made before a run's first write
returns the record the shipped database (``tau_retail/db``) holds. :func:`initial_reads`
answers ``get_user_details(user_id=...)``, ``get_order_details(order_id=...)`` and
``get_product_details(product_id=...)`` from it (the rule is in :mod:`jdsl.compiler.lookups`;
a key the database lacks stays unknown). ``jdsl import tau-bench`` records ``tau_retail`` as
every retail run's ``initial_state`` (``tests/envs/test_retail_reads.py`` checks the answers
equal what recorded runs read).
"""

from __future__ import annotations

from jdsl.compiler.lookups import ReadAnswers, initial_lookups
from jdsl.envs.data import load_json

__all__ = ["initial_reads"]


def initial_reads() -> ReadAnswers:
    """The retail lookups by id over the shipped database (:mod:`jdsl.compiler.lookups`)."""
    return initial_lookups(
        {
            "get_user_details": ("user_id", load_json("tau_retail", "db", "users.json")),
            "get_order_details": ("order_id", load_json("tau_retail", "db", "orders.json")),
            "get_product_details": ("product_id", load_json("tau_retail", "db", "products.json")),
        }
    )
