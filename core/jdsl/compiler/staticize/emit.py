"""Emit a planned program (:mod:`jdsl.compiler.staticize.shape`) as Behavior IR.

The program's items are walked in order; each call is compiled by
:func:`jdsl.compiler.staticize.calls.call` (a loop by
:func:`jdsl.compiler.staticize.looping.emit_loop`) and each fork becomes a selector at that
point. Every step returns a :class:`~jdsl.compiler.staticize.fragment.Fragment`; the walk
concatenates them and :func:`result` makes the one fragment of the program a
:class:`~jdsl.compiler.compiled.CompiledBehavior`.

A fork's alternatives are emitted one after the other, each from what was known before the
selector (the names each alternative writes are its own) and over its own episodes; each
starts with what selects it: the run inputs it reads (``exists(...)``), the conditions the
teacher evaluated there, or ``check route == ...`` after a route decision asked there. After
the selector, what every alternative wrote is available and what every one read is required.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from jdsl.compiler.branches import Lane, teacher_selector
from jdsl.compiler.compiled import (
    BranchAlternative,
    CompiledBehavior,
    CompiledBranch,
    CompiledGuard,
    NodeProvenance,
)
from jdsl.compiler.consolidate import support_grade
from jdsl.compiler.fallback import hand_over_guard
from jdsl.compiler.fits import OTHER_ROUTE
from jdsl.compiler.guards import exists_names
from jdsl.compiler.names import slug
from jdsl.compiler.normalized import ModelDecision, NormEpisode
from jdsl.compiler.run_inputs import input_names
from jdsl.compiler.staticize.calls import call, decisions, guard, route_check, route_decision
from jdsl.compiler.staticize.fragment import (
    EMPTY,
    Build,
    Evidence,
    Fragment,
    Here,
    Slot,
    weakest,
)
from jdsl.compiler.staticize.looping import emit_loop
from jdsl.compiler.staticize.shape import Arm, Call, Fork, Item
from jdsl.compiler.store import episode_ids, joined
from jdsl.ir import BEHAVIOR_FORMAT
from jdsl.ir.walk import walk_ir
from jdsl.text.expression import format_expression

__all__ = ["emit", "hand_over_node", "result", "route_names"]

Placed = list[tuple[ModelDecision, int]]


def emit(
    ev: Evidence, items: Sequence[Item], aligned: Sequence[NormEpisode], modal: Lane | None,
    *, other: bool = False,
) -> Fragment:  # fmt: skip
    """The fragment of the whole program ``items`` over the ``aligned`` episodes (``modal``:
    the lane whose representative's last decisions close it; None: nothing closes it, the
    program hands over after it, :func:`hand_over_node`). With ``other`` every route decision
    may also answer :data:`OTHER_ROUTE` (the paths are thin: a run may fit none of them)."""
    return _Walk(ev, items, other).body(Here(scope=aligned), items, frozenset(), ends=modal)


class _Walk:
    """The program's call slots and input names (fixed before the walk), and the walk."""

    def __init__(self, ev: Evidence, items: Sequence[Item], other: bool = False) -> None:
        self.ev = ev
        self.other = other
        self.slots: dict[Any, Slot] = {}
        for c in (c for item in items for c in _calls(item)):
            self.slots[c.key] = Slot.of(c.key, c.tool, list(c.at))
        every = list(self.slots.values())
        self.names = input_names(
            (s.key, [eid for _, eps in s.at for eid in episode_ids(eps)], arg, s.steps)
            for s in every for arg in s.steps[0].arguments
        )  # fmt: skip

    def body(
        self, here: Here, items: Sequence[Item], skip: frozenset[str], ends: Lane | None
    ) -> Fragment:
        """``items`` in order (``skip``: decisions already emitted before the first); with
        ``ends``, the decisions its representative made after its last call follow."""
        b = Build(here)
        for n, item in enumerate(items):
            if isinstance(item, Call):
                slot = self.slots[item.key]
                found = [d for d in _decisions_at(item.at) if not (n == 0 and d.node_id in skip)]
                if item.loop is not None:
                    b.add(emit_loop(self.ev, b.here, slot, self.names, found, item.loop))
                else:
                    b.add(call(self.ev, b.here, slot, self.names, found))
            else:
                b.add(self.fork(b.here, item, skip if n == 0 else frozenset()))
        last_forks = bool(items) and isinstance(items[-1], Fork) and items[-1].arms[0].ends
        if ends is not None and not last_forks:  # a fork whose arms end emits them in each
            rep = ends.episodes[0]
            last = len(rep.ok_steps())
            late = [d for d, q in _decision_positions(rep) if q >= last]
            b.add(decisions(self.ev, b.here, late))
        return b.out

    def fork(self, here: Here, fork: Fork, skip: frozenset[str]) -> Fragment:
        """The decisions every arm made first, a route decision when the arms are selected
        by one, then the selector."""
        b = Build(here)
        firsts = [arm.strands[0] for arm in fork.arms if not arm.hand_over]
        per_arm = [{d.node_id: d for d in _decisions_at(s.where())} for s in firsts]
        shared = [d for k, d in per_arm[0].items()
                  if k not in skip and all(k in p for p in per_arm[1:])]  # fmt: skip
        b.add(decisions(self.ev, b.here, shared))
        skip = skip | {d.node_id for d in shared}
        hosts = [s.where()[0][1][0].ok_steps()[s.where()[0][0]].host_tool for s in firsts]
        own = [[self.slots[c.key] for c in arm.body if isinstance(c, Call)] for arm in fork.arms]
        handing = [arm.tool if arm.hand_over else None for arm in fork.arms]
        routes = route_names(own, handing) if fork.selection == "route" else []
        key = None
        if routes:
            offered = [*routes, (OTHER_ROUTE, "none of these fits: the fallback takes over")]
            key, made = route_decision(b.here, offered if self.other else routes)
            b.add(made)
        teacher = teacher_selector(firsts[0].lane.episodes[0].teacher_ir, hosts)
        node_id = b.id(teacher or f"branch_{fork.position}")
        base = b.here
        running, alternatives, children, made_by = base, [], [], []
        compiled = [(arm, slots, routes[i][0] if routes else None)
                    for i, (arm, slots) in enumerate(zip(fork.arms, own, strict=True))
                    if not arm.hand_over]  # fmt: skip
        for k, (arm, slots, value) in enumerate(compiled, start=1):
            # a sibling's loop names are not bound here: its stated inputs keep their names
            start = dataclasses.replace(running, sequence=(), scope=arm.lane.episodes,
                                        in_lane=True, available=base.available,
                                        residual_keys=base.residual_keys,
                                        loop_items=base.loop_items)  # fmt: skip
            route = (key, value) if key is not None and value is not None else None
            alternative, child, made = self.alternative(start, node_id, k, fork, arm, slots,
                                                        route, skip)  # fmt: skip
            running = running.after(made)
            alternatives.append(alternative)
            children.append(child)
            made_by.append(made)
        thin = [(arm, routes[i][0]) for i, arm in enumerate(fork.arms) if arm.hand_over]
        if thin and key is not None:  # one last alternative: every thin way hands over there
            episodes = joined([arm.lane.episodes for arm, _ in thin])
            start = dataclasses.replace(running, sequence=(), scope=episodes, in_lane=True)
            alternative, child, made = _handing_over(start, node_id, len(compiled) + 1, fork,
                                                     key, thin)  # fmt: skip
            alternatives.append(alternative)
            children.append(child)
            made_by.append(made)
        branch = CompiledBranch(node_id, fork.position, tuple(alternatives), fork.tail, teacher,
                                fork.selection)  # fmt: skip
        b.add(_selector(branch, fork, children, made_by, going=len(compiled)))
        return b.out

    def alternative(
        self, here: Here, node_id: str, k: int, fork: Fork, arm: Arm, slots: Sequence[Slot],
        route: tuple[str, str] | None, skip: frozenset[str],
    ) -> tuple[BranchAlternative, dict[str, Any], Fragment]:  # fmt: skip
        """Alternative ``k``: its record, its ``sequence`` node (the selector's child) and
        the fragment of what it emitted (its nodes are in the child)."""
        b = Build(here)
        seq_id = b.id(f"{node_id}_{k}")
        when = f"{node_id}_{k}_when"
        for node in fork.conditions[k - 1] if fork.selection == "conditions" else ():
            b.add(guard(b.here, slots[0], node, when, "select", []))
        if route is not None:
            b.add(route_check(b.here, route[0], route[1], when))
        b.add(self.body(b.here, arm.body, skip, arm.strands[0].lane if arm.ends else None))
        body = b.out
        lane = arm.lane
        inputs, names = _input_guard(b.here, node_id, k, lane, slots, body,
                                     synthesized=fork.selection == "inputs")  # fmt: skip
        nodes = [*inputs.nodes, *body.nodes]
        tools = tuple(s.tool for s in slots)
        n = len(lane.episodes)
        record = NodeProvenance(
            seq_id, "sequence", support_grade(n), source_episodes=tuple(sorted(lane.ids)),
            rationale=f"alternative {k} of {node_id}: {n} successful episodes call "
                      f"{' -> '.join(tools)}",
        )  # fmt: skip
        alternative = BranchAlternative(seq_id, tools, lane.ids, names, tuple(sorted(body.reads)),
                                        _selection_text(nodes, when))  # fmt: skip
        made = Fragment(provenance=(record,)) + dataclasses.replace(inputs, nodes=())
        made += dataclasses.replace(body, nodes=())
        return alternative, {"kind": "sequence", "id": seq_id, "children": nodes}, made


