"""The values the emit step passes around: the evidence, what is known at a point, fragments.

Emitting a planned program (:mod:`jdsl.compiler.staticize.emit`) never shares a mutable
object between its helpers. Each helper takes the family's :class:`Evidence` (read-only), the
:class:`Here` of the point it emits at (what is known there: names available, ids taken, the
episodes in scope) and what it compiles, and returns a :class:`Fragment`: the nodes it adds
and the records they come with (residuals, actions, guards, provenance, branches, notes, run
inputs read). The emit step concatenates fragments (``a + b``) and moves ``Here`` past each
(:meth:`Here.after`). A helper that emits several things in turn builds its fragment with a
:class:`Build` of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from jdsl.compiler.arguments import StatedIndex
from jdsl.compiler.candidates import GUARD, RECOVERY, Fact
from jdsl.compiler.compiled import (
    GRADES,
    CompiledAction,
    CompiledBranch,
    CompiledGuard,
    NodeProvenance,
)
from jdsl.compiler.consolidate import Candidate
from jdsl.compiler.normalized import NormEpisode, NormStep
from jdsl.compiler.residualize import CompilerModel, Residual
from jdsl.compiler.store import SlotSteps, episode_ids, joined
from jdsl.compiler.support import SameCalls

__all__ = [
    "EMPTY", "Build", "Evidence", "Fragment", "Here", "Names", "Slot", "proof", "weakest",
]  # fmt: skip

Names = dict[tuple[Any, str], str]
"""``(slot key, argument) -> run input name`` for arguments that are run inputs."""

_EMPTY_SET: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Slot:
    """One compiled call: ``at`` pairs a call position with the episodes it has it in (the
    representative's group first); ``steps`` are those calls, the representative's first."""

    key: Any
    tool: str
    at: tuple[tuple[int, Sequence[NormEpisode]], ...]
    steps: SlotSteps

    @classmethod
    def of(cls, key: Any, tool: str, at: Sequence[tuple[int, Sequence[NormEpisode]]]) -> Slot:
        merged: dict[int, list[Sequence[NormEpisode]]] = {}
        for position, episodes in at:
            merged.setdefault(position, []).append(episodes)
        groups = tuple((p, joined(parts)) for p, parts in merged.items())
        return cls(key, tool, groups, SlotSteps(groups))

    @property
    def position(self) -> int:
        return self.at[0][0]

    def positions(self) -> dict[str, int]:
        return {eid: p for p, eps in self.at for eid in episode_ids(eps)}


class Evidence:
    """What the whole family says, read-only while its program is emitted: the episodes, the
    consolidated candidates (indexed), the compiler model and which tools are read-only."""

    def __init__(
        self,
        name: str,
        episodes: Sequence[NormEpisode],
        candidates: Sequence[Candidate],
        model: CompilerModel,
        read_only: Callable[[str], bool],
        recoveries: Collection[tuple[str, str]] | None = None,
    ) -> None:
        self.name = name
        self._episodes = episodes
        self._index = {eid: i for i, eid in enumerate(episode_ids(episodes))}
        self.stated = StatedIndex(episodes)
        self.same_calls = SameCalls(episodes, read_only)
        self._by_key = {Fact(c.type, c.claim, "", None).key: c for c in candidates}
        guard_index: dict[tuple[Any, Any], list[Candidate]] = {}
        for c in candidates:
            if c.type == GUARD:
                guard_index.setdefault((c.claim["position"], c.claim["before_tool"]), [])
                guard_index[(c.claim["position"], c.claim["before_tool"])].append(c)
        self.guard_index = guard_index
        self.recoveries = tuple(  # of the accepted ones, those the family compiles (``prepare``)
            c for c in candidates if c.type == RECOVERY and c.accepted and (
                recoveries is None or (c.claim["on_error_of"], c.claim["recover_with"]) in recoveries)
        )  # fmt: skip
        self.model = model
        self.read_only = read_only

    def candidate(self, type_: str, claim: dict[str, Any]) -> Candidate | None:
        return self._by_key.get(Fact(type_, claim, "", None).key)

    def peers(self, slot: Slot) -> list[NormStep]:
        """The call of ``slot`` in the family's runs outside it (:class:`SameCalls`)."""
        position, episodes = slot.at[0]
        ids = [eid for _, eps in slot.at for eid in episode_ids(eps)]
        return self.same_calls(ids[0], position, ids) if ids else []

    def episode(self, episode_id: str) -> NormEpisode | None:
        """The episode of that id (the last one when ids repeat), None when there is none."""
        i = self._index.get(episode_id)
        return None if i is None else self._episodes[i]


@dataclass(frozen=True)
class Fragment:
    """What one helper emitted: nodes in order and the records they come with.

    Attributes:
        nodes: IR nodes to append to the enclosing sequence.
        residuals / actions / guards / provenance / branches / notes: their records, in order.
        inputs: every run input read inside it; reads: those read on every path through it
            (a selector: what all its alternatives read).
        ids: node ids it took.
        produced: blackboard names available after it; residual_keys: those a model wrote.
        loop_items: ``for_each`` element names it bound (they outlive the loop).
    """

    nodes: tuple[dict[str, Any], ...] = ()
    residuals: tuple[Residual, ...] = ()
    actions: tuple[CompiledAction, ...] = ()
    guards: tuple[CompiledGuard, ...] = ()
    provenance: tuple[NodeProvenance, ...] = ()
    branches: tuple[CompiledBranch, ...] = ()
    notes: tuple[str, ...] = ()
    inputs: frozenset[str] = _EMPTY_SET
    reads: frozenset[str] = _EMPTY_SET
    ids: frozenset[str] = _EMPTY_SET
    produced: frozenset[str] = _EMPTY_SET
    residual_keys: frozenset[str] = _EMPTY_SET
    loop_items: frozenset[str] = _EMPTY_SET

    def __add__(self, other: Fragment) -> Fragment:
        """``self`` then ``other``."""
        if not self.nodes and self == EMPTY:
            return other
        if not other.nodes and other == EMPTY:
            return self
        return Fragment(
            self.nodes + other.nodes,
            self.residuals + other.residuals,
            self.actions + other.actions,
            self.guards + other.guards,
            self.provenance + other.provenance,
            self.branches + other.branches,
            self.notes + other.notes,
            _union(self.inputs, other.inputs),
            _union(self.reads, other.reads),
            _union(self.ids, other.ids),
            _union(self.produced, other.produced),
            _union(self.residual_keys, other.residual_keys),
            _union(self.loop_items, other.loop_items),
        )

    @classmethod
    def read(cls, name: str) -> Fragment:
        """A run input read here."""
        return cls(inputs=frozenset({name}), reads=frozenset({name}))


EMPTY = Fragment()


def _union(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    """``a | b`` without copying a set when the other is empty (most fragments add little)."""
    return a if not b else b if not a else a | b


@dataclass(frozen=True)
class Here:
    """What is known at a point of the program being emitted.

    Attributes:
        scope: the episodes whose calls are emitted here (a branch alternative: its own).
        sequence: the nodes already in the enclosing sequence.
        available: names written before this point; residual_keys: those a model wrote.
        inputs: every run input read so far (anywhere in the program).
        loop_items: ``for_each`` element names bound so far.
        ids: every node id taken so far.
        in_lane: inside a branch alternative.
    """

    scope: Sequence[NormEpisode]
    sequence: tuple[dict[str, Any], ...] = ()
    available: frozenset[str] = _EMPTY_SET
    residual_keys: frozenset[str] = _EMPTY_SET
    inputs: frozenset[str] = _EMPTY_SET
    loop_items: frozenset[str] = _EMPTY_SET
    ids: frozenset[str] = _EMPTY_SET
    in_lane: bool = False

    def after(self, fragment: Fragment) -> Here:
        """What is known once ``fragment`` has been emitted here."""
        return Here(
            self.scope,
            self.sequence + fragment.nodes,
            _union(self.available, fragment.produced),
            _union(self.residual_keys, fragment.residual_keys),
            _union(self.inputs, fragment.inputs),
            _union(self.loop_items, fragment.loop_items),
            _union(self.ids, fragment.ids),
            self.in_lane,
        )

    def unique(self, base: str) -> str:
        """``base``, or ``base_2``, ``base_3`` ... : the first id not taken."""
        candidate, n = base, 2
        while candidate in self.ids:
            candidate, n = f"{base}_{n}", n + 1
        return candidate

    def need(self, names: set[str]) -> Fragment:
        """Names a node reads: those not produced earlier are run inputs read here."""
        found = frozenset(names - self.available)
        return Fragment(inputs=found, reads=found)

    def shared_inputs(self) -> set[str]:
        """The run inputs every episode in scope had (what a residual may read)."""
        keys = [set(e.inputs) for e in self.scope]
        return set.intersection(*keys) if keys else set()


class Build:
    """One helper's own accumulator: the fragment it has emitted so far and where that leaves
    it (created, filled and returned as a :class:`Fragment` by the helper alone)."""

    def __init__(self, here: Here) -> None:
        self.here = here
        self.out = EMPTY

    def add(self, fragment: Fragment) -> None:
        self.out = self.out + fragment
        self.here = self.here.after(fragment)

    def id(self, base: str) -> str:
        """Take the first free id from ``base``."""
        node_id = self.here.unique(base)
        self.add(Fragment(ids=frozenset({node_id})))
        return node_id


def weakest(grades: Sequence[str]) -> str:
    """The weakest evidence grade of ``grades`` (``E0`` when there is none)."""
    return min(grades, key=GRADES.index) if grades else "E0"


def proof(node_id: str, kind: str, found: Sequence[Candidate | None], why: str) -> Fragment:
    """The provenance of ``node_id`` from the candidates ``found`` (None: none there)."""
    cands = [c for c in found if c is not None]
    record = NodeProvenance(
        node_id=node_id,
        kind=kind,
        evidence_grade=weakest([c.grade for c in cands]),
        candidates=tuple(dict.fromkeys(c.candidate_id for c in cands)),
        source_episodes=tuple(sorted({e for c in cands for e in c.support})),
        contract_sources=tuple(sorted({s for c in cands for s in c.contract_sources})),
        rationale=why,
    )
    return Fragment(provenance=(record,))
