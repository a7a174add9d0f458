"""Staticize: build Behavior IR from the modal successful skeleton.

The control skeleton is the most common tool sequence among successful episodes (ties go to
the first seen); the representative is the first episode with it. For each skeleton position
the compiler emits, in order (seeds/compiler-internals.md §5, DESIGN.md §6):

1. the residual model decisions observed before that call (predict leaves);
2. guards the teacher evaluated there and that held in every aligned episode;
3. ``exists(...)`` guards for every argument indexed by a residual decision, so an invalid
   model answer (an out-of-range index) fails cleanly before the tool is called;
4. the action, each argument chosen by :func:`jdsl.compiler.arguments.choose_argument`;
5. a recovery selector when accepted RECOVERY evidence exists for the tool.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from jdsl.compiler.arguments import ArgChoice, choose_argument, input_names, path_names
from jdsl.compiler.candidates import ACTION, DATAFLOW, GUARD, RECOVERY, SEMANTIC, Fact
from jdsl.compiler.consolidate import Candidate
from jdsl.compiler.normalize import ModelDecision, NormEpisode, NormStep, slug
from jdsl.compiler.residualize import (
    CompilerModel,
    Residual,
    as_compiler_model,
    residualize_argument,
    residualize_decision,
)
from jdsl.expr import expression_paths
from jdsl.ir import BEHAVIOR_FORMAT
from jdsl.ir.nodes import child_slots
from jdsl.signature import Signature

__all__ = [
    "GRADES",
    "CompiledAction",
    "CompiledBehavior",
    "CompiledGuard",
    "NodeProvenance",
    "modal_skeleton",
    "staticize",
]

GRADES = ("E0", "E1", "E2", "E3", "E4")


@dataclass(frozen=True)
class NodeProvenance:
    """Why a compiled node exists: its evidence grade, candidates and source episodes."""

    node_id: str
    kind: str
    evidence_grade: str
    candidates: tuple[str, ...] = ()
    source_episodes: tuple[str, ...] = ()
    contract_sources: tuple[str, ...] = ()
    rationale: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "node_id": self.node_id,
            "kind": self.kind,
            "evidence_grade": self.evidence_grade,
            "candidates": list(self.candidates),
            "source_episodes": list(self.source_episodes),
            "contract_sources": list(self.contract_sources),
            "rationale": self.rationale,
        }


@dataclass(frozen=True)
class CompiledAction:
    """A skeleton action: the node id, its position and the choice made for each argument."""

    node_id: str
    position: int
    tool: str
    choices: tuple[ArgChoice, ...]


@dataclass(frozen=True)
class CompiledGuard:
    """A guard or check placed before the action at ``position`` (``origin`` mined / exists)."""

    node_id: str
    position: int
    node: dict[str, Any]
    origin: str


@dataclass(frozen=True)
class CompiledBehavior:
    """The output of :func:`staticize`.

    Attributes:
        name: the behavior name.
        ir: the Behavior IR document ``{"format", "root"}``.
        residuals: the model leaves left, with their signature records.
        actions / guards: what replay verification checks.
        provenance: one record per compiled node, in tree order.
        inputs: the run inputs the behavior reads (sorted).
        skeleton: the modal tool sequence; aligned: the episodes that follow it.
        required_capabilities: the tools it calls (sorted).
        compiler_model: who named and worded residuals.
        notes: anything the report should say (e.g. nothing to compile).
    """

    name: str
    ir: dict[str, Any]
    residuals: tuple[Residual, ...]
    actions: tuple[CompiledAction, ...]
    guards: tuple[CompiledGuard, ...]
    provenance: tuple[NodeProvenance, ...]
    inputs: tuple[str, ...]
    skeleton: tuple[str, ...]
    aligned: tuple[str, ...]
    required_capabilities: tuple[str, ...]
    compiler_model: str
    notes: tuple[str, ...] = field(default=())


def modal_skeleton(episodes: Sequence[NormEpisode]) -> tuple[tuple[str, ...], list[NormEpisode]]:
    """The most common tool sequence among successful episodes (or, when none is known to
    have succeeded, among those whose outcome is unknown; failed episodes never compile).

    Returns:
        ``(skeleton, aligned episodes)``; ties are broken by first occurrence.
    """
    pool = [e for e in episodes if e.success] or [e for e in episodes if e.success is None]
    if not pool:
        return (), []
    counts = Counter(e.tool_sequence() for e in pool)
    best = max(counts.values())
    skeleton = next(e.tool_sequence() for e in pool if counts[e.tool_sequence()] == best)
    return skeleton, [e for e in pool if e.tool_sequence() == skeleton]


def staticize(
    episodes: Sequence[NormEpisode],
    candidates: Sequence[Candidate],
    *,
    name: str = "behavior",
    model: CompilerModel | Any = None,
) -> CompiledBehavior:
    """Build the compiled behavior (IR, residual signatures, provenance) from the evidence.

    Args:
        episodes: normalized episodes.
        candidates: consolidated candidates of the same episodes.
        name: the root's name.
        model: a compiler model for residual wording (None: offline heuristics).
    """
    skeleton, aligned = modal_skeleton(episodes)
    em = _Emitter(name, episodes, aligned, candidates, as_compiler_model(model))
    if not aligned:
        return em.result(skeleton, aligned, ("no successful episode to compile",))
    rep = aligned[0]
    slots = [
        (p, tool, arg, [e.ok_steps()[p] for e in aligned])
        for p, tool in enumerate(skeleton)
        for arg in rep.ok_steps()[p].arguments
    ]
    names = input_names(slots)
    placed = _decision_positions(rep)

    def at(p: int, last: bool = False) -> list[ModelDecision]:
        return [d for d, q in placed if q == p or (last and q > p)]

    aligned_ids = {e.episode_id for e in aligned}
    for p, tool in enumerate(skeleton):
        em.decisions(at(p), aligned)
        em.mined_guards(p, tool, aligned_ids)
        em.action(p, tool, [e.ok_steps()[p] for e in aligned], names)
    em.decisions(at(len(skeleton), last=True), aligned)
    return em.result(skeleton, aligned, ())


def _decision_positions(rep: NormEpisode) -> list[tuple[ModelDecision, int]]:
    """Where each decision goes: a predict before the next call; a react's answer after the
    calls it made (its tool calls compile to actions)."""
    placed = []
    for d in rep.decisions:
        own = sum(1 for s in rep.ok_steps() if s.node_id == d.node_id)
        placed.append((d, d.position + own if d.kind == "react" else d.position))
    return placed


def _weakest(grades: Sequence[str]) -> str:
    return min(grades, key=GRADES.index) if grades else "E0"


class _Emitter:
    """Accumulates nodes, ids, available names and provenance while the skeleton is walked."""

    def __init__(
        self,
        name: str,
        episodes: Sequence[NormEpisode],
        aligned: Sequence[NormEpisode],
        candidates: Sequence[Candidate],
        model: CompilerModel,
    ) -> None:
        self.name = name
        self.episodes = {e.episode_id: e for e in episodes}
        self.aligned = aligned
        self.by_key = {Fact(c.type, c.claim, "", None).key: c for c in candidates}
        self.guard_candidates = [c for c in candidates if c.type == GUARD]
        self.recoveries = [c for c in candidates if c.type == RECOVERY and c.accepted]
        self.model = model
        self.nodes: list[dict[str, Any]] = []
        self.ids: set[str] = set()
        self.available: set[str] = set()
        self.inputs: set[str] = set()
        self.residual_keys: set[str] = set()
        self.residuals: list[Residual] = []
        self.actions: list[CompiledAction] = []
        self.guards: list[CompiledGuard] = []
        self.provenance: list[NodeProvenance] = []

    # -- helpers --------------------------------------------------------------------------------
    def unique(self, base: str) -> str:
        candidate, n = base, 2
        while candidate in self.ids:
            candidate, n = f"{base}_{n}", n + 1
        self.ids.add(candidate)
        return candidate

    def candidate(self, type_: str, claim: dict[str, Any]) -> Candidate | None:
        return self.by_key.get(Fact(type_, claim, "", None).key)

    def need(self, names: set[str]) -> None:
        """Names a node reads: those not produced earlier become run inputs."""
        self.inputs.update(names - self.available)

    def prove(self, node_id: str, kind: str, found: Sequence[Candidate | None], why: str) -> None:
        cands = [c for c in found if c is not None]
        episodes = sorted({e for c in cands for e in c.support})
        self.provenance.append(
            NodeProvenance(
                node_id=node_id,
                kind=kind,
                evidence_grade=_weakest([c.grade for c in cands]),
                candidates=tuple(c.candidate_id for c in cands),
                source_episodes=tuple(episodes),
                contract_sources=tuple(sorted({s for c in cands for s in c.contract_sources})),
                rationale=why,
            )
        )

    # -- model decisions ------------------------------------------------------------------------
    def decisions(self, found: Sequence[ModelDecision], aligned: Sequence[NormEpisode]) -> None:
        for d in found:
            if not d.signature or (d.kind == "react" and not d.outputs):
                continue
            node_id = self.unique(
                d.node_id if "/" not in d.node_id else f"decide_{len(self.nodes)}"
            )
            samples = [x for e in aligned[1:] for x in e.decisions if x.node_id == d.node_id]
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

    # -- guards -----------------------------------------------------------------------------------
    def mined_guards(self, p: int, tool: str, aligned_ids: set[str]) -> None:
        seen: set[str] = set()
        for c in self.guard_candidates:
            claim = c.claim
            if claim["position"] != p or claim["before_tool"] != tool:
                continue
            if not aligned_ids <= set(c.support) or str(claim["expression"]) in seen:
                continue
            node = _guard_node(claim)
            if node is None:
                continue
            seen.add(str(claim["expression"]))
            self.need(_node_names(node))
            self.add_guard(p, node, f"guard_{slug(tool)}_{p}", "mined", [c])

    def add_guard(
        self, p: int, node: dict[str, Any], base: str, origin: str, found: list[Any]
    ) -> None:
        node_id = self.unique(base)
        node = {**node, "id": node_id}
        self.nodes.append(node)
        self.guards.append(CompiledGuard(node_id, p, node, origin))
        why = "guard the teacher evaluated" if origin == "mined" else "protects a residual index"
        self.prove(node_id, node["kind"], found, why)

    # -- actions ----------------------------------------------------------------------------------
    def action(
        self, p: int, tool: str, steps: list[NormStep], names: dict[tuple[int, str], str]
    ) -> None:
        choices = [self.argument(p, arg, steps, names) for arg in steps[0].arguments]
        for c in choices:
            for prefix in _residual_prefixes(c, self.residual_keys):
                self.add_guard(p, {"kind": "guard", "expression": {"exists": prefix}},
                               f"check_{slug(tool)}_{p}", "exists", [])  # fmt: skip
        rep = steps[0]
        node_id = self.unique(_action_id(rep, tool, p))
        node: dict[str, Any] = {"kind": "action", "id": node_id, "tool": tool}
        if choices:
            node["args"] = {c.argument: c.spec for c in choices}
        if rep.store:
            node["store"] = rep.store
        self.nodes.append(self._with_recovery(node, tool, p))
        self.actions.append(CompiledAction(node_id, p, tool, tuple(choices)))
        found = [self.candidate(ACTION, {"tool": tool, "position": p})]
        found += [self._dataflow(c, tool, p) for c in choices if c.how == "dataflow"]
        kinds = ", ".join(f"{c.argument}={c.how}" for c in choices) or "no arguments"
        self.prove(node_id, "action", found, f"ACTION {tool} at {p} ({kinds})")
        if rep.store:
            self.available.add(rep.store)

    def argument(
        self, p: int, arg: str, steps: list[NormStep], names: dict[tuple[int, str], str]
    ) -> ArgChoice:
        synth = names.get((p, arg), arg)
        choice = choose_argument(arg, steps, available=self.available, synthesized_input=synth)
        if choice.how == "input":
            self.inputs.add(str(choice.source))
        elif choice.how == "residual":
            key = (
                synth if synth not in self.available else f"{slug(steps[0].logical_tool)}_{p}_{arg}"
            )
            choice = ArgChoice(arg, "residual", {"ref": key}, key, choice.values)
            residual = residualize_argument(
                node_id=self.unique(f"choose_{key}"), output=key, values=list(choice.values),
                inputs=sorted(self._episode_inputs()), model=self.model,
            )  # fmt: skip
            self.add_residual(residual, None)
            self.prove(
                residual.node["id"], "predict", [], f"model-chosen {arg} of {steps[0].logical_tool}"
            )
        return choice

    def _dataflow(self, c: ArgChoice, tool: str, p: int) -> Candidate | None:
        claim = {"source": c.source, "tool": tool, "argument": c.argument, "position": p}
        return self.candidate(DATAFLOW, claim)

    def _with_recovery(self, node: dict[str, Any], tool: str, p: int) -> dict[str, Any]:
        for c in self.recoveries:
            if c.claim["on_error_of"] == tool:
                recovery = self._recovery_action(c)
                if recovery is not None:
                    self.prove(recovery["id"], "action", [c], f"RECOVERY {c.text}")
                    return {"kind": "selector", "id": self.unique(f"try_{node['id']}"),
                            "children": [node, recovery]}  # fmt: skip
        return node

    def _recovery_action(self, c: Candidate) -> dict[str, Any] | None:
        episode = self.episodes.get(c.support[0])
        position = c.claim["position"]
        if episode is None or position is None:
            return None
        step = episode.ok_steps()[position]
        args: dict[str, Any] = {}
        for arg, value in step.arguments.items():
            path = next(
                (x for x in step.arg_sources.get(arg, ()) if path_names(x) <= self.available), None
            )
            args[arg] = {"ref": path} if path else {"const": value}
        node: dict[str, Any] = {"kind": "action", "id": self.unique(f"recover_{slug(step.logical_tool)}_{position}"),
                                "tool": step.logical_tool}  # fmt: skip
        if args:
            node["args"] = args
        if step.store:
            node["store"] = step.store
        return node

    def _episode_inputs(self) -> set[str]:
        """The run inputs every aligned episode had (what a residual may read)."""
        keys = [set(e.inputs) for e in self.aligned]
        return set.intersection(*keys) if keys else set()

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
        return CompiledBehavior(
            name=self.name,
            ir={"format": BEHAVIOR_FORMAT, "root": root},
            residuals=tuple(self.residuals),
            actions=tuple(self.actions),
            guards=tuple(self.guards),
            provenance=tuple(self.provenance),
            inputs=tuple(sorted(self.inputs)),
            skeleton=skeleton,
            aligned=tuple(e.episode_id for e in aligned),
            required_capabilities=tuple(sorted(tools)),
            compiler_model=self.model.name,
            notes=notes,
        )


def _walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    found = [node]
    for child in child_slots(node):
        found += _walk(child)
    return found


def _action_id(step: NormStep, tool: str, p: int) -> str:
    author = step.node_id and "/" not in step.node_id and step.node_type == "action"
    return str(step.node_id) if author else f"{slug(tool)}_{p}"


def _residual_prefixes(choice: ArgChoice, residual_keys: set[str]) -> list[str]:
    """``orders[$selected_index]`` for a ref ``orders[$selected_index].id`` when
    ``selected_index`` is a residual output."""
    if choice.how != "dataflow" or not choice.source:
        return []
    path = choice.source
    found = []
    for key in sorted(residual_keys):
        marker = f"[${key}]"
        at = path.find(marker)
        if at >= 0:
            found.append(path[: at + len(marker)])
    return found


def _guard_node(claim: dict[str, Any]) -> dict[str, Any] | None:
    expression = claim.get("expression")
    if claim.get("type") == "check":
        if not isinstance(expression, dict):
            return None
        try:
            ((left, right),) = [expression["eq"]]
            return {"kind": "check", "key": left["ref"], "equals": right["const"]}
        except (KeyError, TypeError, ValueError):
            return None
    return {"kind": "guard", "expression": expression} if isinstance(expression, dict) else None


def _node_names(node: dict[str, Any]) -> set[str]:
    if node["kind"] == "check":
        return path_names(node["key"])
    return {name for path in expression_paths(node["expression"]) for name in path_names(path)}


def _common_system(aligned: Sequence[NormEpisode]) -> str | None:
    systems = {(e.teacher_ir or {}).get("system") for e in aligned}
    return systems.pop() if len(systems) == 1 else None
