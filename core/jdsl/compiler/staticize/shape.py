"""The program shape: every accepted successful path of a family as one tree of calls and forks.

A *strand* is one accepted path (a :class:`~jdsl.compiler.branches.Lane`: a tool sequence and
its episodes) read from an offset. :func:`plan_shape` walks the strands together:

* a call every strand makes next is a :class:`Call` (a compiled call slot, with each strand's
  position of it in its episodes);
* where strands part ways (their next calls differ) a :class:`Fork` opens *at that point*, one
  :class:`Arm` per next call, most supported first. When the arms meet again (each arm's own
  calls are followed by the same set of remaining paths) the arms hold only their own calls and
  the walk continues after the fork over every strand; else each arm holds the rest of its
  strands, planned the same way (so a later parting is a fork inside the arm, recursively).

How a fork's arms are selected (:attr:`Fork.selection`): ``inputs`` when the arms meet again
and their own calls are read-only (each arm starts with ``exists(...)`` of the run inputs it
reads); ``conditions`` when the guards and checks the teacher evaluated at that point tell every
pair of arms apart (:func:`jdsl.compiler.selection.arm_conditions`); else ``route``: a typed
route decision asked at that point, reading the state known there. Strands that end where
others go on are left out (reported), as are arms whose meeting tail would read its arguments
differently from each arm alone (then the arms do not meet: each keeps its rest).

*Thin* strands (paths too thin to compile whose runs the compiled paths cannot account for,
:attr:`jdsl.compiler.branches.BranchPlan.thin`) follow the calls they share with the compiled
strands without adding their episodes to them; where a thin strand's next call is none of the
compiled strands', it parts ways: the fork there gets a *hand-over* arm per such next call
(:attr:`Arm.hand_over`: the rest of those runs goes to the family's fallback), next to the
compiled way(s), and is selected by ``route`` (a run says by the call it made there which way it
took). A thin strand that ends where compiled ones go on, or goes on where they end, is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import count
from typing import Any

from jdsl.compiler.arguments import choose_argument
from jdsl.compiler.branches import Lane
from jdsl.compiler.normalized import NormEpisode, NormStep
from jdsl.compiler.selection import arm_conditions
from jdsl.compiler.staticize.loops import LoopSpec
from jdsl.compiler.store import episode_ids, joined, subset
from jdsl.compiler.support import SameCalls

__all__ = ["Arm", "Call", "Fork", "Item", "Strand", "plan_shape"]

Where = tuple[tuple[int, Sequence[NormEpisode]], ...]
"""``(call position, episodes)`` per strand: where a point of the program is in the episodes."""
_UNNAMED = "\0unnamed"


@dataclass(frozen=True)
class Strand:
    """One accepted path from ``offset`` on."""

    lane: Lane
    offset: int
    thin: bool = False

    @property
    def rest(self) -> tuple[str, ...]:
        return self.lane.skeleton[self.offset :]

    def advanced(self, n: int) -> Strand:
        return Strand(self.lane, self.offset + n, self.thin)

    def where(self, n: int = 0) -> Where:
        """Where its ``n``-th next token is in its episodes (a loop: every element's call)."""
        return self.lane.where(self.offset + n)


@dataclass(frozen=True)
class Call:
    """One compiled call slot: ``key`` unique in the program, ``at`` its positions."""

    key: tuple[str, int]
    tool: str
    at: Where
    loop: LoopSpec | None = None


@dataclass(frozen=True)
class Arm:
    """One alternative of a fork: the strands that take it and what it does.

    Attributes:
        strands: its strands at the fork (a hand-over arm: the thin strands that part there).
        body: its calls and forks.
        ends: whether the body runs to the end of its strands (the fork's arms never meet).
        hand_over: its runs go on to the fallback (no body).
    """

    strands: tuple[Strand, ...]
    body: tuple[Item, ...]
    ends: bool
    hand_over: bool = False

    @property
    def tool(self) -> str:
        """The tool its strands call first (a loop token ``for_each xs: tool``: its tool)."""
        return self.strands[0].rest[0].split()[-1]

    @property
    def episodes(self) -> Sequence[NormEpisode]:
        return joined([s.lane.episodes for s in self.strands])

    @property
    def lane(self) -> Lane:
        """Its strands as one lane: the tools of its own calls (top level) and its episodes."""
        tools = tuple(i.tool for i in self.body if isinstance(i, Call))
        return Lane(tools, self.episodes)

    def calls(self) -> list[Call]:
        """Every call in the body, forks included (pre-order)."""
        found: list[Call] = []
        for item in self.body:
            if isinstance(item, Call):
                found.append(item)
            else:
                for arm in item.arms:
                    found += arm.calls()
        return found


@dataclass(frozen=True)
class Fork:
    """Where strands part ways.

    Attributes:
        at: each strand's position there.
        arms: by support, most first.
        selection: ``inputs``, ``conditions`` or ``route``.
        conditions: with ``conditions``, per arm the guard nodes that select it.
        tail: the calls after the arms meet again (the first strand's; empty when they do not).
    """

    at: Where
    arms: tuple[Arm, ...]
    selection: str
    conditions: tuple[tuple[dict[str, Any], ...], ...] = ()
    tail: tuple[str, ...] = ()

    @property
    def position(self) -> int:
        return self.at[0][0]


Item = Call | Fork


def _where(strands: Sequence[Strand], n: int = 0) -> Where:
    """Where the compiled strands' ``n``-th next token is (thin strands' episodes compile
    nothing)."""
    return tuple(w for s in strands if not s.thin for w in s.where(n))


def plan_shape(
    lanes: Sequence[Lane],
    *,
    read_only: Callable[[str], bool],
    notes: list[str],
    recoveries: Collection[tuple[str, str]] = (),
    loops: Mapping[str, LoopSpec] | None = None,
    thin: Sequence[Lane] = (),
    choices: Mapping[str, Sequence[str]] | None = None,
    routed: bool = False,
    same_calls: SameCalls | None = None,
) -> tuple[tuple[Item, ...], tuple[Lane, ...]]:
    """The program over ``lanes`` (the modal lane first) and the lanes it follows (those not
    left out); ``notes`` gets what was left out and why. ``thin`` lanes hand over where they
    part from the others (module docstring).

    ``recoveries`` are the accepted ``(failed tool, recovering tool)`` pairs: where the only
    difference between two ways is one call, ``primary`` in some runs and ``backup`` after a
    failed ``primary`` in the others, there is no fork: the recovering call (compiled
    ``sel(primary on_error=fail, backup)``, :mod:`jdsl.compiler.staticize.recovery`) serves both.
    With ``routed`` no fork is selected by ``inputs`` (thin paths: a route decision may answer
    that none fits, :attr:`jdsl.compiler.branches.BranchPlan.same_writes`).

    ``choices``: ``{choice token: its tools}`` (:func:`jdsl.compiler.rejoin.choice_tokens`):
    each such token is a fork of one call per tool that rejoins at once (:meth:`_Planner.item`).
    ``same_calls`` hold arguments read from one run to the family where ways meet, as the
    emitter does (:func:`_tail_reads_alike`, :mod:`jdsl.compiler.support`).
    """
    keys = count()
    plan = _Planner(read_only, notes, keys, frozenset(recoveries), dict(loops or {}),
                    {t: tuple(tools) for t, tools in (choices or {}).items()}, routed,
                    same_calls)  # fmt: skip
    strands = [Strand(lane, 0) for lane in lanes] + [Strand(lane, 0, True) for lane in thin]
    items, kept = plan.walk(strands)
    ids = {id(s.lane) for s in kept}
    return tuple(items), tuple(lane for lane in lanes if id(lane) in ids)


class _Planner:
    def __init__(
        self, read_only: Callable[[str], bool], notes: list[str], keys: count[int],
        recoveries: frozenset[tuple[str, str]], loops: dict[str, LoopSpec],
        choices: dict[str, tuple[str, ...]], routed: bool = False,
        same_calls: SameCalls | None = None,
    ) -> None:  # fmt: skip
        self.read_only, self.notes, self.keys, self.recoveries = read_only, notes, keys, recoveries
        self.loops, self.choices, self.routed = loops, choices, routed
        self.same_calls = same_calls

    def item(self, strands: Sequence[Strand], n: int = 0) -> Item:
        """The compiled ``strands``' ``n``-th next token (the same in each): a call, or for a
        choice token a fork with one arm per tool (one call each, the strands whose runs made
        it) that rejoins at once, selected by the run inputs each arm reads."""
        going = [s.advanced(n) for s in strands if not s.thin]
        token = going[0].rest[0]
        tools = self.choices.get(token)
        if tools is None:
            return self.call(token, _where(going))
        arms = []
        for tool in tools:
            parts = [p for s in going if (p := _taking(s, tool)) is not None]
            if parts:
                at = _where(parts)
                arms.append(Arm(tuple(parts), (Call(("call", next(self.keys)), tool, at),), False))
        arms.sort(key=lambda a: -len(a.episodes))
        if len(arms) == 1:  # these strands' runs took one of the alternatives only
            (call,) = arms[0].body
            return call
        return _fork(tuple(arms), self.read_only, tail=going[0].rest[1:], routed=self.routed)

    def call(self, token: str, at: Where) -> Call:
        loop = self.loops.get(token)
        return Call(("call", next(self.keys)), loop.tool if loop else token, at, loop)

    def walk(self, strands: list[Strand]) -> tuple[list[Item], list[Strand]]:
        return _plan(strands, self)

    def advance(self, strand: Strand, tokens: Sequence[str]) -> Strand | None:
        """``strand`` past compiled ``tokens``: a compiled strand by as many tokens; a thin
        strand (its calls one by one) by the calls that follow them: a call of the token's
        tool, or for a loop token the calls of the same loop (:attr:`~jdsl.compiler.branches.
        Lane.loops`); None when the thin strand parts within them."""
        if not strand.thin:
            return strand.advanced(len(tokens))
        loops = {at: (token, n) for at, token, n in strand.lane.loops}
        rest, n = strand.rest, 0
        for token in tokens:
            if token in self.choices:
                if n >= len(rest) or rest[n] not in self.choices[token]:
                    return None
                n += 1
            elif token in self.loops:
                found, m = loops.get(strand.offset + n, ("", 0))
                if found != token:
                    return None
                n += m
            elif n < len(rest) and rest[n] == token:
                n += 1
            else:
                return None
        return strand.advanced(n)

    def join(
        self, groups: list[list[Strand]], thin: Sequence[Strand]
    ) -> tuple[list[list[Strand]], list[Strand]]:
        """``groups`` (compiled strands by next token) with each thin strand in the first
        group whose next token it follows, and the thin strands that follow none."""
        off = []
        for s in thin:
            at = next((i for i, g in enumerate(groups)
                       if self.advance(s, g[0].rest[:1]) is not None), None)  # fmt: skip
            if at is None:
                off.append(s)
            else:
                groups[at].append(s)
        return groups, off


def _recovered(groups: Sequence[Sequence[Strand]], cuts: Sequence[int],
               recoveries: frozenset[tuple[str, str]]) -> int | None:  # fmt: skip
    """Which group's one call recovers the other's (``(primary, backup)`` accepted), or None."""
    if len(groups) != 2 or list(cuts) != [1, 1]:
        return None
    a, b = groups[0][0].rest[0], groups[1][0].rest[0]
    if (a, b) in recoveries:
        return 1
    if (b, a) in recoveries:
        return 0
    return None


def _plan(strands: list[Strand], planner: _Planner) -> tuple[list[Item], list[Strand]]:
    """The items over ``strands`` until they end; returns them and the compiled strands kept."""
    read_only, notes = planner.read_only, planner.notes
    items: list[Item] = []
    while True:
        strands = _drop_ended(strands, notes)
        going = [s for s in strands if not s.thin]
        if not going or not going[0].rest:
            return items, going
        groups = _groups(going)
        joined, off = planner.join([list(g) for g in groups], [s for s in strands if s.thin])
        handing = tuple(Arm(tuple(g), (), ends=True, hand_over=True) for g in _groups(off))
        if len(groups) == 1 and not handing:
            items.append(planner.item(going))
            strands = _advanced(joined, [1], planner)
            continue
        if len(groups) == 1:  # thin ways part here from the one compiled way
            body, kept = _plan(joined[0], planner)
            arm = Arm(_kept(joined[0], kept), tuple(body), ends=True)
            items.append(_fork((arm, *handing), read_only, tail=(), routed=planner.routed))
            return items, kept
        cuts = _meeting(groups)
        if cuts is not None and _tail_reads_alike(groups, cuts, planner.same_calls):
            after = _advanced(joined, cuts, planner)
            backup = _recovered(groups, cuts, planner.recoveries)
            if backup is not None and not handing:
                items.append(planner.call(groups[backup][0].rest[0], _where(groups[backup])))
                strands = _in_order(after, strands)
                continue
            if len(after) == sum(map(len, joined)):  # else a thin strand parts in an arm
                arms = tuple(
                    Arm(tuple(g), tuple(_own_calls(g, c, planner)), ends=False)
                    for g, c in zip(groups, cuts, strict=True)
                )
                tail = next(s for s in after if not s.thin).rest
                items.append(_fork((*arms, *handing), read_only, tail=tail, routed=planner.routed))
                strands = _in_order(after, strands)
                continue
        arms_list, ends = [], []
        for g in joined:
            body, kept = _plan(g, planner)
            arms_list.append(Arm(_kept(g, kept), tuple(body), True))
            ends += kept
        items.append(_fork((*arms_list, *handing), read_only, tail=(), routed=planner.routed))
        return items, ends


def _advanced(
    groups: Sequence[Sequence[Strand]], cuts: Sequence[int], planner: _Planner
) -> list[Strand]:
    """Each group's strands past its compiled strands' first ``cut`` tokens (one cut: the
    same for every group); a thin strand that parts within them is left out."""
    found = []
    for g, c in zip(groups, list(cuts) * len(groups) if len(cuts) == 1 else cuts, strict=True):
        tokens = next(s for s in g if not s.thin).rest[:c]
        found += [a for s in g if (a := planner.advance(s, tokens)) is not None]
    return found


def _kept(strands: Sequence[Strand], kept: Sequence[Strand]) -> tuple[Strand, ...]:
    """The compiled ``strands`` whose lanes are among ``kept``."""
    lanes = {id(s.lane) for s in kept}
    return tuple(s for s in strands if not s.thin and id(s.lane) in lanes)


def _in_order(after: list[Strand], before: list[Strand]) -> list[Strand]:
    """``after`` in the order of the strands they came from (the modal strand first)."""
    rank = {id(s.lane): i for i, s in enumerate(before)}
    return sorted(after, key=lambda s: rank[id(s.lane)])


def _drop_ended(strands: list[Strand], notes: list[str]) -> list[Strand]:
    """Where some strands end and others go on, keep the side with more episodes (of the
    compiled strands; a thin strand is kept while it and the compiled ones go on)."""
    thin = [s for s in strands if s.thin]
    strands = _drop_ended_compiled([s for s in strands if not s.thin], notes)
    going = bool(strands) and bool(strands[0].rest)
    return strands + [s for s in thin if going and s.rest]


def _drop_ended_compiled(strands: list[Strand], notes: list[str]) -> list[Strand]:
    ended = [s for s in strands if not s.rest]
    going = [s for s in strands if s.rest]
    if not ended or not going:
        return strands
    support = (sum(len(s.lane.episodes) for s in going), sum(len(s.lane.episodes) for s in ended))
    keep, drop = (going, ended) if support[0] >= support[1] else (ended, going)
    for s in drop:
        notes.append(
            f"path {' -> '.join(s.lane.skeleton)} ({len(s.lane.episodes)} successful episodes) "
            f"not branched: it {'ends' if not s.rest else 'goes on'} where more episodes "
            f"{'go on' if not s.rest else 'end'}; its episodes stay counterexamples"
        )
    return keep


def _groups(strands: Sequence[Strand]) -> list[list[Strand]]:
    """The strands grouped by their next call, most episodes of compiled strands first, then
    of thin ones (first seen on ties)."""
    found: dict[str, list[Strand]] = {}
    for s in strands:
        found.setdefault(s.rest[0], []).append(s)

    def support(group: list[Strand]) -> tuple[int, int]:
        return (-sum(len(s.lane.episodes) for s in group if not s.thin),
                -sum(len(s.lane.episodes) for s in group if s.thin))  # fmt: skip

    return sorted(found.values(), key=support)


def _common(strands: Sequence[Strand]) -> int:
    rests = [s.rest for s in strands]
    n = 0
    while all(len(r) > n for r in rests) and len({r[n] for r in rests}) == 1:
        n += 1
    return n


def _meeting(groups: Sequence[Sequence[Strand]]) -> list[int] | None:
    """Per group, how many own calls it makes before every group goes on with the same set of
    remaining paths (the earliest such meeting), or None when they never meet."""
    options: list[dict[frozenset[tuple[str, ...]], int]] = []
    for g in groups:
        found: dict[frozenset[tuple[str, ...]], int] = {}
        for c in range(1, _common(g) + 1):
            rests = frozenset(s.rest[c:] for s in g)
            if all(rests) and rests not in found:
                found[rests] = c
        options.append(found)
    shared = set(options[0]).intersection(*options[1:])
    if not shared:
        return None
    best = max(shared, key=lambda r: (sum(len(x) for x in r), sorted(r)))
    return [o[best] for o in options]


def _own_calls(group: Sequence[Strand], cut: int, planner: _Planner) -> list[Item]:
    return [planner.item(group, i) for i in range(cut)]


def _taking(strand: Strand, tool: str) -> Strand | None:
    """``strand`` (at a choice token) narrowed to the episodes that call ``tool`` there, with
    ``tool`` for the token in its lane; None when none does."""
    lane, t = strand.lane, strand.offset

    def calling(p: int, episodes: Sequence[NormEpisode]) -> Sequence[NormEpisode]:
        return subset(episodes, [i for i, e in enumerate(episodes)
                                 if e.ok_steps()[p].logical_tool == tool])  # fmt: skip

    skeleton = (*lane.skeleton[:t], tool, *lane.skeleton[t + 1 :])
    if not lane.parts:
        episodes = calling(t, lane.episodes)
        return Strand(Lane(skeleton, episodes), t) if len(episodes) else None
    parts = tuple((eps, ps) for eps0, ps in lane.parts
                  if len(eps := calling(ps[t][0], eps0)))  # fmt: skip
    if not parts:
        return None
    return Strand(Lane(skeleton, joined([eps for eps, _ in parts]), parts), t)


def _tail_reads_alike(
    groups: Sequence[Sequence[Strand]], cuts: Sequence[int], same_calls: SameCalls | None = None
) -> bool:
    """Whether every argument of the first call after the meeting compiles over all groups as
    over the first group alone (every arm writes the keys the shared calls read), each held to
    the same call in the family's other runs (``same_calls``)."""
    firsts = [[s.advanced(c) for s in g] for g, c in zip(groups, cuts, strict=True)]
    for n in range(_common([s for g in firsts for s in g])):
        mine = _where(firsts[0], n)
        joint_at = mine + tuple(w for g in firsts[1:] for w in _where(g, n))
        alone = [e.ok_steps()[p] for p, eps in mine for e in eps]
        joint = [e.ok_steps()[p] for p, eps in joint_at for e in eps]
        one_peers, both_peers = _peers(same_calls, mine), _peers(same_calls, joint_at)
        for arg in alone[0].arguments:
            one = choose_argument(arg, alone, available=None, synthesized_input=_UNNAMED,
                                  peers=one_peers)  # fmt: skip
            both = choose_argument(arg, joint, available=None, synthesized_input=_UNNAMED,
                                   peers=both_peers)  # fmt: skip
            if (one.how, one.spec) != (both.how, both.spec):
                return False
    return True


def _peers(same_calls: SameCalls | None, at: Where) -> Callable[[], Sequence[NormStep]] | None:
    """The call at ``at`` in the family's runs outside it (as ``Evidence.peers``), on first use."""
    if same_calls is None or not at:
        return None

    def found() -> Sequence[NormStep]:
        ids = [eid for _, eps in at for eid in episode_ids(eps)]
        return same_calls(ids[0], at[0][0], ids) if ids else []

    return found


def _fork(
    arms: tuple[Arm, ...], read_only: Callable[[str], bool], *, tail: tuple[str, ...],
    routed: bool = False,
) -> Fork:  # fmt: skip
    """The fork over ``arms`` with how its arms are selected (module docstring)."""
    at = _where([s for arm in arms for s in arm.strands])
    if any(arm.hand_over for arm in arms):
        return Fork(at, arms, "route", tail=tail)
    own = [c.tool for arm in arms for c in arm.calls()]
    if tail and not routed and all(read_only(tool) for tool in own):
        return Fork(at, arms, "inputs", tail=tail)
    groups = [_where(arm.strands) for arm in arms]
    conditions = arm_conditions(groups)
    if conditions is not None:
        return Fork(at, arms, "conditions", conditions, tail=tail)
    return Fork(at, arms, "route", tail=tail)
