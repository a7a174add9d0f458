"""Answers for reads a recording lacks: lookups in the state every run starts from.

Replay (:mod:`jdsl.compiler.replay`) answers a read with the recorded result of the same call
(same tool, same arguments) the episode made. A compiled program may look up something the
recorded agent never did (it took a payment id from the user's record where the agent took it
from the conversation), and then the record cannot say what the read returns: the run is
*unreplayable*, neither matched nor wrong. When every run of a domain starts from one known
database (tau-bench resets its database before each task), such a read has a sound answer as
long as nothing has changed that database yet: the record the database holds for that key.

The rule (:class:`jdsl.compiler.replay.ReplayTools` applies it):

* a read with a recorded identical call is answered from the record, as before;
* otherwise, **before the run's first write** (no write has been made, so the state is the
  initial one), a :data:`ReadAnswers` callable may answer it; it returns :data:`jdsl.expr.MISSING`
  when it does not know (another tool, other arguments, a key its table does not hold: a
  shipped database may be a subset, so an absent key is unknown, never "not found");
* after a write, or when it does not know, the read stays unreplayable.

Reads never decide whether a run matched: writes do. An answered read only lets the program
go on, so a program that reads the wrong record (a frozen id) is still caught at its write.

:func:`initial_lookups` builds the callable from lookup tables (``{tool: (argument, {key:
record})}``); a domain's tables come from its package (``jdsl.envs.tau_airline.initial_reads``
reads the shipped ``tau_airline/db``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from jdsl.expr import MISSING

__all__ = ["ReadAnswers", "initial_lookups"]

ReadAnswers = Callable[[str, Mapping[str, Any]], Any]
"""``(tool, arguments) -> result``, or :data:`jdsl.expr.MISSING` when it cannot answer."""


def initial_lookups(tables: Mapping[str, tuple[str, Mapping[str, Any]]]) -> ReadAnswers:
    """A :data:`ReadAnswers` over lookup tables: ``tool(argument=key)`` -> ``table[key]``.

    Args:
        tables: ``{tool: (argument, {key: record})}``, e.g. ``{"get_user_details": ("user_id",
            users)}``; a call with any other arguments, or a key the table lacks, is unknown.

    Example:
        >>> reads = initial_lookups({"get_user": ("user_id", {"u1": {"name": "Ann"}})})
        >>> reads("get_user", {"user_id": "u1"})
        {'name': 'Ann'}
        >>> reads("get_user", {"user_id": "u2"}) is MISSING
        True
    """

    def answer(tool: str, arguments: Mapping[str, Any]) -> Any:
        found = tables.get(tool)
        if found is None or set(arguments) != {found[0]}:
            return MISSING
        key = arguments[found[0]]
        if not isinstance(key, str) or key not in found[1]:
            return MISSING
        return copy.deepcopy(found[1][key])  # the program may not change the table

    return answer
