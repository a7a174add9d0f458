"""Emit one compiled call: its model decisions, guards, arguments and action, as a fragment.

Each function takes the family's :class:`~jdsl.compiler.staticize.fragment.Evidence`, the
:class:`~jdsl.compiler.staticize.fragment.Here` it emits at and what it compiles, and returns
a :class:`~jdsl.compiler.staticize.fragment.Fragment` (with a value where the caller needs one:
an argument's choice, a route decision's key). For a call slot :func:`call` emits, in order:

1. the residual model decisions observed before that call (predict leaves), interleaved with
2. the guards the teacher evaluated there and that held in every episode the call replays;
3. ``exists(...)`` guards for every argument indexed by a residual decision, so an invalid
   model answer (an out-of-range index) fails cleanly before the tool is called;
4. the action, each argument chosen by :func:`jdsl.compiler.arguments.choose_argument`, in a
   recovery selector when accepted RECOVERY evidence exists for the tool
   (:mod:`jdsl.compiler.staticize.recovery`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from jdsl.compiler.arguments import (
    ArgChoice,
    choose_argument,
    index_key,
    path_names,
    stable_key,
    top_key,
)
from jdsl.compiler.candidates import ACTION, DATAFLOW, GUARD, SEMANTIC
from jdsl.compiler.compiled import CompiledAction, CompiledGuard
from jdsl.compiler.guards import guard_node, node_names, residual_prefixes
from jdsl.compiler.lineage import mentioned_keys
from jdsl.compiler.names import numbered, slug
from jdsl.compiler.normalized import ModelDecision, NormStep
from jdsl.compiler.residualize import (
    Residual,
    residualize_argument,
    residualize_decision,
    residualize_route,
)
from jdsl.compiler.staticize.fragment import (
    EMPTY,
    Build,
    Evidence,
    Fragment,
    Here,
    Names,
    Slot,
    proof,
)
from jdsl.compiler.staticize.recovery import with_recovery
from jdsl.compiler.store import episode_ids
from jdsl.ir.walk import walk_ir
from jdsl.signature import Signature

__all__ = [
    "call", "decisions", "guard", "model_chosen", "residual_inputs", "residual_node",
    "route_check", "route_decision",
]  # fmt: skip

Mined = tuple[int, dict[str, Any], str, list[Any]]
"""``(teacher sequence, node, id base, candidates)`` of a guard mined before a call."""


def decisions(ev: Evidence, here: Here, found: Sequence[ModelDecision]) -> Fragment:
    """A predict per model decision of ``found`` (reacts that answered nothing are left out);
    its samples are the same decision in the other episodes in scope."""
    b = Build(here)
    for d in found:
        if not d.signature or (d.kind == "react" and not d.outputs):
            continue
        node_id = b.id(d.node_id if "/" not in d.node_id else f"decide_{len(b.here.sequence)}")
        samples = [  # residualize reads their outputs only: inputs dropped (memory)
            dataclasses.replace(x, inputs={})
            for e in here.scope
            for x in e.decisions
            if x.node_id == d.node_id and x is not d
        ]
        residual = residualize_decision(d, node_id=node_id, samples=samples, model=ev.model)
        b.add(residual_node(b.here, residual, d.input_sources))
        claim = {"node_id": d.node_id, "kind": d.kind, "signature": d.signature}
        cand = ev.candidate(SEMANTIC, {**claim, "position": d.position})
        b.add(proof(node_id, "predict", [cand], "residual semantic decision"))
    return b.out


def residual_node(here: Here, residual: Residual, sources: dict[str, str] | None) -> Fragment:
    """The residual's node; the names its inputs read that nothing wrote are run inputs."""
    sig = Signature.parse(residual.node["signature"])
    names: set[str] = set()
    for f in sig.inputs:
        names |= path_names((sources or {}).get(f.name, f.name).removeprefix("blackboard."))
    outputs = frozenset(residual.outputs)
    return here.need(names) + Fragment(
        nodes=(residual.node,), residuals=(residual,), produced=outputs, residual_keys=outputs
    )


