"""Branches: which successful paths of a family the compiled program follows.

The compiled program starts from the modal successful tool sequence. Another successful
sequence becomes a path of it, instead of staying a counterexample, when (checked in order of
support, most first):

* it has at least ``min_support`` successful episodes (default :data:`MIN_BRANCH_SUPPORT`,
  the support at which consolidation accepts an uncontested claim, grade E1); thinner paths
  are reported and left out;
* it does not part ways with the modal path only after a failed call of the modal path's tool
  there (that is a recovery, compiled by :mod:`jdsl.compiler.staticize.recovery`, not a choice).

Where the accepted paths part ways and meet again, and how each alternative is selected
(``inputs``, ``conditions``, ``route``), is the program shape
(:mod:`jdsl.compiler.staticize.shape`). An effectful alternative is never reachable without a
guard or a decision that selects it, and selection guards are mutually exclusive, so an
alternative that fails after an effectful call never falls through into another's effects.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from jdsl.compiler.consolidate import MIN_ACCEPTED_SUPPORT
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.store import episode_ids, heads, joined, subset
from jdsl.ir.walk import child_slots
from jdsl.package import ToolEffects, default_effects

__all__ = [
    "MAX_ALTERNATIVE_CANDIDATES",
    "MIN_BRANCH_SUPPORT",
    "BranchPlan",
    "Lane",
    "plan_branches",
    "read_only_of",
    "successful_pool",
    "teacher_selector",
    "write_tokens",
]

MIN_BRANCH_SUPPORT: Final = MIN_ACCEPTED_SUPPORT
"""Successful episodes an alternative needs (consolidation's E1 support)."""
MAX_ALTERNATIVE_CANDIDATES: Final = 16
"""How many of the most supported other sequences are examined (keeps compiling linear)."""


@dataclass(frozen=True)
class Lane:
    """One successful tool sequence the compiled behavior follows, with its episodes.

    ``parts``: when the sequence is compressed (a loop is one token,
    :mod:`jdsl.compiler.staticize.loops`), per group of its episodes the call positions each
    token stands for; empty: token ``t`` is call ``t`` in every episode. ``loops``: for a
    lane of calls one by one (a thin path, :attr:`BranchPlan.thin`), ``(call position, loop
    token, calls)`` where its calls are one loop's."""

    skeleton: tuple[str, ...]
    episodes: Sequence[NormEpisode]
    parts: tuple[tuple[Sequence[NormEpisode], tuple[tuple[int, ...], ...]], ...] = ()
    loops: tuple[tuple[int, str, int], ...] = ()

    def where(self, t: int) -> tuple[tuple[int, Sequence[NormEpisode]], ...]:
        """``(call position, episodes)`` of token ``t`` (a loop: one per element)."""
        if not self.parts:
            return ((t, self.episodes),)
        return tuple((p, eps) for eps, positions in self.parts for p in positions[t])

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(e.episode_id for e in self.episodes)


@dataclass(frozen=True)
class BranchPlan:
    """What staticize follows.

    Attributes:
        lanes: the modal lane first, then accepted alternatives by support (empty: nothing
            succeeded). One lane means no branch.
        head / tail: how many leading / trailing calls every lane shares (one lane: ``head``
            is its length and ``tail`` 0).
        aligned: every lane's episodes, in input order.
        notes: why other successful sequences were not compiled.
        selection: how alternatives are selected: ``inputs``, ``conditions`` or ``route``
            (module docstring); ``""`` without a branch.
        conditions: with ``conditions``, per lane the guard nodes that select it.
        hand_over: with ``hand_over`` planning and no path supported enough to branch, how many
            calls every path shares: the one lane is that common part, the program hands over
            to the family's fallback after it, and no episode is served end to end (``aligned``
            is empty); else None.
        same_writes: the lanes are paths too thin to branch on their own that make the same
            writes, together supported enough (:func:`plan_branches`): where they part, the
            route decision may also answer that none fits (the run goes to the fallback).
        thin: with ``hand_over`` planning, the paths too thin to branch that hold a run the
            program without them could not account for: each hands over to the fallback where
            it parts from the compiled paths (:mod:`jdsl.compiler.staticize.shape`); their
            episodes are not in ``aligned``.
    """

    lanes: tuple[Lane, ...]
    head: int
    tail: int
    aligned: Sequence[NormEpisode]
    notes: tuple[str, ...] = ()
    selection: str = ""
    conditions: tuple[tuple[dict[str, Any], ...], ...] = ()
    hand_over: int | None = None
    same_writes: bool = False
    thin: tuple[Lane, ...] = ()

    @property
    def branched(self) -> bool:
        return len(self.lanes) > 1

    def own(self, lane: Lane) -> range:
        """The positions of ``lane``'s own calls (between the shared head and tail)."""
        return range(self.head, len(lane.skeleton) - self.tail)


def successful_pool(episodes: Sequence[NormEpisode]) -> Sequence[NormEpisode]:
    """Episodes known to have succeeded, else (none known) those with an unknown outcome
    (a :class:`~jdsl.compiler.store.NormStore` of a store's episodes)."""
    succeeded: list[int] = []
    unknown: list[int] = []
    for i, head in enumerate(heads(episodes)):
        if head.success:
            succeeded.append(i)
        elif head.success is None:
            unknown.append(i)
    return subset(episodes, succeeded or unknown)


def read_only_of(
    effects: Mapping[str, ToolEffects | Mapping[str, Any]] | None,
) -> Callable[[str], bool]:
    """``tool -> read-only?`` from trusted ``effects``, else :func:`default_effects`."""
    given = effects or {}

    def read_only(tool: str) -> bool:
        found = given.get(tool)
        return (ToolEffects.of(found) if found is not None else default_effects(tool)).read_only

    return read_only


def plan_branches(
    episodes: Sequence[NormEpisode],
    *,
    read_only: Callable[[str], bool],
    min_support: int = MIN_BRANCH_SUPPORT,
    tokens: Callable[[NormEpisode], tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]]
    | None = None,
    hand_over: bool = False,
    same_writes: bool = False,
    unaccounted: Collection[str] = (),
    always: bool = False,
) -> BranchPlan:
    """Group successful episodes by tool sequence and accept the branchable alternatives.

    Args:
        episodes: normalized episodes (failed ones never compile).
        read_only: whether a capability is read-only (see :func:`read_only_of`).
        min_support: successful episodes an alternative needs (at least 1).
        hand_over: where the paths part ways and none has ``min_support`` episodes, plan their
            common part only, to hand over to the fallback where they part
            (:attr:`BranchPlan.hand_over`), instead of following the path with more writes;
            and next to supported paths, plan each thinner path that holds an ``unaccounted``
            episode as a way that hands over where it parts (:attr:`BranchPlan.thin`).
        same_writes: where no path has ``min_support`` episodes, follow every path that makes
            the writes most episodes make, when those are ``min_support`` or more
            (:attr:`BranchPlan.same_writes`), instead of the path with more writes.
        unaccounted: the ids of the episodes the program planned without ``hand_over`` did not
            account for (verification: neither matched nor handed to the fallback).
        always: with ``hand_over``, plan the paths' common part whatever their support (the
            last resort when the supported paths' program does not pass verification).

    Raises:
        ValueError: ``min_support`` below 1.
    """
    if min_support < 1:
        raise ValueError(f"min_support must be at least 1, got {min_support}")
    pool = successful_pool(episodes)
    groups: dict[tuple[str, ...], list[int]] = {}
    parts: dict[tuple[str, ...], dict[tuple[tuple[int, ...], ...], list[int]]] = {}
    for i, episode in enumerate(pool):
        if tokens is None:
            groups.setdefault(episode.tool_sequence(), []).append(i)
            continue
        seq, positions = tokens(episode)
        groups.setdefault(seq, []).append(i)
        parts.setdefault(seq, {}).setdefault(positions, []).append(i)
    ranked = sorted(groups, key=lambda s: -len(groups[s]))  # stable: first seen wins ties
    if not ranked:
        return BranchPlan((), 0, 0, ())
    top = len(groups[ranked[0]])
    if same_writes and not hand_over and top < min_support and len(ranked) > 1:
        writes = _same_writes(ranked, groups, read_only, min_support)
        if writes:
            lanes = [_lane(pool, s, groups, parts) for s in writes]
            head, tail = _shared(lanes)
            aligned = subset(pool, sorted(i for s in writes for i in groups[s]))
            note = (
                f"{len(writes)} successful paths too thin to branch alone (fewer than "
                f"{min_support} episodes each) make the same writes in "
                f"{sum(len(groups[s]) for s in writes)} episodes: they are compiled as one "
                "family of paths, a route decision where they part (or the fallback when none fits)"
            )
            return BranchPlan(tuple(lanes), head, tail, aligned, (note,), same_writes=True)
    if hand_over and (top < min_support or always) and len(ranked) > 1:
        return _common_part(pool, ranked, groups, parts if tokens is not None else None,
                            min_support)  # fmt: skip
    if top < min_support:  # no other path can be branched: of the tied ones, compile the one
        # with the most writes (the others' writes may be its prefix; a path with fewer writes
        # would end the longer run with its writes unmade); a loop token ``for_each head: tool``
        # counts as its tool, the last word
        best = max((s for s in ranked if len(groups[s]) == top),
                   key=lambda s: sum(not read_only(t.split()[-1]) for t in s))  # fmt: skip
        ranked.remove(best)
        ranked.insert(0, best)

    def lane_of(seq: tuple[str, ...]) -> Lane:
        return _lane(pool, seq, groups, parts)

    lanes = [lane_of(ranked[0])]
    notes: list[str] = []
    for skeleton in ranked[1 : 1 + MAX_ALTERNATIVE_CANDIDATES]:
        lane = lane_of(skeleton)
        if len(lane.episodes) < min_support:
            break  # ranked by support: every later sequence has too few episodes as well
        problem = _problem([lanes[0], lane])
        if problem is None:
            lanes.append(lane)
        else:
            notes.append(
                f"path {' -> '.join(skeleton)} ({len(lane.episodes)} successful episodes) "
                f"not branched: {problem}; its episodes stay counterexamples"
            )
    thin = _thin(ranked, groups, parts, lanes, min_support,
                 set(unaccounted) if hand_over else set(), pool, notes)  # fmt: skip
    rest = sum(1 for s in ranked[1:] if s not in {lane.skeleton for lane in lanes}) - len(notes)
    if rest:
        notes.append(
            f"{rest} other successful path(s) not compiled (fewer than {min_support} episodes "
            "each, or beyond those examined; see --min-support); they stay counterexamples"
        )
    head, tail = _shared(lanes)
    aligned = subset(pool, sorted(i for lane in lanes for i in groups[lane.skeleton]))
    return BranchPlan(tuple(lanes), head, tail, aligned, tuple(notes), thin=thin)


