"""The keyed reduce of consolidation: per-episode facts merged into one :class:`FactTable`.

The per-episode passes (read, hydrate, normalize, :func:`~jdsl.compiler.candidates.extract_facts`)
are a map; what consolidation needs of the episodes is two keyed tables, the facts grouped by
claim key and the applicability index (:class:`~jdsl.compiler.consolidate.Applicability`).
Tables of consecutive runs of episodes merge associatively, left before right, so a tree
reduction over shards (the Dask engine) gives the candidates :func:`consolidate` gives over
the same episodes in the same order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from jdsl.compiler.candidates import extract_facts
from jdsl.compiler.consolidate import (
    Applicability,
    Candidate,
    Contracts,
    FactGroups,
    add_facts,
    candidates_from,
)
from jdsl.compiler.normalized import NormEpisode

__all__ = ["FactTable", "merge_tables"]


@dataclass
class FactTable:
    """Facts by claim key and the applicability index of the episodes added so far.

    Attributes:
        groups: fact key -> (first fact, {episode id: outcome}).
        where: the applicability index.
        episodes: how many episodes were added.
    """

    groups: FactGroups = field(default_factory=dict)
    where: Applicability = field(default_factory=Applicability)
    episodes: int = 0

    @classmethod
    def of(cls, episodes: Iterable[NormEpisode]) -> FactTable:
        """The table of ``episodes``, in order."""
        table = cls()
        for episode in episodes:
            table.add(episode)
        return table

    def add(self, episode: NormEpisode) -> None:
        """Map one episode into the table (its facts and applicability keys)."""
        add_facts(self.groups, extract_facts(episode))
        self.where.add(episode)
        self.episodes += 1

    def merge(self, later: FactTable) -> FactTable:
        """Fold in the table of episodes that come after these; returns ``self``.

        A key's representative fact stays the earlier one; an episode id seen on both sides
        takes the later outcome, as one pass over all the episodes would.
        """
        for key, (fact, seen) in later.groups.items():
            entry = self.groups.setdefault(key, (fact, {}))
            entry[1].update(seen)
        self.where.merge(later.where)
        self.episodes += later.episodes
        return self

    def candidates(self, contracts: Contracts | None = None) -> list[Candidate]:
        """The graded candidates (what :func:`~jdsl.compiler.consolidate.consolidate` gives)."""
        return candidates_from(self.groups, self.where, contracts)


def merge_tables(*tables: FactTable) -> FactTable:
    """Tables of consecutive episode runs, merged in order into a new table (a reduce step)."""
    merged = FactTable()
    for table in tables:
        merged.merge(table)
    return merged