def hand_over_node(
    program: Fragment, position: int, ways: int, episodes: Sequence[NormEpisode]
) -> Fragment:
    """A guard that never holds (``guard false``), after the common part of paths too thin to
    branch: the compiled program fails there and the package's fallback takes over (its trace
    names this node, :mod:`jdsl.compiler.fallback`). ``position``: how many calls the paths
    share; ``ways``: how many paths part there."""
    why = (f"the runs take {ways} ways after {position} shared call(s), none with the support "
           "to be compiled: the fallback takes over here")  # fmt: skip
    return _hand_over(Here(scope=episodes, ids=program.ids), position, why)


def _hand_over(here: Here, position: int, why: str) -> Fragment:
    """The :func:`~jdsl.compiler.fallback.hand_over_guard` ``hand_over_<position>`` over the
    episodes in scope, with its record."""
    node_id = here.unique(f"hand_over_{position}")
    why_record = NodeProvenance(
        node_id, "guard", support_grade(len(here.scope)),
        source_episodes=tuple(sorted(episode_ids(here.scope))), rationale=why,
    )  # fmt: skip
    return Fragment(nodes=(hand_over_guard(node_id),), provenance=(why_record,),
                    ids=frozenset({node_id}))  # fmt: skip


def _handing_over(
    here: Here, node_id: str, k: int, fork: Fork, key: str, thin: Sequence[tuple[Arm, str]]
) -> tuple[BranchAlternative, dict[str, Any], Fragment]:
    """Alternative ``k`` of a fork with ways too thin to compile (:attr:`~jdsl.compiler.
    staticize.shape.Arm.hand_over`, each with its route value: the tool its runs call there):
    ``check key == <value>`` (several: a selector of them), then the hand-over guard."""
    b = Build(here)
    seq_id = b.id(f"{node_id}_{k}")
    when = f"{node_id}_{k}_when"
    if len(thin) == 1:
        b.add(route_check(b.here, key, thin[0][1], when))
    else:
        checks = Build(b.here)
        any_id = checks.id(when)
        for _, value in thin:
            checks.add(route_check(checks.here, key, value, f"{when}_{value.rsplit('.', 1)[-1]}"))
        node = {"kind": "selector", "id": any_id, "children": list(checks.out.nodes)}
        b.add(dataclasses.replace(checks.out, nodes=(node,)))
    episodes = joined([arm.lane.episodes for arm, _ in thin])
    tools = " or ".join(arm.tool for arm, _ in thin)
    n, ids = len(episodes), tuple(sorted(episode_ids(episodes)))
    b.add(_hand_over(dataclasses.replace(b.here, scope=episodes), fork.position,
                     f"{n} successful episode(s) call {tools} here, too few to compile, and the "
                     "compiled ways do not serve them: the fallback takes over here"))  # fmt: skip
    body = b.out
    record = NodeProvenance(
        seq_id, "sequence", support_grade(n), source_episodes=ids,
        rationale=f"alternative {k} of {node_id}: {n} successful episode(s) call {tools} "
                  "here; handed over to the fallback",
    )  # fmt: skip
    selected = tuple(f"{key} == {json.dumps(value)}" for _, value in thin)
    alternative = BranchAlternative(seq_id, (), ids, (), (), selected, hands_over=True)
    made = Fragment(provenance=(record,)) + dataclasses.replace(body, nodes=())
    return alternative, {"kind": "sequence", "id": seq_id, "children": list(body.nodes)}, made