def call(
    ev: Evidence,
    here: Here,
    slot: Slot,
    names: Names,
    found: Sequence[ModelDecision] = (),
    fixed: Mapping[str, ArgChoice] | None = None,
) -> Fragment:
    """The model decisions ``found`` and the guards mined before ``slot`` in the order the
    teacher evaluated them (a guard before the decision that followed it), then the action
    (``fixed``: arguments already chosen, e.g. a loop's element)."""
    b = Build(here)
    mined = _mined_guards(ev, slot)
    for d in found:
        while mined and mined[0][0] < d.sequence:
            b.add(_mined(b.here, slot, mined.pop(0)))
        b.add(decisions(ev, b.here, [d]))
    for m in mined:
        b.add(_mined(b.here, slot, m))
    b.add(_action(ev, b.here, slot, names, fixed))
    return b.out


def _mined_guards(ev: Evidence, slot: Slot) -> list[Mined]:
    """Each guard mined before ``slot``, in teacher order; the id base is the teacher's node
    id when it had one."""
    seen: set[str] = set()
    mined = []
    for c in ev.guard_index.get((slot.position, slot.tool), ()):
        claim = c.claim
        key = stable_key([claim.get("type"), claim.get("expression")])
        found = [ev.candidate(GUARD, {**claim, "position": p}) for p, _ in slot.at]
        held = all(
            f is not None and set(episode_ids(eps)) <= set(f.support)
            for f, (_, eps) in zip(found, slot.at, strict=True)
        )
        node = guard_node(claim) if held and key not in seen else None
        if node is None:
            continue
        seen.add(key)
        sequence, teacher_id = _observed(slot, claim)
        base = teacher_id or f"guard_{slug(slot.tool)}_{slot.position}"
        mined.append((sequence, node, base, found))
    return sorted(mined, key=lambda m: m[0])


def _mined(here: Here, slot: Slot, mined: Mined) -> Fragment:
    _, node, base, found = mined
    need = here.need(node_names(node))
    return need + guard(here.after(need), slot, node, base, "mined", found)


def guard(
    here: Here, slot: Slot, node: dict[str, Any], base: str, origin: str, found: list[Any]
) -> Fragment:
    """The guard ``node`` (id from ``base``), unless an equal one already holds here."""
    if _already_guarded(here.sequence, node):
        return EMPTY
    node_id = here.unique(base)
    node = {**node, "id": node_id}
    record = CompiledGuard(node_id, slot.position, node, origin, slot.positions())
    made = Fragment(nodes=(node,), guards=(record,), ids=frozenset({node_id}))
    return made + proof(node_id, node["kind"], found, _WHY[origin])


def _action(
    ev: Evidence, here: Here, slot: Slot, names: Names, fixed: Mapping[str, ArgChoice] | None
) -> Fragment:
    b = Build(here)
    p, tool, rep = slot.position, slot.tool, slot.steps[0]
    choices = []
    for arg in rep.arguments:
        choice = (fixed or {}).get(arg)
        if choice is None:
            choice, made = _argument(ev, b.here, slot, arg, names)
            b.add(made)
        choices.append(choice)
    for c in choices:
        for prefix in residual_prefixes(c, set(b.here.residual_keys)):
            b.add(guard(b.here, slot, {"kind": "guard", "expression": {"exists": {"ref": prefix}}},
                        f"check_{slug(tool)}_{p}", "exists", []))  # fmt: skip
    node_id = b.id(_action_id(rep, tool, p))
    node: dict[str, Any] = {"kind": "action", "id": node_id, "tool": tool}
    if choices:
        node["args"] = {c.argument: c.spec for c in choices}
    if rep.store:
        node["store"] = rep.store
    wrapped, recovery = with_recovery(ev, b.here, node, slot)
    b.add(recovery)
    record = CompiledAction(node_id, p, tool, tuple(choices), slot.positions())
    b.add(Fragment(nodes=(wrapped,), actions=(record,)))
    found = [ev.candidate(ACTION, {"tool": tool, "position": q}) for q, _ in slot.at]
    found += [
        ev.candidate(DATAFLOW, {"source": c.source, "tool": tool, "argument": c.argument,
                                "position": q})
        for c in choices if c.how in ("dataflow", "selection") for q, _ in slot.at
    ]  # fmt: skip
    kinds = ", ".join(f"{c.argument}={c.how}" for c in choices) or "no arguments"
    b.add(proof(node_id, "action", found, f"ACTION {tool} at {p} ({kinds})"))
    if rep.store:
        b.add(Fragment(produced=frozenset({rep.store})))
    return b.out


