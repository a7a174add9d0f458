"""Staticize: build Behavior IR from the modal successful skeleton and its branches.

The control skeleton is the most common tool sequence among successful episodes (ties go to
the first seen); the representative is the first episode with it. Other successful sequences
that part ways with it at one point become alternatives of a selector (:mod:`.branches`):
``seq(head..., sel(seq(selection, own calls...), ...), tail...)``, each alternative selected by
the run inputs it reads (read-only alternatives before a shared tail), the conditions the
teacher evaluated there, or a residual route decision emitted before the selector.
For each compiled call the compiler emits, in order (seeds/compiler-internals.md §5,
DESIGN.md §6):

1. the residual model decisions observed before that call (predict leaves);
2. guards the teacher evaluated there and that held in every episode the call replays;
3. ``exists(...)`` guards for every argument indexed by a residual decision, so an invalid
   model answer (an out-of-range index) fails cleanly before the tool is called;
4. the action, each argument chosen by :func:`jdsl.compiler.arguments.choose_argument`;
5. a recovery selector when accepted RECOVERY evidence exists for the tool
   (:mod:`.recovery`).

Each branch alternative starts with a guard that the run inputs its arguments read exist
(unless the teacher's own guard there says the same).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from jdsl.compiler.arguments import input_names
from jdsl.compiler.branches import (
    MIN_BRANCH_SUPPORT,
    BranchPlan,
    Lane,
    plan_branches,
    read_only_of,
    successful_pool,
)
from jdsl.compiler.compiled import (
    GRADES,
    BranchAlternative,
    CompiledAction,
    CompiledBehavior,
    CompiledBranch,
    CompiledGuard,
    NodeProvenance,
)
from jdsl.compiler.consolidate import Candidate
from jdsl.compiler.emitter import Emitter, Slot
from jdsl.compiler.normalized import ModelDecision, NormEpisode
from jdsl.compiler.residualize import CompilerModel, as_compiler_model
from jdsl.package import ToolEffects

__all__ = [
    "GRADES",
    "BranchAlternative",
    "CompiledAction",
    "CompiledBehavior",
    "CompiledBranch",
    "CompiledGuard",
    "NodeProvenance",
    "modal_skeleton",
    "staticize",
]

Placed = list[tuple[ModelDecision, int]]


def modal_skeleton(episodes: Sequence[NormEpisode]) -> tuple[tuple[str, ...], list[NormEpisode]]:
    """The most common tool sequence among successful episodes (or, when none is known to
    have succeeded, among those whose outcome is unknown; failed episodes never compile).

    Returns:
        ``(skeleton, episodes with it)``; ties are broken by first occurrence.
    """
    counts = Counter(e.tool_sequence() for e in successful_pool(episodes))
    if not counts:
        return (), []
    skeleton = counts.most_common(1)[0][0]
    return skeleton, [e for e in successful_pool(episodes) if e.tool_sequence() == skeleton]


def staticize(
    episodes: Sequence[NormEpisode],
    candidates: Sequence[Candidate],
    *,
    name: str = "behavior",
    model: CompilerModel | Any = None,
    effects: Mapping[str, ToolEffects | Mapping[str, Any]] | None = None,
    min_support: int = MIN_BRANCH_SUPPORT,
) -> CompiledBehavior:
    """Build the compiled behavior (IR, residual signatures, provenance) from the evidence.

    Args:
        episodes: normalized episodes.
        candidates: consolidated candidates of the same episodes.
        name: the root's name.
        model: a compiler model for residual wording (None: offline heuristics).
        effects: trusted capability effects; they decide how branch alternatives are selected.
        min_support: successful episodes a branch alternative needs.
    """
    read_only = read_only_of(effects)
    plan = plan_branches(episodes, read_only=read_only, min_support=min_support)
    em = Emitter(name, episodes, plan.aligned, candidates, as_compiler_model(model), read_only)
    if not plan.lanes:
        return em.result((), plan.aligned, ("no successful episode to compile",))
    main = plan.lanes[0]
    head = [_slot(-1, p, main.skeleton[p], [(p, lane) for lane in plan.lanes])
            for p in range(plan.head)]  # fmt: skip
    own = [[_slot(k, p, lane.skeleton[p], [(p, lane)]) for p in plan.own(lane)]
           for k, lane in enumerate(plan.lanes)]  # fmt: skip
    start = len(main.skeleton) - plan.tail
    tail = [
        _slot(-1, start + t, main.skeleton[start + t],
              [(len(lane.skeleton) - plan.tail + t, lane) for lane in plan.lanes])
        for t in range(plan.tail)
    ]  # fmt: skip
    every = head + [s for slots in own for s in slots] + tail
    names = input_names(
        (s.key, s.position, s.tool, arg, s.steps) for s in every for arg in s.steps[0].arguments
    )
    placed = _decision_positions(main.episodes[0])
    shared = _shared_decisions(plan) if plan.branched else []
    for slot in head:
        em.call(slot, names, [d for d, q in placed if q == slot.position], plan.aligned)
    em.decisions(shared, plan.aligned)
    if plan.branched:
        _emit_branch(em, plan, own, names, {d.node_id for d in shared})
    for slot in tail:
        em.call(slot, names, [d for d, q in placed if q == slot.position], plan.aligned)
    em.decisions([d for d, q in placed if q >= len(main.skeleton)], plan.aligned)
    return em.result(main.skeleton, plan.aligned, plan.notes)


def _slot(lane: int, position: int, tool: str, where: list[tuple[int, Lane]]) -> Slot:
    """A slot keyed ``(lane, position)`` (lane -1: shared by every lane)."""
    return Slot.of((lane, position), tool, [(p, lane_.episodes) for p, lane_ in where])


def _emit_branch(
    em: Emitter,
    plan: BranchPlan,
    own: list[list[Slot]],
    names: dict[tuple[Any, str], str],
    shared: set[str],
) -> None:
    """One selector over the plan's lanes, each lane's own calls and decisions inside it."""
    rep = plan.lanes[0].episodes[0]
    hosts = [lane.episodes[0].ok_steps()[plan.head].host_tool for lane in plan.lanes]
    routes = route_names(own) if plan.selection == "route" else []
    key = em.route_decision(routes) if routes else None
    with em.branch(plan, rep.teacher_ir, hosts) as branch:
        for k, (lane, slots) in enumerate(zip(plan.lanes, own, strict=True)):
            placed = [(d, q) for d, q in _decision_positions(lane.episodes[0])
                      if d.node_id not in shared]  # fmt: skip
            with branch.alternative(lane, slots):
                base = f"{branch.node_id}_{k + 1}_when"
                for node in plan.conditions[k] if plan.selection == "conditions" else ():
                    em.add_guard(slots[0], node, base, "select", [])
                if key is not None:
                    em.route_check(key, routes[k][0], base)
                for slot in slots:
                    ds = [d for d, q in placed if q == slot.position]
                    em.call(slot, names, ds, lane.episodes)


def route_names(own: Sequence[Sequence[Slot]]) -> list[tuple[str, str]]:
    """``(name, what it calls)`` per alternative: the last dotted part of its first own tool
    (``retail.cancel_pending_order`` -> ``cancel_pending_order``), made unique."""
    found: list[tuple[str, str]] = []
    for slots in own:
        base = slots[0].tool.rsplit(".", 1)[-1] if slots else "path"
        name, n = base, 2
        while name in {f for f, _ in found}:
            name, n = f"{base}_{n}", n + 1
        found.append((name, "calls " + " -> ".join(s.tool for s in slots)))
    return found


def _decision_positions(rep: NormEpisode) -> Placed:
    """Where each decision goes: a predict before the next call; a react's answer after the
    calls it made (its tool calls compile to actions)."""
    placed = []
    for d in rep.decisions:
        own = sum(1 for s in rep.ok_steps() if s.node_id == d.node_id)
        placed.append((d, d.position + own if d.kind == "react" else d.position))
    return placed


def _shared_decisions(plan: BranchPlan) -> list[ModelDecision]:
    """Decisions every lane's representative makes right before the branch (emitted once,
    before the selector)."""
    per_lane = [
        {d.node_id: d for d, q in _decision_positions(lane.episodes[0]) if q == plan.head}
        for lane in plan.lanes
    ]
    return [d for node_id, d in per_lane[0].items() if all(node_id in p for p in per_lane[1:])]