def _selector(
    branch: CompiledBranch, fork: Fork, children: list[dict[str, Any]], made: list[Fragment],
    going: int,
) -> Fragment:  # fmt: skip
    """The selector of ``branch`` over its alternatives' ``children``, with their records:
    what every alternative a run goes on from (the first ``going``; the others hand over)
    wrote is available after it, what every one read is required."""
    support = ", ".join(f"{len(a.episodes)}" for a in branch.alternatives)
    why = (
        (f"{len(fork.arms)} successful paths share the final calls {' -> '.join(fork.tail)}; "
         if fork.tail else f"{len(fork.arms)} successful paths part ways here; ")
        + f"alternatives by support ({support} episodes)"
        + (f"; the teacher's selector {branch.teacher_selector!r} chose here" if branch.teacher_selector else "")
    )  # fmt: skip
    grade = weakest([support_grade(len(a.episodes)) for a in branch.alternatives])
    ids = tuple(sorted(e for a in branch.alternatives for e in a.episodes))
    record = NodeProvenance(branch.node_id, "selector", grade, source_episodes=ids, rationale=why)
    out = Fragment(provenance=(record,))
    for m in made:
        out += m
    node = {"kind": "selector", "id": branch.node_id, "children": children}
    return dataclasses.replace(
        out,
        nodes=(node,),
        branches=(*out.branches, branch),
        reads=frozenset.intersection(*(m.reads for m in made)),
        produced=frozenset.intersection(*(m.produced for m in made[:going])),
        residual_keys=frozenset.intersection(*(m.residual_keys for m in made[:going])),
    )


