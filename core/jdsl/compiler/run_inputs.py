"""Names of the run inputs a compiled program reads: what the user states, numbered only
where one run states two values under one name (issue 24: run inputs named as stated)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from jdsl.compiler.arguments import choose_argument
from jdsl.compiler.names import numbered
from jdsl.compiler.normalized import NormStep

__all__ = ["input_names"]

_FREE = "\0free"  # the source choose_argument gives an argument no step's state explains


def input_names(
    slots: Iterable[tuple[Any, Sequence[str], str, Sequence[NormStep]]],
) -> dict[tuple[Any, str], str]:
    """Names for arguments that may need a synthesized run input, per ``(slot key, argument)``.

    Each slot is ``(key, runs, argument, steps)``: ``key`` unique per compiled call, ``runs``
    the episode id of each of ``steps``. An argument is named what the user states (the bare
    argument name); ``<argument>_2``, ``<argument>_3``... only where one run states two
    distinct values under it, numbered in program order. Slots no run shares (two routes)
    or that hold the same value in every run they share take the same name: a route that
    cancels one order reads ``order_id``, whatever another route's second order is called.
    """
    free: list[tuple[Any, str, dict[str, Any]]] = []
    for key, runs, argument, steps in slots:
        choice = choose_argument(argument, steps, available=None, synthesized_input=_FREE)
        if choice.source == _FREE:
            values = {run: s.arguments.get(argument) for run, s in zip(runs, steps, strict=False)}
            free.append((key, argument, values))
    bare = {argument for _, argument, _ in free}
    names: dict[tuple[Any, str], str] = {}
    holds: dict[str, list[dict[str, Any]]] = {}  # name -> the values of the slots named so
    for key, argument, values in free:
        taken = {n for n, held in holds.items() if any(_clash(values, h) for h in held)}
        name = numbered(argument, bare - {argument} | taken)
        names[(key, argument)] = name
        holds.setdefault(name, []).append(values)
    return names


def _clash(values: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether some run holds a different value in each of two slots."""
    return any(run in other and other[run] != value for run, value in values.items())
