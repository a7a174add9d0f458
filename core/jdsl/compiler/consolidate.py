"""Consolidate: group equal facts across episodes and grade the evidence for each.

Applicability (docs/design.md appendix B §4): a missing fact is a counterexample only in an
episode where the claim could have applied. Grades:

==== =========================================================================
E0   observed once (``proposed``), or contested with fewer than two supports
E1   two uncontested supports, or contested with two or more
E2   three or more uncontested supports
E3   contract-backed (``contracts`` names the claim)
E4   replay-verified (assigned later by :func:`jdsl.compiler.verify.promote`)
==== =========================================================================

Any counterexample makes a candidate ``contested``: it stays in reports but does not become
hard deterministic policy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jdsl.compiler.candidates import (
    ACTION,
    CONTROL,
    DATAFLOW,
    GUARD,
    RECOVERY,
    SEMANTIC,
    Fact,
    claim_text,
    extract_facts,
)
from jdsl.compiler.normalized import NormEpisode

__all__ = [
    "MIN_ACCEPTED_SUPPORT",
    "Candidate",
    "Contracts",
    "Applicability",
    "FactGroups",
    "add_facts",
    "candidates_from",
    "consolidate",
    "support_grade",
]

MIN_ACCEPTED_SUPPORT = 2
"""Supporting episodes an uncontested claim needs to be accepted (grade E1)."""

Contracts = Mapping[str, Sequence[str]]
"""Claim text (:func:`~jdsl.compiler.candidates.claim_text`) -> trusted source ids."""


@dataclass(frozen=True)
class Candidate:
    """A claim with its evidence across episodes.

    Attributes:
        candidate_id: ``cand_<type>_<NNN>``, numbered in claim order.
        type / claim / text: the fact type, its claim and readable text.
        support: episodes showing it (sorted ids); applicable: how many could have.
        counterexamples: applicable episodes that did not show it (sorted ids).
        success_support / fail_support: supporting episodes by outcome.
        grade: E0..E4; status: proposed | accepted | contested.
        contract_sources: trusted sources backing it (E3).
    """

    candidate_id: str
    type: str
    claim: dict[str, Any]
    text: str
    support: tuple[str, ...]
    applicable: int
    counterexamples: tuple[str, ...]
    success_support: int
    fail_support: int
    grade: str
    status: str
    contract_sources: tuple[str, ...] = field(default=())

    @property
    def accepted(self) -> bool:
        """Uncontested and graded E1 or better (or backed by a contract)."""
        return self.status == "accepted"

    def to_dict(self) -> dict[str, Any]:
        """JSON form (for provenance and reports)."""
        return {
            "candidate_id": self.candidate_id,
            "type": self.type,
            "claim": self.claim,
            "text": self.text,
            "evidence": {
                "support": len(self.support),
                "applicable": self.applicable,
                "counterexamples": len(self.counterexamples),
                "success_support": self.success_support,
                "fail_support": self.fail_support,
            },
            "grade": self.grade,
            "status": self.status,
            "contract_sources": list(self.contract_sources),
        }


class Applicability:
    """Inverted indexes: applicability key -> the episodes where a claim could apply."""

    def __init__(self, episodes: Iterable[NormEpisode] = ()) -> None:
        self.by_key: dict[tuple[Any, ...], set[str]] = {}
        for ep in episodes:
            self.add(ep)

    def add(self, ep: NormEpisode) -> None:
        """Index one more episode."""
        keys: set[tuple[Any, ...]] = set()
        for step in ep.steps:
            keys.add(("tool", step.logical_tool))
            if not step.ok:
                keys.add(("failed", step.logical_tool))
                continue
            keys.add(("slot", step.position, step.logical_tool))
            keys.update(("arg", step.position, step.logical_tool, a) for a in step.arguments)
        keys.update(("decision", d.node_id) for d in ep.decisions)
        for key in keys:
            self.by_key.setdefault(key, set()).add(ep.episode_id)

    def merge(self, other: Applicability) -> None:
        """Add the episodes ``other`` indexed (a keyed reduce step)."""
        for key, ids in other.by_key.items():
            self.by_key.setdefault(key, set()).update(ids)

    def episodes(self, type_: str, c: dict[str, Any]) -> set[str]:
        get = self.by_key.get
        if type_ == DATAFLOW:
            return get(("arg", c["position"], c["tool"], c["argument"]), set())
        if type_ == CONTROL:
            return get(("tool", c["before"]), set()) & get(("tool", c["after"]), set())
        if type_ == ACTION:
            return get(("tool", c["tool"]), set())
        if type_ == RECOVERY:
            return get(("failed", c["on_error_of"]), set())
        if type_ == SEMANTIC:
            return get(("decision", c["node_id"]), set())
        if type_ == GUARD:
            return get(("slot", c["position"], c["before_tool"]), set())
        return set()


def consolidate(
    episodes: Sequence[NormEpisode],
    *,
    contracts: Contracts | None = None,
    facts: Iterable[Fact] | None = None,
) -> list[Candidate]:
    """Group equal facts across ``episodes`` into graded :class:`Candidate` s.

    Args:
        episodes: normalized episodes.
        contracts: claim texts backed by trusted metadata (graded E3, accepted).
        facts: the facts to consolidate (default: :func:`extract_facts` of every episode).

    Returns:
        Candidates sorted by (type, claim key); ids ``cand_<type>_<NNN>`` follow that order.
    """
    if facts is None:
        facts = (fact for ep in episodes for fact in extract_facts(ep))
    groups: FactGroups = {}
    add_facts(groups, facts)
    return candidates_from(groups, Applicability(episodes), contracts)


FactGroups = dict[str, tuple[Fact, dict[str, bool | None]]]
"""Fact key -> (its first fact, {episode id: outcome} of every episode that showed it)."""


def add_facts(groups: FactGroups, facts: Iterable[Fact]) -> None:
    """Group ``facts`` into ``groups`` (the first fact of a key stays its representative)."""
    for fact in facts:
        entry = groups.setdefault(fact.key, (fact, {}))
        entry[1][fact.episode_id] = fact.success


def candidates_from(
    groups: FactGroups, where: Applicability, contracts: Contracts | None = None
) -> list[Candidate]:
    """The graded candidates of grouped facts (sorted by claim key; see :func:`consolidate`)."""
    contracts = contracts or {}
    found: list[Candidate] = []
    for number, key in enumerate(sorted(groups), start=1):
        first, seen = groups[key]
        found.append(_candidate(number, first, seen, where, contracts))
    return found


def _candidate(
    number: int,
    fact: Fact,
    seen: dict[str, bool | None],
    where: Applicability,
    contracts: Contracts,
) -> Candidate:
    support = tuple(sorted(seen))
    applicable = where.episodes(fact.type, fact.claim)
    counter = tuple(sorted(applicable.difference(seen)))
    text = claim_text(fact.type, fact.claim)
    sources = tuple(sorted(contracts.get(text, ())))
    grade, status = _grade(len(support), bool(counter), bool(sources))
    return Candidate(
        candidate_id=f"cand_{fact.type.lower()}_{number:03d}",
        type=fact.type,
        claim=fact.claim,
        text=text,
        support=support,
        applicable=len(applicable.union(seen)),
        counterexamples=counter,
        success_support=sum(1 for ok in seen.values() if ok),
        fail_support=sum(1 for ok in seen.values() if ok is False),
        grade=grade,
        status=status,
        contract_sources=sources,
    )


def support_grade(support: int) -> str:
    """The grade of an uncontested claim with ``support`` supporting episodes."""
    return _grade(support, False, False)[0]


def _grade(support: int, contested: bool, contract: bool) -> tuple[str, str]:
    if contract:
        return "E3", "accepted"
    if contested:
        return ("E1" if support >= MIN_ACCEPTED_SUPPORT else "E0"), "contested"
    if support > MIN_ACCEPTED_SUPPORT:
        return "E2", "accepted"
    if support == MIN_ACCEPTED_SUPPORT:
        return "E1", "accepted"
    return "E0", "proposed"