def _input_guard(
    here: Here, node_id: str, k: int, lane: Lane, slots: Sequence[Slot], body: Fragment,
    synthesized: bool = False,
) -> tuple[Fragment, tuple[str, ...]]:  # fmt: skip
    """``exists(...)`` of the run inputs the alternative's arguments read, to put first in it
    (unless a mined guard there already says so), and those inputs; with ``synthesized`` (a
    fork selected by its arms' inputs), also of the inputs no episode recorded that no node of
    the alternative writes (a host gives them: the run took this way when it has them)."""
    read = {str(c.source) for a in body.actions for c in a.choices if c.how == "input"}
    names = tuple(sorted(
        n for n in read
        if all(n in e.inputs for e in lane.episodes)
        or (synthesized and n not in body.produced and not any(n in e.inputs
                                                               for e in lane.episodes))
    ))  # fmt: skip
    if not names:
        return EMPTY, ()
    mined = [g for g in body.guards if g.origin == "mined"]
    if any(exists_names(g.node.get("expression")) == set(names) for g in mined):
        return EMPTY, names
    parts = [{"exists": {"ref": name}} for name in names]
    expression = parts[0] if len(parts) == 1 else {"and": parts}
    guard_id = here.unique(f"{node_id}_{k}_inputs")
    node = {"kind": "guard", "id": guard_id, "expression": expression}
    record = CompiledGuard(guard_id, slots[0].position, node, "branch", slots[0].positions())
    why = NodeProvenance(
        guard_id, "guard", support_grade(len(lane.episodes)),
        source_episodes=tuple(sorted(lane.ids)),
        rationale=f"alternative {k} of {node_id} reads run inputs {', '.join(names)}",
    )  # fmt: skip
    made = Fragment(nodes=(node,), guards=(record,), provenance=(why,), ids=frozenset({guard_id}))
    return made, names


