"""What staticize produces: the compiled behavior and the records verification replays."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jdsl.compiler.arguments import ArgChoice
from jdsl.compiler.residualize import Residual

__all__ = [
    "GRADES",
    "BranchAlternative",
    "CompiledAction",
    "CompiledBehavior",
    "CompiledBranch",
    "CompiledGuard",
    "NodeProvenance",
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
    """A compiled call: its node id, tool, the choice made for each argument, and where it is
    in the episodes it was compiled from.

    Attributes:
        position: its call position in the representative episode.
        at: ``{episode id: call position}`` over the episodes it replays against (an action
            inside a branch alternative: only that alternative's episodes).
    """

    node_id: str
    position: int
    tool: str
    choices: tuple[ArgChoice, ...]
    at: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class CompiledGuard:
    """A guard or check placed before the call at ``position`` (``origin``: ``mined``,
    ``exists`` or ``branch``); ``at`` as in :class:`CompiledAction`."""

    node_id: str
    position: int
    node: dict[str, Any]
    origin: str
    at: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class BranchAlternative:
    """One alternative of a compiled branch.

    Attributes:
        node_id: its sequence node.
        tools: its own calls, in order.
        episodes: the successful episodes that follow it (its support).
        guard_inputs: the run inputs its guard requires (empty: no input guard).
        reads: every run input it reads.
        selected_by: the conditions that select it, as text (``orders[$i].status ==
            "pending"``, ``route == "cancel"``); empty when only its inputs do.
        hands_over: it hands the run over to the fallback (``episodes``: the runs too few
            to compile that took that way; ``tools`` is empty).
    """

    node_id: str
    tools: tuple[str, ...]
    episodes: tuple[str, ...]
    guard_inputs: tuple[str, ...]
    reads: tuple[str, ...]
    selected_by: tuple[str, ...] = ()
    hands_over: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "node_id": self.node_id,
            "tools": list(self.tools),
            "support": len(self.episodes),
            "guard_inputs": list(self.guard_inputs),
            "reads": list(self.reads),
            "selected_by": list(self.selected_by),
            "hands_over": self.hands_over,
        }


@dataclass(frozen=True)
class CompiledBranch:
    """A selector over alternatives that reach one shared tail (see :mod:`.branches`).

    Attributes:
        node_id: the selector.
        position: how many shared calls come before it.
        alternatives: by support, most first.
        tail: the calls every alternative then shares.
        teacher_selector: the id of the teacher selector it matches (``""``: unnamed; None:
            no teacher tree recorded one).
        selection: ``inputs``, ``conditions`` or ``route`` (:mod:`jdsl.compiler.branches`).
    """

    node_id: str
    position: int
    alternatives: tuple[BranchAlternative, ...]
    tail: tuple[str, ...]
    teacher_selector: str | None = None
    selection: str = "inputs"

    def to_dict(self) -> dict[str, Any]:
        return {
            "node_id": self.node_id,
            "position": self.position,
            "alternatives": [a.to_dict() for a in self.alternatives],
            "tail": list(self.tail),
            "teacher_selector": self.teacher_selector,
            "selection": self.selection,
        }

    def text(self) -> str:
        """``identify: retail.a (15 episodes, exists(email)) | retail.b (9 episodes)``."""
        parts = []
        for alt in self.alternatives:
            conditions = [*(f"exists({n})" for n in alt.guard_inputs), *alt.selected_by]
            when = ", when " + " and ".join(conditions) if conditions else ""
            what = "hand over to the fallback" if alt.hands_over else " -> ".join(alt.tools)
            parts.append(f"{what} ({len(alt.episodes)} episodes{when})")
        return f"{self.node_id}: " + " | ".join(parts)


@dataclass(frozen=True)
class CompiledBehavior:
    """The output of :func:`jdsl.compiler.staticize.staticize`.

    Attributes:
        name: the behavior name.
        ir: the Behavior IR document ``{"format", "root"}``.
        residuals: the model leaves left, with their signature records.
        actions / guards: what replay verification checks.
        provenance: one record per compiled node, in tree order.
        inputs: every run input the behavior reads (sorted).
        skeleton: the modal tool sequence; aligned: the episodes compiled from (every branch
            alternative's), in input order.
        required_capabilities: the tools it calls (sorted).
        compiler_model: who named and worded residuals.
        notes: anything the report should say (e.g. nothing to compile, paths not branched).
        branches: the compiled branches.
        required_inputs: the run inputs every path reads (sorted); the others are read only by
            some branch alternatives.
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
    branches: tuple[CompiledBranch, ...] = field(default=())
    required_inputs: tuple[str, ...] = field(default=())

    def input_alternatives(self) -> list[list[list[str]]]:
        """Per branch, per alternative: the run inputs it reads beyond the required ones."""
        required = set(self.required_inputs)
        return [
            [sorted(set(alt.reads) - required) for alt in branch.alternatives]
            for branch in self.branches
        ]