def _thin(
    ranked: Sequence[tuple[str, ...]], groups: Mapping[tuple[str, ...], list[int]],
    parts: Mapping[tuple[str, ...], Mapping[tuple[tuple[int, ...], ...], list[int]]],
    lanes: Sequence[Lane], min_support: int, unaccounted: set[str], pool: Sequence[NormEpisode],
    notes: list[str],
) -> tuple[Lane, ...]:  # fmt: skip
    """The paths below ``min_support`` holding an ``unaccounted`` episode (reported in
    ``notes``): each hands over to the fallback where it parts from the compiled paths. Their
    lanes are their episodes' tool sequences, call by call (no loop is one token: where a
    thin path parts is a call)."""
    if not unaccounted or not lanes:
        return ()
    found: dict[tuple[tuple[str, ...], tuple[tuple[int, str, int], ...]], list[int]] = {}
    for skeleton in ranked:
        ids = set(episode_ids(subset(pool, groups[skeleton])))
        if len(groups[skeleton]) >= min_support or not ids & unaccounted:
            continue
        for positions, ix in (parts.get(skeleton) or {(): groups[skeleton]}).items():
            for i in ix:
                calls = pool[i].tool_sequence()
                spans = positions or ((),) * len(skeleton)  # no loops: no positions
                loops = tuple((at[0], token, len(at)) for token, at in zip(skeleton, spans,
                              strict=True) if at and token != calls[at[0]])  # fmt: skip
                found.setdefault((calls, loops), []).append(i)
        notes.append(
            f"path {' -> '.join(skeleton)} ({len(groups[skeleton])} successful episodes) "
            f"not compiled (fewer than {min_support} episodes) and not served by the compiled "
            "paths: it hands over to the fallback where it parts from them"
        )
    return tuple(Lane(seq, subset(pool, ix), loops=loops) for (seq, loops), ix in found.items())


