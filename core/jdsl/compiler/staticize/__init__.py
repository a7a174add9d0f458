"""Staticize: build Behavior IR from every accepted successful path of a family.

One pass in two steps: *plan* (:func:`jdsl.compiler.branches.plan_branches` picks the paths,
:func:`jdsl.compiler.staticize.shape.plan_shape` makes them one program: shared calls, and a
fork with one arm per way wherever the paths part, recursively), then *emit*: the program is
walked in order and each call compiled (:class:`jdsl.compiler.emitter.Emitter`). For each
compiled call the emitter writes, in order:

1. the residual model decisions observed before that call (predict leaves);
2. guards the teacher evaluated there and that held in every episode the call replays;
3. ``exists(...)`` guards for every argument indexed by a residual decision, so an invalid
   model answer (an out-of-range index) fails cleanly before the tool is called;
4. the action, each argument chosen by :func:`jdsl.compiler.arguments.choose_argument`;
5. a recovery selector when accepted RECOVERY evidence exists for the tool
   (:mod:`jdsl.compiler.recovery`).

A fork becomes a selector at that point: each alternative starts with what selects it (the run
inputs it reads, the conditions the teacher evaluated there, or ``check route == ...`` after a
route decision asked there, reading the state known there).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from jdsl.compiler.arguments import input_names
from jdsl.compiler.branches import (
    MIN_BRANCH_SUPPORT,
    Lane,
    plan_branches,
    read_only_of,
    successful_pool,
)
from jdsl.compiler.candidates import RECOVERY
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
from jdsl.compiler.staticize.looping import emit_loop
from jdsl.compiler.staticize.loops import LoopSpec, compress, family_loops
from jdsl.compiler.staticize.shape import Call, Fork, Item, plan_shape
from jdsl.compiler.store import heads, subset
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
    loops = family_loops(successful_pool(episodes))
    specs: dict[str, LoopSpec] = {spec.token: spec for spec in loops}

    def tokens(episode: NormEpisode) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
        seq, positions, _ = compress(episode, loops)
        return seq, positions

    plan = plan_branches(episodes, read_only=read_only, min_support=min_support,
                         tokens=tokens if loops else None)  # fmt: skip
    if not plan.lanes:
        em = Emitter(name, episodes, plan.aligned, candidates, as_compiler_model(model), read_only)
        return em.result((), plan.aligned, ("no successful episode to compile",))
    notes = list(plan.notes)
    recoveries = {(c.claim["on_error_of"], c.claim["recover_with"]) for c in candidates
                  if c.type == RECOVERY and c.accepted}  # fmt: skip
    items, lanes = plan_shape(plan.lanes, read_only=read_only, notes=notes, recoveries=recoveries,
                              loops=specs)  # fmt: skip
    kept = {eid for lane in lanes for eid in lane.ids}
    aligned = subset(plan.aligned, [i for i, h in enumerate(heads(plan.aligned))
                                    if h.episode_id in kept])  # fmt: skip
    em = Emitter(name, episodes, aligned, candidates, as_compiler_model(model), read_only)
    walk = _Walk(em, items)
    walk.body(items, frozenset(), ends=lanes[0])
    return em.result(lanes[0].skeleton, aligned, tuple(notes))


class _Walk:
    """Emits a planned program: each call once, forks as selectors (module docstring)."""

    def __init__(self, em: Emitter, items: Sequence[Item]) -> None:
        self.em = em
        self.slots: dict[Any, Slot] = {}
        calls = [c for item in items for c in _calls(item)]
        for c in calls:
            self.slots[c.key] = Slot.of(c.key, c.tool, list(c.at))
        every = list(self.slots.values())
        self.names = input_names(
            (s.key, s.position, s.tool, arg, s.steps) for s in every
            for arg in s.steps[0].arguments
        )  # fmt: skip

    def body(self, items: Sequence[Item], skip: frozenset[str], ends: Lane | None) -> None:
        """``items`` in order (``skip``: decisions already emitted before the first); with
        ``ends``, the decisions its representative made after its last call follow."""
        em = self.em
        for n, item in enumerate(items):
            if isinstance(item, Call):
                slot = self.slots[item.key]
                found = [d for d in _decisions_at(item.at) if not (n == 0 and d.node_id in skip)]
                if item.loop is not None:
                    emit_loop(em, slot, self.names, found, item.loop)
                else:
                    em.call(slot, self.names, found, em.scope)
            else:
                self.fork(item, skip if n == 0 else frozenset())
        last_forks = bool(items) and isinstance(items[-1], Fork) and items[-1].arms[0].ends
        if ends is not None and not last_forks:  # a fork whose arms end emits them in each
            rep = ends.episodes[0]
            last = len(rep.ok_steps())
            em.decisions([d for d, q in _decision_positions(rep) if q >= last], em.scope)

    def fork(self, fork: Fork, skip: frozenset[str]) -> None:
        em = self.em
        firsts = [arm.strands[0] for arm in fork.arms]
        per_arm = [{d.node_id: d for d in _decisions_at(s.where())} for s in firsts]
        shared = [d for k, d in per_arm[0].items()
                  if k not in skip and all(k in p for p in per_arm[1:])]  # fmt: skip
        em.decisions(shared, em.scope)
        skip = skip | {d.node_id for d in shared}
        hosts = [s.where()[0][1][0].ok_steps()[s.where()[0][0]].host_tool for s in firsts]
        own = [[self.slots[c.key] for c in arm.body if isinstance(c, Call)] for arm in fork.arms]
        routes = route_names(own) if fork.selection == "route" else []
        key = em.route_decision(routes) if routes else None
        teacher_ir = firsts[0].lane.episodes[0].teacher_ir
        with em.branch(fork, teacher_ir, hosts) as branch:
            for k, (arm, slots) in enumerate(zip(fork.arms, own, strict=True)):
                with branch.alternative(arm.lane, slots):
                    base = f"{branch.node_id}_{k + 1}_when"
                    for node in fork.conditions[k] if fork.selection == "conditions" else ():
                        em.add_guard(slots[0], node, base, "select", [])
                    if key is not None:
                        em.route_check(key, routes[k][0], base)
                    self.body(arm.body, skip, arm.strands[0].lane if arm.ends else None)


def _calls(item: Item) -> list[Call]:
    if isinstance(item, Call):
        return [item]
    return [c for arm in item.arms for sub in arm.body for c in _calls(sub)]


def _decisions_at(at: Sequence[tuple[int, Sequence[NormEpisode]]]) -> list[ModelDecision]:
    """The decisions the representative (first episode of the first group) made right before
    its call at that position."""
    position, episodes = at[0]
    return [d for d, q in _decision_positions(episodes[0]) if q == position]


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
