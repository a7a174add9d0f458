"""Selection: the conditions the teacher evaluated where its successful paths part ways.

At a branch point (the call position where the paths' own calls start) every episode recorded
the guards and checks it evaluated (``guard.evaluated``). A condition *selects* a path when it
gave the same result in every episode of that path; it *separates* two paths when both
evaluated it with different results. :func:`lane_conditions` returns, for every path, the guard
nodes that select it — each condition that separates it from some other path, as it held there
(negated when it was false) — provided every pair of paths is separated; otherwise None, and
the branch is selected by a residual route decision instead (:mod:`.branches`).

Because every pair of alternatives differs on a condition both evaluate, at most one
alternative's selection holds in any state: an alternative that fails after an effectful call
never falls through into another alternative's effects.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from jdsl.compiler.arguments import stable_key
from jdsl.compiler.guards import guard_node
from jdsl.compiler.normalized import NormEpisode

__all__ = ["arm_conditions", "lane_conditions", "negated"]

_SELECTING = ("guard", "check")


def _observed(episode: NormEpisode, head: int) -> dict[str, tuple[dict[str, Any], bool]] | None:
    """``{key: (claim, result)}`` of the conditions evaluated at ``head`` (a condition that gave
    two results in one episode is left out)."""
    found: dict[str, tuple[dict[str, Any], bool]] = {}
    mixed: set[str] = set()
    for g in episode.guards:
        if g.position != head or g.type not in _SELECTING or not isinstance(g.expression, dict):
            continue
        key = stable_key([g.type, g.expression])
        if key in found and found[key][1] != g.result:
            mixed.add(key)
        found[key] = ({"type": g.type, "expression": g.expression}, g.result)
    return {k: v for k, v in found.items() if k not in mixed}


def _consistent(
    where: Sequence[tuple[int, Sequence[NormEpisode]]],
) -> dict[str, tuple[dict[str, Any], bool]]:
    """The conditions every episode of a path evaluated where it parts ways (``(position,
    episodes)`` groups) with one same result."""
    per = [_observed(e, head) or {} for head, episodes in where for e in episodes]
    if not per:
        return {}
    first = per[0]
    return {k: v for k, v in first.items() if all(k in p and p[k][1] == v[1] for p in per[1:])}


def negated(claim: dict[str, Any]) -> dict[str, Any] | None:
    """The guard node that holds where the condition ``claim`` was false."""
    node = guard_node(claim)
    if node is None:
        return None
    if node["kind"] == "check":
        expression = {"eq": [{"ref": node["key"]}, {"const": node.get("equals")}]}
    else:
        expression = node["expression"]
    return {"kind": "guard", "expression": {"not": expression}}


def lane_conditions(
    lanes: Sequence[Sequence[NormEpisode]], head: int
) -> tuple[tuple[dict[str, Any], ...], ...] | None:
    """Per path (a group of episodes), the guard nodes that select it at call position
    ``head``; None when some pair of paths is not separated by an evaluated condition."""
    return arm_conditions([((head, episodes),) for episodes in lanes])


def arm_conditions(
    arms: Sequence[Sequence[tuple[int, Sequence[NormEpisode]]]],
) -> tuple[tuple[dict[str, Any], ...], ...] | None:
    """:func:`lane_conditions` where each path's episodes part ways at their own call
    positions (``(position, episodes)`` groups per path: a fork after paths of different
    lengths met again)."""
    seen = [_consistent(where) for where in arms]
    separating: list[dict[str, tuple[dict[str, Any], bool]]] = [{} for _ in arms]
    for a, b in combinations(range(len(arms)), 2):
        split = [k for k in seen[a] if k in seen[b] and seen[a][k][1] != seen[b][k][1]]
        if not split:
            return None
        for k in split:
            separating[a][k] = seen[a][k]
            separating[b][k] = seen[b][k]
    result = []
    for conditions in separating:
        nodes = []
        for key in sorted(conditions):
            claim, held = conditions[key]
            node = guard_node(claim) if held else negated(claim)
            if node is None:
                return None
            nodes.append(node)
        result.append(tuple(nodes))
    return tuple(result)