def _selection_text(nodes: Sequence[dict[str, Any]], base: str) -> tuple[str, ...]:
    """The selection guards and checks of an alternative (ids ``<base>``...), as text."""
    found = []
    for node in nodes:
        if not str(node.get("id", "")).startswith(base):
            continue
        if node["kind"] == "check":
            found.append(f"{node['key']} == {json.dumps(node.get('equals'))}")
        elif node["kind"] == "guard":
            found.append(format_expression(node["expression"]))
    return tuple(found)


def result(
    ev: Evidence,
    program: Fragment,
    skeleton: tuple[str, ...],
    aligned: Sequence[NormEpisode],
    notes: Sequence[str],
) -> CompiledBehavior:
    """The compiled behavior of the emitted ``program`` (``notes``: what planning reported)."""
    flow = {"kind": "sequence", "id": f"{slug(ev.name)}_flow", "children": list(program.nodes)}
    root: dict[str, Any] = {"kind": "root", "name": ev.name, "child": flow}
    system = _common_system(aligned)
    if system:
        root["system"] = system
    tools = {a.tool for a in program.actions} | {
        n["tool"] for n in walk_ir(root) if n.get("kind") == "action"
    }
    return CompiledBehavior(
        name=ev.name,
        ir={"format": BEHAVIOR_FORMAT, "root": root},
        residuals=program.residuals,
        actions=program.actions,
        guards=program.guards,
        provenance=program.provenance,
        inputs=tuple(sorted(program.inputs)),
        skeleton=skeleton,
        aligned=tuple(episode_ids(aligned)),
        required_capabilities=tuple(sorted(tools)),
        compiler_model=ev.model.name,
        notes=(*notes, *program.notes),
        branches=program.branches,
        required_inputs=tuple(sorted(program.reads)),  # a branch adds what all alternatives read
    )


def _common_system(aligned: Sequence[NormEpisode]) -> str | None:
    systems = {(e.teacher_ir or {}).get("system") for e in aligned}
    return systems.pop() if len(systems) == 1 else None


def _calls(item: Item) -> list[Call]:
    if isinstance(item, Call):
        return [item]
    return [c for arm in item.arms for sub in arm.body for c in _calls(sub)]


def _decisions_at(at: Sequence[tuple[int, Sequence[NormEpisode]]]) -> list[ModelDecision]:
    """The decisions the representative (first episode of the first group) made right before
    its call at that position."""
    position, episodes = at[0]
    return [d for d, q in _decision_positions(episodes[0]) if q == position]


def route_names(
    own: Sequence[Sequence[Slot]], handing: Sequence[str | None] = ()
) -> list[tuple[str, str]]:
    """``(name, what it does)`` per alternative: the last dotted part of its first own tool
    (``retail.cancel_pending_order`` -> ``cancel_pending_order``), made unique; an alternative
    that hands over (``handing``: the tool its runs call there, else None) is named by that
    tool, whole (replay places a run on it by that call, :mod:`jdsl.compiler.decisions`)."""
    handing = list(handing) or [None] * len(own)
    taken = {tool for tool in handing if tool is not None}
    found: list[tuple[str, str]] = []
    for slots, tool in zip(own, handing, strict=True):
        if tool is not None:
            found.append((tool, f"a way too few recorded runs took (they called {tool} here): "
                                "hand over"))  # fmt: skip
            continue
        base = slots[0].tool.rsplit(".", 1)[-1] if slots else "path"
        name, n = base, 2
        while name in taken or name == OTHER_ROUTE:
            name, n = f"{base}_{n}", n + 1
        taken.add(name)
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
