"""The alternatives of one compiled branch while :class:`~jdsl.compiler.emitter.Emitter`
emits them: each alternative's nodes, what it made available, its input guard and the text of
the conditions that select it."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from jdsl.compiler.branches import Lane
from jdsl.compiler.compiled import BranchAlternative, CompiledGuard, NodeProvenance
from jdsl.compiler.consolidate import support_grade
from jdsl.compiler.guards import exists_names
from jdsl.text.expression import format_expression

if TYPE_CHECKING:
    from jdsl.compiler.emitter import Emitter, Slot

__all__ = ["Alternatives"]


class Alternatives:
    """One selector being emitted: its alternatives' nodes, what each made available."""

    def __init__(self, em: Emitter, node_id: str) -> None:
        self.em = em
        self.node_id = node_id
        self.base = (set(em.available), set(em.residual_keys))
        self.children: list[dict[str, Any]] = []
        self.produced: list[set[str]] = []
        self.residual: list[set[str]] = []
        self.alternatives: list[BranchAlternative] = []

    @contextmanager
    def alternative(self, lane: Lane, slots: Sequence[Slot]) -> Iterator[None]:
        """Emit one alternative: its nodes go into ``seq(guard, ...)`` under the selector."""
        em = self.em
        outer = (em.nodes, em.scope, em.lane_reads)
        em.nodes, em.scope, em.lane_reads = [], lane.episodes, set()
        em.available, em.residual_keys = set(self.base[0]), set(self.base[1])
        k = len(self.children) + 1
        seq_id = em.unique(f"{self.node_id}_{k}")
        marks = (len(em.provenance), len(em.actions), len(em.guards))
        yield
        reads = em.lane_reads
        guard_inputs = self._input_guard(lane, slots, k, marks)
        self.children.append({"kind": "sequence", "id": seq_id, "children": em.nodes})
        n = len(lane.episodes)
        tools = tuple(s.tool for s in slots)
        em.provenance.insert(marks[0], NodeProvenance(
            seq_id, "sequence", support_grade(n), source_episodes=tuple(sorted(lane.ids)),
            rationale=f"alternative {k} of {self.node_id}: {n} successful episodes call "
                      f"{' -> '.join(tools)}",
        ))  # fmt: skip
        self.alternatives.append(
            BranchAlternative(
                seq_id,
                tools,
                lane.ids,
                guard_inputs,
                tuple(sorted(reads)),
                _selection_text(em.nodes, f"{self.node_id}_{k}_when"),
            )  # fmt: skip
        )
        self.produced.append(em.available)
        self.residual.append(em.residual_keys)
        em.nodes, em.scope, em.lane_reads = outer

    def _input_guard(
        self, lane: Lane, slots: Sequence[Slot], k: int, marks: tuple[int, int, int]
    ) -> tuple[str, ...]:
        """Put ``exists(...)`` of the run inputs the alternative's arguments read first in it
        (unless a mined guard there already says so); returns those inputs."""
        em = self.em
        read = {
            str(c.source) for a in em.actions[marks[1] :] for c in a.choices if c.how == "input"
        }
        names = sorted(n for n in read if all(n in e.inputs for e in lane.episodes))
        if not names:
            return ()
        mined = [g for g in em.guards[marks[2] :] if g.origin == "mined"]
        if any(exists_names(g.node.get("expression")) == set(names) for g in mined):
            return tuple(names)
        parts = [{"exists": {"ref": name}} for name in names]
        expression = parts[0] if len(parts) == 1 else {"and": parts}
        node_id = em.unique(f"{self.node_id}_{k}_inputs")
        node = {"kind": "guard", "id": node_id, "expression": expression}
        em.nodes.insert(0, node)
        em.guards.insert(marks[2], CompiledGuard(node_id, slots[0].position, node, "branch",
                                                 slots[0].positions()))  # fmt: skip
        em.provenance.insert(marks[0], NodeProvenance(
            node_id, "guard", support_grade(len(lane.episodes)),
            source_episodes=tuple(sorted(lane.ids)),
            rationale=f"alternative {k} of {self.node_id} reads run inputs {', '.join(names)}",
        ))  # fmt: skip
        return tuple(names)


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