def _lane(
    pool: Sequence[NormEpisode],
    seq: tuple[str, ...],
    groups: Mapping[tuple[str, ...], list[int]],
    parts: Mapping[tuple[str, ...], Mapping[tuple[tuple[int, ...], ...], list[int]]],
) -> Lane:
    """The lane of ``seq``: its episodes, and per group the positions of its loop tokens."""
    found = parts.get(seq)
    if not found or all(len(p) == 1 for ps in found for p in ps):
        return Lane(seq, subset(pool, groups[seq]))
    split = tuple((subset(pool, ix), ps) for ps, ix in found.items())
    return Lane(seq, joined([eps for eps, _ in split]), split)


def write_tokens(seq: Sequence[str], read_only: Callable[[str], bool]) -> tuple[str, ...]:
    """The write tokens of a (compressed) tool sequence, in order: its reads left out, and a
    loop token repeated with only reads between counted once (one loop over selected elements
    split by lookups); a plain write repeated stays repeated (five updates are not one)."""
    found: list[str] = []
    for token in seq:
        if read_only(token.split()[-1]):
            continue
        if not (found and found[-1] == token and token.startswith("for_each ")):
            found.append(token)
    return tuple(found)


def _same_writes(
    ranked: Sequence[tuple[str, ...]],
    groups: Mapping[tuple[str, ...], list[int]],
    read_only: Callable[[str], bool],
    min_support: int,
) -> list[tuple[str, ...]]:
    """The paths (every one too thin to branch alone) that make the writes most episodes make,
    when those episodes are at least ``min_support`` and take two or more paths: they differ in
    reads only (issue 24: reads do not split a family). Empty when no writes have the support."""
    support: dict[tuple[str, ...], int] = {}
    for seq in ranked:
        key = write_tokens(seq, read_only)
        support[key] = support.get(key, 0) + len(groups[seq])
    best = max(support, key=lambda k: support[k])  # ties: the first seen (most supported path)
    if support[best] < min_support:
        return []
    return [seq for seq in ranked if write_tokens(seq, read_only) == best]