def _argument(
    ev: Evidence, here: Here, slot: Slot, arg: str, names: Names
) -> tuple[ArgChoice, Fragment]:
    synth = names.get((slot.key, arg), arg)
    choice = choose_argument(arg, slot.steps, available=set(here.available),
                             synthesized_input=synth, who=lambda: _who(slot),
                             always_stated=lambda: ev.stated(slot.tool, arg),
                             peers=lambda: ev.peers(slot))  # fmt: skip
    if choice.source == synth and synth in here.loop_items:  # not the loop's last element
        synth = numbered(synth, here.loop_items | here.available | here.inputs)
        choice = dataclasses.replace(choice, spec={"ref": synth}, source=synth)
    if choice.how == "input":
        return choice, Fragment.read(str(choice.source))
    if choice.how == "residual":
        return _generated(ev, here, slot, choice, synth)
    if choice.how == "selection":
        return _selection(ev, here, slot, choice)
    return choice, EMPTY


def _who(slot: Slot) -> list[tuple[str, str]]:
    """Per episode of ``slot``: ``(user, task)``, what a constant's support must span (docs/
    design.md §6). The user is the episode's ``user_id`` (tau-bench metadata), else its task,
    else its inputs; the task is ``task_id`` / ``task_family``, else the inputs (another run)."""
    found = []
    for _, episodes in slot.at:
        for e in episodes:
            task = e.metadata.get("task_id", e.metadata.get("task_family"))
            task_key = f"task:{task}" if task is not None else stable_key(e.inputs)
            user = e.metadata.get("user_id")
            found.append((f"user:{user}" if user not in (None, "") else task_key, task_key))
    return found


def _free_key(here: Here, slot: Slot, base: str) -> str:
    """``base``, or ``base_2``, ``base_3``... when an earlier node already wrote it."""
    return numbered(base, here.available | here.inputs | here.loop_items)


def _generated(
    ev: Evidence, here: Here, slot: Slot, choice: ArgChoice, synth: str
) -> tuple[ArgChoice, Fragment]:
    """A predict that writes an argument a model chose and nothing else explains; it reads
    the conversation (or the run inputs) and the state the recorded value mentions."""
    key = _free_key(here, slot, synth)
    reads = residual_inputs(here) + mentioned_keys(choice.values, slot.steps, set(here.available))
    out = model_chosen(ev, here, key, values=list(choice.values), inputs=reads,
                       why=f"model-chosen {choice.argument} of {slot.tool}")  # fmt: skip
    return dataclasses.replace(choice, spec={"ref": key}, source=key), out


def _selection(
    ev: Evidence, here: Here, slot: Slot, choice: ArgChoice
) -> tuple[ArgChoice, Fragment]:
    """A predict that picks which elements of a list in state a list argument takes."""
    template = str(choice.template)
    one = not isinstance(choice.values[0], list)  # a scalar: one element by position
    key = _free_key(here, slot, index_key(choice.argument) if not one
                    else f"{slug(choice.argument).removesuffix('_id')}_index")  # fmt: skip
    what = template.split("[*]")[0]
    out = model_chosen(
        ev, here, key,
        values=[i[0] if one else list(i) for i in choice.indexes],
        inputs=residual_inputs(here) + [top_key(template)],
        why=f"model-chosen elements of {choice.argument} of {slot.tool}",
        note=(f"Answer with the 0-based index of the element of {what} that "
              f"{choice.argument} takes." if one else
              f"Answer with a JSON list of the 0-based indexes of the elements of "
              f"{what} that {choice.argument} takes."),
    )  # fmt: skip
    path = template.replace("[*]", f"[${key}]", 1)
    return dataclasses.replace(choice, spec={"ref": path}, source=path), out


