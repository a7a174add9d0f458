"""The tau-bench airline domain's initial state, for answering reads a recording lacks.

tau-bench resets its database before every task, so a lookup made before a run's first write
returns the record the shipped database (``tau_airline/db``: the users and reservations at the
benchmark revision the trajectories were recorded on) holds. :func:`initial_reads` answers
``get_user_details(user_id=...)`` and ``get_reservation_details(reservation_id=...)`` from it
(the rule is in :mod:`jdsl.compiler.lookups`; a key the shipped subset lacks stays unknown).
Every such read the shipped results file recorded before a write equals this answer
(``tests/envs/test_airline_reads.py`` checks it).
"""

from __future__ import annotations

from jdsl.compiler.lookups import ReadAnswers, initial_lookups
from jdsl.envs.data import load_json

__all__ = ["initial_reads"]


def initial_reads() -> ReadAnswers:
    """The airline lookups by id over the shipped database (:mod:`jdsl.compiler.lookups`)."""
    return initial_lookups(
        {
            "get_user_details": ("user_id", load_json("tau_airline", "db", "users.json")),
            "get_reservation_details": (
                "reservation_id",
                load_json("tau_airline", "db", "reservations.json"),
            ),
        }
    )
