"""The other runs of a family that make the same call (issue 24, "lineage that means it": a
source that does not hold in every run of the family is not a ref).

A path compiled from a single run (routed paths that make the same writes, thin arms:
:mod:`jdsl.compiler.staticize`) says nothing by itself about whether an argument equal to a
field of some object *is* that field. The family's other runs that make the same call do: the
same tool, after the same writes, as the same call of that tool since the last write, in a run
whose writes are the same. :class:`SameCalls` finds those calls; :func:`contradicted` tells
whether one of them has the same source path holding another value than the run passed
(:func:`jdsl.compiler.arguments.choose_argument` then falls back to the next source, a stated
input or a model choice).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from jdsl.compiler.normalized import NormEpisode, NormStep
from jdsl.errors import ValidationError
from jdsl.expr import MISSING, resolve_path

__all__ = ["SameCalls", "contradicted", "unlisted"]

_Key = tuple[tuple[str, ...], tuple[str, ...], str, int]
"""``(all the run's writes, the writes before the call, tool, its number since the last
write)``."""


def _keys(episode: NormEpisode, read_only: Callable[[str], bool]) -> list[_Key]:
    """The key of every successful call of ``episode``, by position."""
    steps = episode.ok_steps()
    writes = tuple(s.logical_tool for s in steps if not read_only(s.logical_tool))
    keys: list[_Key] = []
    before: list[str] = []
    since: dict[str, int] = {}
    for step in steps:
        tool = step.logical_tool
        keys.append((writes, tuple(before), tool, since.get(tool, 0)))
        since[tool] = since.get(tool, 0) + 1
        if not read_only(tool):
            before.append(tool)
            since = {}
    return keys


class SameCalls:
    """Per call of one run, the same call in the family's other successful runs (an index
    built on first use, in one pass over the runs)."""

    def __init__(self, episodes: Iterable[NormEpisode], read_only: Callable[[str], bool]) -> None:
        self._episodes = episodes
        self._read_only = read_only
        self._index: dict[_Key, list[tuple[str, NormStep]]] | None = None
        self._keys: dict[str, list[_Key]] = {}

    def _built(self) -> dict[_Key, list[tuple[str, NormStep]]]:
        if self._index is None:
            index: dict[_Key, list[tuple[str, NormStep]]] = {}
            for episode in self._episodes:
                if episode.success is False:
                    continue
                keys = _keys(episode, self._read_only)
                self._keys[episode.episode_id] = keys
                for key, step in zip(keys, episode.ok_steps(), strict=True):
                    index.setdefault(key, []).append((episode.episode_id, step))
            self._index = index
        return self._index

    def __call__(self, episode_id: str, position: int, exclude: Iterable[str]) -> list[NormStep]:
        """The calls matching the call at ``position`` of ``episode_id`` in the other runs
        (none of ``exclude``)."""
        index = self._built()
        keys = self._keys.get(episode_id)
        if keys is None or not 0 <= position < len(keys):
            return []
        skip = {episode_id, *exclude}
        return [step for eid, step in index.get(keys[position], ()) if eid not in skip]

    def instead(
        self, episode_id: str, position: int, tool: str, exclude: Iterable[str]
    ) -> list[NormStep]:
        """The calls of ``tool`` the other runs (none of ``exclude``) made where ``episode_id``
        made the call at ``position`` instead (a recovering call: where the runs whose call of
        ``tool`` worked made it), after the same writes."""
        index = self._built()
        keys = self._keys.get(episode_id)
        if keys is None or not 0 <= position < len(keys):
            return []
        writes, before, _, _ = keys[position]
        since = sum(1 for k in keys[:position] if k[1] == before and k[2] == tool)
        skip = {episode_id, *exclude}
        found = index.get((writes, before, tool, since), ())
        return [step for eid, step in found if eid not in skip]


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _held(path: str, argument: str, peers: Sequence[NormStep]) -> Iterator[tuple[NormStep, Any]]:
    """``(call, what path holds in its state)`` for each call of ``peers`` that passed
    ``argument`` and whose state the path is valid in (it may hold :data:`MISSING`)."""
    for step in peers:
        if argument not in step.arguments:
            continue
        try:
            held = resolve_path(path, step.state_before)
        except ValidationError:
            continue
        yield step, held


def contradicted(path: str, argument: str, peers: Sequence[NormStep]) -> bool:
    """Whether some call of ``peers`` has ``path`` in its state holding another value than
    the ``argument`` it passed (a path absent there says nothing).

    >>> from jdsl.compiler.normalized import NormStep
    >>> def call(cabin, other):
    ...     return NormStep(0, 0, "book", "book", {"cabin": cabin}, {}, {}, {},
    ...                     {"other": {"cabin": other}}, None, None, None)
    >>> contradicted("other.cabin", "cabin", [call("economy", "economy")])
    False
    >>> contradicted("other.cabin", "cabin", [call("economy", "business")])
    True
    >>> contradicted("user.cabin", "cabin", [call("economy", "business")])
    False
    """
    for step, held in _held(path, argument, peers):
        if held is not MISSING and _key(held) != _key(step.arguments[argument]):
            return True
    return False


def unlisted(template: str, argument: str, peers: Sequence[NormStep]) -> bool:
    """Whether some call of ``peers`` passed an ``argument`` that no element of the list
    ``template`` (``order.payment_history[*].payment_method_id``) holds in its state, where
    that list is there: a selection of that list does not hold in every run of the family
    (a payment method the order was never paid with). A list absent there says nothing.

    >>> from jdsl.compiler.normalized import NormStep
    >>> def call(paid, history):
    ...     state = {"order": {"payments": [{"id": h} for h in history]}}
    ...     return NormStep(0, 0, "pay", "pay", {"paid": paid}, {}, {}, {}, state, None, None, None)
    >>> unlisted("order.payments[*].id", "paid", [call("p1", ["p0", "p1"])])
    False
    >>> unlisted("order.payments[*].id", "paid", [call("p2", ["p0", "p1"])])
    True
    """
    head, _, tail = template.partition("[*]")
    for step, items in _held(head, argument, peers):
        if not isinstance(items, list) or not items:
            continue
        held = []
        for k in range(len(items)):
            try:
                held.append(resolve_path(f"{head}[{k}]{tail}", step.state_before))
            except ValidationError:
                continue
        if all(_key(h) != _key(step.arguments[argument]) for h in held):
            return True
    return False