def model_chosen(
    ev: Evidence,
    here: Here,
    key: str,
    *,
    values: list[Any],
    inputs: list[str],
    why: str,
    note: str = "",
) -> Fragment:
    """A predict ``choose_<key>`` that writes ``key``, what a model chose and nothing
    deterministic explains (an argument, or the indexes of the elements one takes): the
    recorded ``values`` type it, it reads ``inputs``, ``note`` is added to its instruction;
    its provenance says ``why``."""
    b = Build(here)
    residual = residualize_argument(node_id=b.id(f"choose_{key}"), output=key, values=values,
                                    inputs=inputs, model=ev.model, note=note)  # fmt: skip
    b.add(residual_node(b.here, residual, None))
    b.add(proof(residual.node["id"], "predict", [], why))
    return b.out


def residual_inputs(here: Here) -> list[str]:
    """What a generated residual reads: the conversation when every episode in scope has
    it, else every run input they share."""
    shared = here.shared_inputs()
    return ["conversation"] if "conversation" in shared else sorted(shared)


def route_decision(
    here: Here, routes: Sequence[tuple[str, str]], base: str = "route"
) -> tuple[str, Fragment]:
    """A residual decision choosing a branch alternative by name, and its output key
    (``base``, numbered when taken: a key written before, or decided anywhere earlier in the
    program, e.g. inside an alternative of an earlier fork, since replay answers a route by its
    key, :mod:`jdsl.compiler.decisions`)."""
    key, n = base, 2
    while key in here.available or f"choose_{key}" in here.ids:
        key, n = f"{base}_{n}", n + 1
    inputs = sorted(here.shared_inputs() | here.available)
    b = Build(here)
    residual = residualize_route(node_id=b.id(f"choose_{key}"), output=key,
                                 routes=routes, inputs=inputs)  # fmt: skip
    b.add(residual_node(b.here, residual, None))
    b.add(proof(residual.node["id"], "predict", [],
                "route decision: the teacher took these paths without evaluating a "
                "condition that tells them apart"))  # fmt: skip
    return key, b.out


def route_check(here: Here, key: str, value: str, base: str) -> Fragment:
    """``check key == value`` selecting an alternative (verified by execution)."""
    node_id = here.unique(base)
    node = {"kind": "check", "id": node_id, "key": key, "equals": value}
    why = f"selects the alternative the route decision names {value!r}"
    return Fragment(nodes=(node,), ids=frozenset({node_id})) + proof(node_id, "check", [], why)


_WHY = {
    "mined": "guard the teacher evaluated",
    "exists": "protects a residual index",
    "select": "selects a branch alternative: the teacher evaluated it there with this result "
    "in every episode of the alternative",
}


def _observed(slot: Slot, claim: dict[str, Any]) -> tuple[int, str | None]:
    """Where the representative episode evaluated a mined guard: its event sequence, and
    the teacher's node id when the author named it (structural ids ``a/b.0`` are not kept)."""
    position, episodes = slot.at[0]
    for g in episodes[0].guards if episodes else ():
        if (g.position, g.type, g.expression) == (position, claim.get("type"),
                                                   claim.get("expression")):  # fmt: skip
            named = g.node_id if g.node_id and "/" not in g.node_id else None
            return g.sequence, named
    return -1, None


def _already_guarded(nodes: Sequence[dict[str, Any]], node: dict[str, Any]) -> bool:
    """Whether the same guard already holds in this sequence: an equal guard earlier in
    ``nodes`` with no write since to a name it reads."""
    body = {k: v for k, v in node.items() if k != "id"}
    reads = node_names(node)
    for earlier in reversed(nodes):
        if {k: v for k, v in earlier.items() if k != "id"} == body:
            return True
        if reads & _writes(earlier):
            return False
    return False


def _writes(node: dict[str, Any]) -> set[str]:
    """The blackboard keys ``node`` (and its subtree) may write."""
    found = set()
    for n in walk_ir(node):
        if n.get("store"):
            found.add(str(n["store"]))
        if n.get("kind") in ("predict", "react") and n.get("signature"):
            found.update(f.name for f in Signature.parse(n["signature"]).outputs)
    return found


def _action_id(step: NormStep, tool: str, p: int) -> str:
    author = step.node_id and "/" not in step.node_id and step.node_type == "action"
    return str(step.node_id) if author else f"{slug(tool)}_{p}"