def _common_part(
    pool: Sequence[NormEpisode],
    ranked: Sequence[tuple[str, ...]],
    groups: Mapping[tuple[str, ...], list[int]],
    parts: Mapping[tuple[str, ...], Mapping[tuple[tuple[int, ...], ...], list[int]]] | None,
    min_support: int,
) -> BranchPlan:
    """The plan of the calls every path makes before they part (:attr:`BranchPlan.hand_over`)."""
    n = 0
    while all(len(s) > n for s in ranked) and len({s[n] for s in ranked}) == 1:
        n += 1
    common = ranked[0][:n]
    if parts is None:
        lane = Lane(common, pool)
    else:
        split = tuple((subset(pool, ix), positions[:n]) for seq in ranked
                      for positions, ix in parts[seq].items())  # fmt: skip
        lane = Lane(common, joined([eps for eps, _ in split]), split)
    if max(len(groups[s]) for s in ranked) < min_support:
        why = f"none with {min_support} episodes (see --min-support)"
    else:  # the last resort (``always``): the supported paths' program did not verify
        why = "the program following the supported ones did not pass verification"
    note = (
        f"{len(ranked)} successful paths part ways after {n} shared call(s), {why}, and "
        "following one leaves runs whose record cannot answer what it asks: the program "
        "makes the shared calls and hands over to the fallback where they part"
    )
    return BranchPlan((lane,), n, 0, subset(pool, []), (note,), hand_over=n)


def _shared(lanes: Sequence[Lane]) -> tuple[int, int]:
    """Shared head and tail lengths (one lane: all head)."""
    skeletons = [lane.skeleton for lane in lanes]
    if len(skeletons) == 1:
        return len(skeletons[0]), 0
    shortest = min(len(s) for s in skeletons)
    head = 0
    while head < shortest and len({s[head] for s in skeletons}) == 1:
        head += 1
    tail = 0
    while tail < shortest - head and len({s[len(s) - 1 - tail] for s in skeletons}) == 1:
        tail += 1
    return head, tail


def _problem(lanes: Sequence[Lane]) -> str | None:
    """Why the second of ``lanes`` (modal, other) cannot be an alternative, or None: it parts
    ways with the modal path only after a failed call of the modal path's tool there (a
    recovery, not a choice). Where paths meet again and how they are selected is the program
    shape's (:mod:`jdsl.compiler.staticize.shape`)."""
    head, _ = _shared(lanes)
    modal = lanes[0].skeleton
    if any(lane.parts for lane in lanes):
        return None  # loops: positions differ per episode (no recovery check)
    if head < len(modal) and _recovers_from(lanes[-1], head, modal[head]):
        return (
            f"every episode takes it after a failed {modal[head]} call (a recovery, not a choice)"
        )
    return None


def _recovers_from(lane: Lane, position: int, tool: str) -> bool:
    """Whether every episode of ``lane`` made a failed ``tool`` call right before its
    successful call at ``position``."""
    for episode in lane.episodes:
        ok = episode.ok_steps()
        if position >= len(ok):
            return False
        start = ok[position - 1].index + 1 if position else 0
        between = episode.steps[start : ok[position].index]
        if not any(s.logical_tool == tool for s in between):
            return False
    return True


def teacher_selector(teacher_ir: Mapping[str, Any] | None, host_tools: Sequence[str]) -> str | None:
    """The id of the deepest teacher selector whose subtree calls every one of ``host_tools``.

    Returns ``""`` for such a selector without an author id, None when there is none (imported
    traces carry no teacher tree; a branch never requires one).
    """
    found: str | None = None
    wanted = set(host_tools)

    def visit(node: Any) -> set[str]:
        nonlocal found
        if not isinstance(node, dict):
            return set()
        tools = {str(node["tool"])} if node.get("kind") == "action" and "tool" in node else set()
        for child in child_slots(node):
            tools |= visit(child)
        if node.get("kind") == "selector" and wanted <= tools and found is None:
            found = str(node.get("id") or "")
        return tools

    visit(teacher_ir)
    return found
