"""The emitter staticize drives: nodes, ids, available names, run inputs and provenance.

:class:`Emitter` appends IR nodes while the compiled calls are walked in order; a
:class:`Slot` is one compiled call with, per group of episodes, the position of that call in
them; :meth:`Emitter.branch` opens a selector whose alternatives are emitted one by one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jdsl.compiler.alternatives import Alternatives
from jdsl.compiler.arguments import (
    ArgChoice,
    StatedIndex,
    choose_argument,
    index_key,
    path_names,
    stable_key,
    top_key,
)
from jdsl.compiler.branches import teacher_selector
from jdsl.compiler.candidates import ACTION, DATAFLOW, GUARD, RECOVERY, SEMANTIC, Fact
from jdsl.compiler.compiled import (
    GRADES,
    CompiledAction,
    CompiledBehavior,
    CompiledBranch,
    CompiledGuard,
    NodeProvenance,
)
from jdsl.compiler.consolidate import Candidate, support_grade
from jdsl.compiler.guards import guard_node, node_names, residual_prefixes
from jdsl.compiler.lineage import mentioned_keys
from jdsl.compiler.names import slug
from jdsl.compiler.normalized import ModelDecision, NormEpisode, NormStep
from jdsl.compiler.recovery import contested_notes, with_recovery
from jdsl.compiler.residualize import (
    CompilerModel,
    Residual,
    residualize_argument,
    residualize_decision,
    residualize_route,
)
from jdsl.compiler.store import SlotSteps, episode_ids, joined
from jdsl.ir import BEHAVIOR_FORMAT
from jdsl.ir.walk import walk_ir
from jdsl.signature import Signature

if TYPE_CHECKING:
    from jdsl.compiler.staticize.shape import Fork

__all__ = ["Emitter", "Slot"]

Names = dict[tuple[Any, str], str]


@dataclass(frozen=True)
class Slot:
    """One compiled call: ``at`` pairs a call position with the episodes it has it in (the
    representative's group first); ``steps`` are those calls, the representative's first."""

    key: Any
    tool: str
    at: tuple[tuple[int, Sequence[NormEpisode]], ...]
    steps: SlotSteps

    @classmethod
    def of(cls, key: Any, tool: str, at: Sequence[tuple[int, Sequence[NormEpisode]]]) -> Slot:
        merged: dict[int, list[Sequence[NormEpisode]]] = {}
        for position, episodes in at:
            merged.setdefault(position, []).append(episodes)
        groups = tuple((p, joined(parts)) for p, parts in merged.items())
        return cls(key, tool, groups, SlotSteps(groups))

    @property
    def position(self) -> int:
        return self.at[0][0]

    def positions(self) -> dict[str, int]:
        return {eid: p for p, eps in self.at for eid in episode_ids(eps)}


def _weakest(grades: Sequence[str]) -> str:
    return min(grades, key=GRADES.index) if grades else "E0"


class Emitter:
    """Accumulates nodes, ids, available names and provenance while the calls are walked."""

    def __init__(
        self,
        name: str,
        episodes: Sequence[NormEpisode],
        aligned: Sequence[NormEpisode],
        candidates: Sequence[Candidate],
        model: CompilerModel,
        read_only: Callable[[str], bool],
    ) -> None:
        self.name = name
        self._episodes = episodes
        self._index = {eid: i for i, eid in enumerate(episode_ids(episodes))}
        self.stated = StatedIndex(episodes)
        self.scope: Sequence[NormEpisode] = aligned
        self.by_key = {Fact(c.type, c.claim, "", None).key: c for c in candidates}
        self.guard_index: dict[tuple[Any, Any], list[Candidate]] = {}
        for c in candidates:
            if c.type == GUARD:
                self.guard_index.setdefault((c.claim["position"], c.claim["before_tool"]), [])
                self.guard_index[(c.claim["position"], c.claim["before_tool"])].append(c)
        self.recoveries = [c for c in candidates if c.type == RECOVERY and c.accepted]
        self.notes: list[str] = contested_notes(candidates)
        self.model = model
        self.read_only = read_only
        self.nodes: list[dict[str, Any]] = []
        self.ids: set[str] = set()
        self.available: set[str] = set()
        self.inputs: set[str] = set()
        self.loop_items: set[str] = set()  # for_each element names (they outlive the loop)
        self.core_reads: set[str] = set()
        self.lane_reads: set[str] | None = None
        self.residual_keys: set[str] = set()
        self.residuals: list[Residual] = []
        self.actions: list[CompiledAction] = []
        self.guards: list[CompiledGuard] = []
        self.provenance: list[NodeProvenance] = []
        self.branches: list[CompiledBranch] = []

    # -- helpers --------------------------------------------------------------------------------
    def unique(self, base: str) -> str:
        candidate, n = base, 2
        while candidate in self.ids:
            candidate, n = f"{base}_{n}", n + 1
        self.ids.add(candidate)
        return candidate

    def candidate(self, type_: str, claim: dict[str, Any]) -> Candidate | None:
        return self.by_key.get(Fact(type_, claim, "", None).key)

    def read_input(self, name: str) -> None:
        """Record a run input read here (inside a branch alternative: by that alternative)."""
        self.inputs.add(name)
        (self.core_reads if self.lane_reads is None else self.lane_reads).add(name)

    def need(self, names: set[str]) -> None:
        """Names a node reads: those not produced earlier become run inputs."""
        for name in sorted(names - self.available):
            self.read_input(name)

    def prove(self, node_id: str, kind: str, found: Sequence[Candidate | None], why: str) -> None:
        cands = [c for c in found if c is not None]
        self.provenance.append(
            NodeProvenance(
                node_id=node_id,
                kind=kind,
                evidence_grade=_weakest([c.grade for c in cands]),
                candidates=tuple(dict.fromkeys(c.candidate_id for c in cands)),
                source_episodes=tuple(sorted({e for c in cands for e in c.support})),
                contract_sources=tuple(sorted({s for c in cands for s in c.contract_sources})),
                rationale=why,
            )
        )

    # -- model decisions ------------------------------------------------------------------------
    def decisions(self, found: Sequence[ModelDecision], scope: Sequence[NormEpisode]) -> None:
        for d in found:
            if not d.signature or (d.kind == "react" and not d.outputs):
                continue
            node_id = self.unique(
                d.node_id if "/" not in d.node_id else f"decide_{len(self.nodes)}"
            )
            samples = [  # residualize reads their outputs only: inputs dropped (memory)
                dataclasses.replace(x, inputs={})
                for e in scope
                for x in e.decisions
                if x.node_id == d.node_id and x is not d
            ]
            residual = residualize_decision(d, node_id=node_id, samples=samples, model=self.model)
            self.add_residual(residual, d.input_sources)
            claim = {"node_id": d.node_id, "kind": d.kind, "signature": d.signature}
            cand = self.candidate(SEMANTIC, {**claim, "position": d.position})
            self.prove(node_id, "predict", [cand], "residual semantic decision")

    def add_residual(self, residual: Residual, sources: dict[str, str] | None) -> None:
        sig = Signature.parse(residual.node["signature"])
        for f in sig.inputs:
            path = (sources or {}).get(f.name, f.name).removeprefix("blackboard.")
            self.need(path_names(path))
        self.nodes.append(residual.node)
        self.residuals.append(residual)
        self.available.update(residual.outputs)
        self.residual_keys.update(residual.outputs)

    # -- calls ------------------------------------------------------------------------------------
    def call(
        self,
        slot: Slot,
        names: Names,
        decisions: Sequence[ModelDecision] = (),
        scope: Sequence[NormEpisode] = (),
        fixed: Mapping[str, ArgChoice] | None = None,
    ) -> None:
        """The model ``decisions`` and the guards mined before ``slot`` in the order the
        teacher evaluated them (a guard before the decision that followed it), then the
        action (``fixed``: arguments already chosen, e.g. a loop's element)."""
        mined = self.mined_guards(slot)
        for d in decisions:
            while mined and mined[0][0] < d.sequence:
                self.add_mined(slot, *mined.pop(0)[1:])
            self.decisions([d], scope)
        for _, node, base, found in mined:
            self.add_mined(slot, node, base, found)
        self.action(slot, names, fixed)

    def mined_guards(self, slot: Slot) -> list[tuple[int, dict[str, Any], str, list[Any]]]:
        """``(teacher sequence, node, id base, candidates)`` of each guard mined before
        ``slot``, in teacher order; the id base is the teacher's node id when it had one."""
        seen: set[str] = set()
        mined = []
        for c in self.guard_index.get((slot.position, slot.tool), ()):
            claim = c.claim
            key = stable_key([claim.get("type"), claim.get("expression")])
            found = [self.candidate(GUARD, {**claim, "position": p}) for p, _ in slot.at]
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

    def add_mined(self, slot: Slot, node: dict[str, Any], base: str, found: list[Any]) -> None:
        self.need(node_names(node))
        self.add_guard(slot, node, base, "mined", found)

    def add_guard(
        self, slot: Slot, node: dict[str, Any], base: str, origin: str, found: list[Any]
    ) -> None:
        if _already_guarded(self.nodes, node):
            return
        node_id = self.unique(base)
        node = {**node, "id": node_id}
        self.nodes.append(node)
        self.guards.append(CompiledGuard(node_id, slot.position, node, origin, slot.positions()))
        self.prove(node_id, node["kind"], found, _WHY[origin])

    def action(
        self, slot: Slot, names: Names, fixed: Mapping[str, ArgChoice] | None = None
    ) -> None:
        p, tool, rep = slot.position, slot.tool, slot.steps[0]
        choices = [(fixed or {}).get(arg) or self.argument(slot, arg, names)
                   for arg in rep.arguments]  # fmt: skip
        for c in choices:
            for prefix in residual_prefixes(c, self.residual_keys):
                self.add_guard(slot, {"kind": "guard", "expression": {"exists": {"ref": prefix}}},
                               f"check_{slug(tool)}_{p}", "exists", [])  # fmt: skip
        node_id = self.unique(_action_id(rep, tool, p))
        node: dict[str, Any] = {"kind": "action", "id": node_id, "tool": tool}
        if choices:
            node["args"] = {c.argument: c.spec for c in choices}
        if rep.store:
            node["store"] = rep.store
        self.nodes.append(with_recovery(self, node, slot))
        self.actions.append(CompiledAction(node_id, p, tool, tuple(choices), slot.positions()))
        found = [self.candidate(ACTION, {"tool": tool, "position": q}) for q, _ in slot.at]
        found += [
            self.candidate(DATAFLOW, {"source": c.source, "tool": tool, "argument": c.argument,
                                      "position": q})
            for c in choices if c.how in ("dataflow", "selection") for q, _ in slot.at
        ]  # fmt: skip
        kinds = ", ".join(f"{c.argument}={c.how}" for c in choices) or "no arguments"
        self.prove(node_id, "action", found, f"ACTION {tool} at {p} ({kinds})")
        if rep.store:
            self.available.add(rep.store)

    def argument(self, slot: Slot, arg: str, names: Names) -> ArgChoice:
        synth = names.get((slot.key, arg), arg)
        choice = choose_argument(arg, slot.steps, available=self.available,
                                 synthesized_input=synth, who=lambda: self._who(slot),
                                 always_stated=lambda: self.stated(slot.tool, arg))  # fmt: skip
        if choice.source == synth and synth in self.loop_items:  # not the loop's last element
            synth = f"{slug(slot.tool)}_{slot.position}_{arg}"
            choice = dataclasses.replace(choice, spec={"ref": synth}, source=synth)
        if choice.how == "input":
            self.read_input(str(choice.source))
        elif choice.how == "residual":
            choice = self._generated(slot, choice, synth)
        elif choice.how == "selection":
            choice = self._selection(slot, choice)
        return choice

    @staticmethod
    def _who(slot: Slot) -> list[str]:
        """Per episode of ``slot``: its task (``task_id`` / ``task_family``), else its inputs
        (another user); what a constant's support must span."""
        found = []
        for _, episodes in slot.at:
            for e in episodes:
                task = e.metadata.get("task_id", e.metadata.get("task_family"))
                found.append(f"task:{task}" if task is not None else stable_key(e.inputs))
        return found

    def _free_key(self, slot: Slot, base: str) -> str:
        """``base``, or ``<tool>_<position>_<base>`` when an earlier node already wrote it."""
        taken = self.available | self.inputs
        return base if base not in taken else f"{slug(slot.tool)}_{slot.position}_{base}"

    def _generated(self, slot: Slot, choice: ArgChoice, synth: str) -> ArgChoice:
        """A predict that writes an argument a model chose and nothing else explains; it reads
        the conversation (or the run inputs) and the state the recorded value mentions."""
        key = self._free_key(slot, synth)
        reads = self._reads() + mentioned_keys(choice.values, slot.steps, self.available)
        residual = residualize_argument(
            node_id=self.unique(f"choose_{key}"), output=key, values=list(choice.values),
            inputs=reads, model=self.model,
        )  # fmt: skip
        self.add_residual(residual, None)
        self.prove(residual.node["id"], "predict", [],
                   f"model-chosen {choice.argument} of {slot.tool}")  # fmt: skip
        return dataclasses.replace(choice, spec={"ref": key}, source=key)

    def _selection(self, slot: Slot, choice: ArgChoice) -> ArgChoice:
        """A predict that picks which elements of a list in state a list argument takes."""
        template = str(choice.template)
        one = not isinstance(choice.values[0], list)  # a scalar: one element by position
        key = self._free_key(slot, index_key(choice.argument) if not one
                             else f"{slug(choice.argument).removesuffix('_id')}_index")  # fmt: skip
        what = template.split("[*]")[0]
        residual = residualize_argument(
            node_id=self.unique(f"choose_{key}"), output=key,
            values=[i[0] if one else list(i) for i in choice.indexes],
            inputs=self._reads() + [top_key(template)], model=self.model,
            note=(f"Answer with the 0-based index of the element of {what} that "
                  f"{choice.argument} takes." if one else
                  f"Answer with a JSON list of the 0-based indexes of the elements of "
                  f"{what} that {choice.argument} takes."),
        )  # fmt: skip
        self.add_residual(residual, None)
        self.prove(residual.node["id"], "predict", [],
                   f"model-chosen elements of {choice.argument} of {slot.tool}")  # fmt: skip
        path = template.replace("[*]", f"[${key}]", 1)
        return dataclasses.replace(choice, spec={"ref": path}, source=path)

    def _reads(self) -> list[str]:
        """What a generated residual reads: the conversation when every episode in scope has
        it, else every run input they share."""
        shared = self._episode_inputs()
        return ["conversation"] if "conversation" in shared else sorted(shared)

    def route_decision(self, routes: Sequence[tuple[str, str]]) -> str:
        """A residual decision choosing a branch alternative by name; returns its output key."""
        key, n = "route", 2
        while key in self.available:
            key, n = f"route_{n}", n + 1
        inputs = sorted(self._episode_inputs() | self.available)
        residual = residualize_route(node_id=self.unique(f"choose_{key}"), output=key,
                                     routes=routes, inputs=inputs)  # fmt: skip
        self.add_residual(residual, None)
        self.prove(residual.node["id"], "predict", [],
                   "route decision: the teacher took these paths without evaluating a "
                   "condition that tells them apart")  # fmt: skip
        return key

    def route_check(self, key: str, value: str, base: str) -> None:
        """``check key == value`` selecting an alternative (verified by execution)."""
        node_id = self.unique(base)
        self.nodes.append({"kind": "check", "id": node_id, "key": key, "equals": value})
        self.prove(
            node_id, "check", [], f"selects the alternative the route decision names {value!r}"
        )

    def _episode_inputs(self) -> set[str]:
        """The run inputs every episode in scope had (what a residual may read)."""
        keys = [set(e.inputs) for e in self.scope]
        return set.intersection(*keys) if keys else set()

    # -- branches ---------------------------------------------------------------------------------
    def episode(self, episode_id: str) -> NormEpisode | None:
        """The episode of that id (the last one when ids repeat), None when there is none."""
        i = self._index.get(episode_id)
        return None if i is None else self._episodes[i]

    @contextmanager
    def branch(
        self, fork: Fork, teacher_ir: dict[str, Any] | None, hosts: Sequence[str]
    ) -> Iterator[Alternatives]:
        """Open a selector for ``fork`` (:class:`~jdsl.compiler.staticize.shape.Fork`); emit
        each alternative inside ``with branch.alternative(...)``."""
        teacher = teacher_selector(teacher_ir, hosts)
        builder = Alternatives(self, self.unique(teacher or f"branch_{fork.position}"))
        start = len(self.provenance)
        yield builder
        # after the selector: what every alternative produced (each started from the base)
        self.available = builder.base[0] | set.intersection(*builder.produced)
        self.residual_keys = builder.base[1] | set.intersection(*builder.residual)
        every = set.intersection(*(set(a.reads) for a in builder.alternatives))
        (self.core_reads if self.lane_reads is None else self.lane_reads).update(every)
        self.nodes.append({"kind": "selector", "id": builder.node_id, "children": builder.children})
        branch = CompiledBranch(builder.node_id, fork.position, tuple(builder.alternatives),
                                fork.tail, teacher, fork.selection)  # fmt: skip
        self.branches.append(branch)
        support = ", ".join(f"{len(a.episodes)}" for a in branch.alternatives)
        why = (
            (f"{len(fork.arms)} successful paths share the final calls {' -> '.join(fork.tail)}; "
             if fork.tail else f"{len(fork.arms)} successful paths part ways here; ")
            + f"alternatives by support ({support} episodes)"
            + (f"; the teacher's selector {teacher!r} chose here" if teacher else "")
        )  # fmt: skip
        grade = _weakest([support_grade(len(a.episodes)) for a in branch.alternatives])
        ids = tuple(sorted(e for a in branch.alternatives for e in a.episodes))
        self.provenance.insert(
            start, NodeProvenance(builder.node_id, "selector", grade, source_episodes=ids,
                                  rationale=why),
        )  # fmt: skip

    # -- result -----------------------------------------------------------------------------------
    def result(
        self, skeleton: tuple[str, ...], aligned: Sequence[NormEpisode], notes: tuple[str, ...]
    ) -> CompiledBehavior:
        flow = {"kind": "sequence", "id": f"{slug(self.name)}_flow", "children": self.nodes}
        root: dict[str, Any] = {"kind": "root", "name": self.name, "child": flow}
        system = _common_system(aligned)
        if system:
            root["system"] = system
        tools = {a.tool for a in self.actions} | {
            n["tool"] for n in _walk(root) if n.get("kind") == "action"
        }
        required = set(self.core_reads)  # a branch adds what all its alternatives read
        return CompiledBehavior(
            name=self.name,
            ir={"format": BEHAVIOR_FORMAT, "root": root},
            residuals=tuple(self.residuals),
            actions=tuple(self.actions),
            guards=tuple(self.guards),
            provenance=tuple(self.provenance),
            inputs=tuple(sorted(self.inputs)),
            skeleton=skeleton,
            aligned=tuple(episode_ids(aligned)),
            required_capabilities=tuple(sorted(tools)),
            compiler_model=self.model.name,
            notes=(*notes, *self.notes),
            branches=tuple(self.branches),
            required_inputs=tuple(sorted(required)),
        )


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
    for n in _walk(node):
        if n.get("store"):
            found.add(str(n["store"]))
        if n.get("kind") in ("predict", "react") and n.get("signature"):
            found.update(f.name for f in Signature.parse(n["signature"]).outputs)
    return found


def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node dict under ``node``, pre-order (:func:`jdsl.ir.walk.walk_ir`)."""
    return list(walk_ir(node))


def _action_id(step: NormStep, tool: str, p: int) -> str:
    author = step.node_id and "/" not in step.node_id and step.node_type == "action"
    return str(step.node_id) if author else f"{slug(tool)}_{p}"


def _common_system(aligned: Sequence[NormEpisode]) -> str | None:
    systems = {(e.teacher_ir or {}).get("system") for e in aligned}
    return systems.pop() if len(systems) == 1 else None
