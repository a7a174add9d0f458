"""Staticize: build Behavior IR from every accepted successful path of a family.

One pass in two steps:

* **plan** (families -> a program shape): :func:`jdsl.compiler.branches.plan_branches` picks
  the paths (loops over a list are one token, :mod:`.loops`) and
  :func:`jdsl.compiler.staticize.shape.plan_shape` makes them one program: shared calls, and a
  fork with one arm per way wherever the paths part, recursively;
* **emit** (:mod:`.emit`): the program is walked in order; each call (:mod:`.calls`: its
  decisions, guards, arguments and action; :mod:`.recovery`; :mod:`.looping`) and each fork
  returns a :class:`~jdsl.compiler.staticize.fragment.Fragment` of nodes and records, and the
  walk merges them into the :class:`~jdsl.compiler.compiled.CompiledBehavior`. No helper
  shares or changes another's state: each takes what is known where it emits
  (:class:`~jdsl.compiler.staticize.fragment.Here`) and returns what it made.

A fork becomes a selector at that point: each alternative starts with what selects it (the run
inputs it reads, the conditions the teacher evaluated there, or ``check route == ...`` after a
route decision asked there, reading the state known there).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jdsl.compiler.arguments import stable_key
from jdsl.compiler.branches import (
    MIN_BRANCH_SUPPORT,
    BranchPlan,
    Lane,
    plan_branches,
    read_only_of,
    successful_pool,
)
from jdsl.compiler.candidates import RECOVERY
from jdsl.compiler.compiled import CompiledBehavior
from jdsl.compiler.consolidate import Candidate
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.rejoin import choice_tokens, choice_tools
from jdsl.compiler.residualize import CompilerModel, as_compiler_model
from jdsl.compiler.staticize.again import again_fork, writing_again
from jdsl.compiler.staticize.emit import emit, hand_over_node, result
from jdsl.compiler.staticize.fragment import EMPTY, Evidence, Here
from jdsl.compiler.staticize.loops import LoopSpec, compress, family_loops
from jdsl.compiler.staticize.recovery import contested_notes
from jdsl.compiler.staticize.shape import plan_shape
from jdsl.compiler.store import episode_ids, heads, subset
from jdsl.package import ToolEffects

__all__ = ["Family", "emit_plan", "modal_skeleton", "plan_key", "prepare", "staticize"]


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
    hand_over: bool = False,
    same_writes: bool = False,
    unaccounted: Collection[str] = (),
    always: bool = False,
    rejoin: bool = True,
    peers: Sequence[NormEpisode] = (),
) -> CompiledBehavior:
    """Build the compiled behavior (IR, residual signatures, provenance) from the evidence.

    Args:
        episodes: normalized episodes.
        candidates: consolidated candidates of the same episodes.
        name: the root's name.
        model: a compiler model for residual wording (None: offline heuristics).
        effects: trusted capability effects; they decide how branch alternatives are selected.
        min_support: successful episodes a branch alternative needs.
        hand_over: where the paths part ways and none has ``min_support`` episodes, compile
            their common part and hand over to the fallback there (:func:`~jdsl.compiler.staticize.emit.hand_over_node`)
            instead of following the path with more writes; no episode is then served end to
            end (the compiled behavior's ``aligned`` is empty). Next to paths supported enough,
            a thinner path holding an ``unaccounted`` episode hands over where it parts from
            them (:mod:`jdsl.compiler.staticize.shape`).
        same_writes: where no path has ``min_support`` episodes, follow every path that makes
            the writes most episodes make, if those are ``min_support`` or more (they differ in
            reads only): a route decision where they part, which may also answer that none
            fits (the fallback takes over there).
        unaccounted: the episodes the program compiled without ``hand_over`` did not account
            for (neither matched nor handed to the fallback in verification).
        always: with ``hand_over``, the paths' common part and a hand-over where they part,
            whatever their support (:func:`~jdsl.compiler.branches.plan_branches`).
        rejoin: alternative lookups with the support are one choice token whose arms rejoin
            at once (:mod:`jdsl.compiler.rejoin`); False: each stays its own way.
        peers: successful runs of the corpus's other families: support for an alternative
            lookup the family took (:func:`jdsl.compiler.rejoin.choice_tokens`).
    """
    family = prepare(episodes, candidates, effects=effects, min_support=min_support,
                     rejoin=rejoin, peers=peers)  # fmt: skip
    plan = family.plan(hand_over=hand_over, same_writes=same_writes, unaccounted=unaccounted,
                       always=always)  # fmt: skip
    return emit_plan(family, plan, candidates, name=name, model=model)


@dataclass(frozen=True)
class Family:
    """What staticize knows of a family before it plans (the loops over lists, the accepted
    recoveries, the alternative lookups that rejoin): the same for every plan of it, so a
    compile that plans it more than once (:func:`jdsl.compiler.pipeline.compile_normalized`'s
    retries) works it out once (:func:`prepare`)."""

    episodes: Sequence[NormEpisode]
    read_only: Callable[[str], bool]
    min_support: int
    loops: tuple[LoopSpec, ...]
    recoveries: frozenset[tuple[str, str]]
    choices: Mapping[str, str]
    """``{tool: choice token}`` of the alternative lookups compiled as one (:mod:`jdsl.
    compiler.rejoin`); empty: none (planning with or without rejoining is the same)."""

    def tokens(self, episode: NormEpisode) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
        seq, positions, _ = compress(episode, self.loops)
        return tuple(self.choices.get(t, t) for t in seq), positions

    def plan(
        self, *, hand_over: bool = False, same_writes: bool = False,
        unaccounted: Collection[str] = (), always: bool = False,
    ) -> BranchPlan:  # fmt: skip
        """The paths it follows with those options (:func:`~jdsl.compiler.branches.
        plan_branches`); the program emitted from a plan depends on nothing else
        (:func:`plan_key`)."""
        return plan_branches(self.episodes, read_only=self.read_only,
                             min_support=self.min_support,
                             tokens=self.tokens if self.loops or self.choices else None,
                             hand_over=hand_over, same_writes=same_writes,
                             unaccounted=unaccounted, always=always)  # fmt: skip


def prepare(
    episodes: Sequence[NormEpisode],
    candidates: Sequence[Candidate],
    *,
    effects: Mapping[str, ToolEffects | Mapping[str, Any]] | None = None,
    min_support: int = MIN_BRANCH_SUPPORT,
    rejoin: bool = True,
    peers: Sequence[NormEpisode] = (),
) -> Family:
    """The :class:`Family` of ``episodes`` (the arguments as :func:`staticize`'s)."""
    read_only = read_only_of(effects)
    loops = family_loops(successful_pool(episodes), read_only=read_only)
    recoveries = frozenset((c.claim["on_error_of"], c.claim["recover_with"]) for c in candidates
                           if c.type == RECOVERY and c.accepted
                           and (c.contract_sources or len(c.support) >= min_support))  # fmt: skip
    found = choice_tokens(successful_pool(episodes), read_only, min_support, peers)
    choices = {  # a lookup recovering from another's failure is a recovery, not a choice
        tool: token for tool, token in found.items() if rejoin
        and not any({a, b} <= set(choice_tools(token)) for a, b in recoveries)
    }  # fmt: skip
    return Family(episodes, read_only, min_support, tuple(loops), recoveries, choices)


def plan_key(plan: BranchPlan) -> tuple[Any, ...]:
    """What of ``plan`` the emitted program depends on, by episode ids: two plans of one
    :class:`Family` with equal keys emit the same program."""

    def lane(x: Lane) -> tuple[Any, ...]:
        parts = tuple((tuple(episode_ids(eps)), ps) for eps, ps in x.parts)
        return (x.skeleton, tuple(episode_ids(x.episodes)), parts, x.loops)

    return (tuple(map(lane, plan.lanes)), tuple(map(lane, plan.thin)), plan.head, plan.tail,
            tuple(episode_ids(plan.aligned)), plan.notes, plan.selection,
            stable_key(plan.conditions), plan.hand_over, plan.same_writes)  # fmt: skip


def emit_plan(
    family: Family,
    plan: BranchPlan,
    candidates: Sequence[Candidate],
    *,
    name: str = "behavior",
    model: CompilerModel | Any = None,
) -> CompiledBehavior:
    """The compiled behavior of ``family`` following ``plan`` (:meth:`Family.plan`)."""
    episodes, read_only, tokens = family.episodes, family.read_only, family.tokens
    specs: dict[str, LoopSpec] = {spec.token: spec for spec in family.loops}
    recoveries, choices = family.recoveries, family.choices
    ev = Evidence(name, episodes, candidates, as_compiler_model(model), read_only, recoveries)
    contested = contested_notes(candidates)
    if not plan.lanes:
        return result(ev, EMPTY, (), plan.aligned, ("no successful episode to compile", *contested))
    notes = list(plan.notes)
    items, lanes = plan_shape(plan.lanes, read_only=read_only, notes=notes, recoveries=recoveries,
                              loops=specs, thin=plan.thin, routed=plan.same_writes,
                              choices={t: choice_tools(t) for t in choices.values()},
                              same_calls=ev.same_calls)  # fmt: skip
    if plan.hand_over is not None:  # the common part, then the fallback: no run is served
        pool = lanes[0].episodes
        program = emit(ev, items, pool, None)
        ways = len({tokens(e)[0] for e in pool})
        program += hand_over_node(program, plan.hand_over, ways, pool)
        made = result(ev, program, lanes[0].skeleton, pool, (*notes, *contested))
        return dataclasses.replace(made, aligned=())
    kept = {eid for lane in lanes for eid in lane.ids}
    aligned = subset(plan.aligned, [i for i, h in enumerate(heads(plan.aligned))
                                    if h.episode_id in kept])  # fmt: skip
    program = emit(ev, items, aligned, lanes[0], other=plan.same_writes)
    again = writing_again(successful_pool(episodes), lanes, kept, read_only)
    if again:  # runs that make a compiled path's writes, then more: the fallback's, at the end
        here = Here(scope=aligned, available=program.produced, inputs=program.inputs,
                    residual_keys=program.residual_keys, ids=program.ids)  # fmt: skip
        tools = [
            s.logical_tool for e in again for s in e.ok_steps() if not read_only(s.logical_tool)
        ]
        program += again_fork(here, again, tools)
    return result(ev, program, lanes[0].skeleton, aligned, (*notes, *contested))
