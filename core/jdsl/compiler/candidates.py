"""Candidate facts: what one normalized episode shows, without generalizing across episodes.

Atom families (docs/design.md appendix B §3, plus GUARD from docs/design.md §6):

========== ==============================================================================
DATAFLOW   a tool argument is an exact copy of a prior state path (one fact per source)
CONTROL    one successful tool call immediately preceded another
ACTION     a successful call of a tool at a position of the skeleton
RECOVERY   a failed call was followed by a different successful tool
SEMANTIC   a model decision is visible in the trace
GUARD      a guard, check or guard_call (a trusted predicate) the teacher evaluated held right
           before a successful call
========== ==============================================================================
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from jdsl.compiler.names import error_class
from jdsl.compiler.normalized import NormEpisode

__all__ = [
    "ACTION",
    "ATOM_TYPES",
    "CONTROL",
    "DATAFLOW",
    "GUARD",
    "RECOVERY",
    "SEMANTIC",
    "Fact",
    "claim_text",
    "extract_facts",
]

_CLAIM_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode
"""``json.dumps(claim, sort_keys=True, separators=(",", ":"))`` with one encoder (json.dumps
builds a new one per call when given options)."""

DATAFLOW: Final = "DATAFLOW"
CONTROL: Final = "CONTROL"
ACTION: Final = "ACTION"
RECOVERY: Final = "RECOVERY"
SEMANTIC: Final = "SEMANTIC"
GUARD: Final = "GUARD"
ATOM_TYPES: Final = (DATAFLOW, CONTROL, ACTION, RECOVERY, SEMANTIC, GUARD)
_GUARD_TYPES: Final = ("guard", "check", "guard_call")


@dataclass(frozen=True)
class Fact:
    """One observation of one episode.

    Attributes:
        type: one of :data:`ATOM_TYPES`.
        claim: JSON-able claim, e.g. ``{"source": "customer.id", "tool": "list_orders",
            "argument": "customer_id", "position": 1}``.
        episode_id: the episode it was seen in.
        success: the episode's outcome (None when unknown).
    """

    type: str
    claim: dict[str, Any]
    episode_id: str
    success: bool | None

    @property
    def key(self) -> str:
        """Canonical identity of the claim (type + sorted JSON), equal across episodes."""
        return self.type + " " + _CLAIM_JSON(self.claim)


def claim_text(type_: str, claim: dict[str, Any]) -> str:
    """A readable claim, also the key ``contracts`` use.

    >>> claim_text("DATAFLOW", {"source": "customer.id", "tool": "list_orders",
    ...     "argument": "customer_id", "position": 1})
    'DATAFLOW customer.id -> list_orders.customer_id'
    """
    c = claim
    if type_ == DATAFLOW:
        body = f"{c['source']} -> {c['tool']}.{c['argument']}"
    elif type_ == CONTROL:
        body = f"{c['before']} -> {c['after']}"
    elif type_ == ACTION:
        body = f"{c['tool']}"
    elif type_ == RECOVERY:
        body = f"{c['on_error_of']} !{c['error_class']} -> {c['recover_with']}"
    elif type_ == SEMANTIC:
        body = f"{c['node_id']}: {c['signature']}"
    else:
        body = f"{json.dumps(c.get('expression'), sort_keys=True)} before {c.get('before_tool')}"
    return f"{type_} {body}"


def extract_facts(episode: NormEpisode) -> list[Fact]:
    """Every fact of one episode, in trace order (may repeat; consolidation counts once)."""
    facts: list[Fact] = []

    def add(type_: str, claim: dict[str, Any]) -> None:
        facts.append(Fact(type_, claim, episode.episode_id, episode.success))

    ok = episode.ok_steps()
    for step in ok:
        add(ACTION, {"tool": step.logical_tool, "position": step.position})
        for arg, paths in step.arg_sources.items():
            for path in paths:
                claim = {"source": path, "tool": step.logical_tool, "argument": arg}
                add(DATAFLOW, {**claim, "position": step.position})
    for before, after in zip(ok, ok[1:], strict=False):
        add(CONTROL, {"before": before.logical_tool, "after": after.logical_tool})
    for claim in _recoveries(episode):
        add(RECOVERY, claim)
    for decision in episode.decisions:
        claim = {"node_id": decision.node_id, "kind": decision.kind}
        add(SEMANTIC, {**claim, "signature": decision.signature, "position": decision.position})
    for guard in episode.guards:
        if guard.result and guard.type in _GUARD_TYPES and guard.position < len(ok):
            tool = ok[guard.position].logical_tool
            claim = {"type": guard.type, "expression": guard.expression, "before_tool": tool}
            add(GUARD, {**claim, "position": guard.position})
    return facts


def _recoveries(episode: NormEpisode) -> list[dict[str, Any]]:
    """A failed call followed (next successful call) by a different tool."""
    found: list[dict[str, Any]] = []
    steps = episode.steps
    for i, step in enumerate(steps):
        if step.ok:
            continue
        after = next((s for s in steps[i + 1 :] if s.ok), None)
        if after is not None and after.logical_tool != step.logical_tool:
            found.append(
                {
                    "on_error_of": step.logical_tool,
                    "error_class": error_class(step.error),
                    "recover_with": after.logical_tool,
                    "position": after.position,
                }
            )
    return found
