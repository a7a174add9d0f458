"""Metrics of a compiled behavior, computed from its IR alone.

* residual decision burden (RDB): model leaves / meaningful decisions, where meaningful
  decisions are actions, guards, checks, guard calls, predicts and reacts;
* deterministic coverage: 1 - RDB;
* exact dataflow refs: action arguments that ref a value an earlier *tool result* holds (the
  path's top-level key is an earlier action's store; a ``[$index]`` may come from a model
  decision, as in ``user.orders[$order_index]``), and their rate over all action arguments;
  refs straight to a model output (``reason``) count as residual refs, refs to anything else
  (run inputs) as input refs;
* tool branching: the average number of tools a model leaf may choose from (0 for predict);
* deterministic branching: selectors (branch points: compiled branches, recovery selectors,
  authored selectors) and their average number of alternatives, chosen by guards and
  failures, never by a model;
* instruction words: the average whitespace word count of model-leaf instructions (a word
  count, not tokenizer tokens).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from jdsl.compiler.arguments import top_key
from jdsl.compiler.fallback import compiled_program
from jdsl.ir.walk import child_slots, walk_ir
from jdsl.signature import Signature

__all__ = ["PackageMetrics", "package_metrics"]

_DETERMINISTIC = frozenset({"action", "guard", "check", "guard_call"})
_MODEL = frozenset({"predict", "react"})


@dataclass(frozen=True)
class PackageMetrics:
    """See the module docstring for each field."""

    meaningful_decisions: int
    model_dependent_decisions: int
    residual_decision_burden: float
    deterministic_coverage: float
    exact_dataflow_refs: int
    action_arguments: int
    exact_dataflow_rate: float
    tool_branching: float
    instruction_words: float
    residual_refs: int = 0
    input_refs: int = 0
    branch_points: int = 0
    deterministic_branching: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Counter:
    def __init__(self) -> None:
        self.stores: set[str] = set()
        self.decided: set[str] = set()
        self.deterministic = 0
        self.model = 0
        self.refs = {"tool": 0, "model": 0, "input": 0}
        self.args = 0
        self.tools: list[int] = []
        self.words: list[int] = []
        self.alternatives: list[int] = []

    def source(self, path: str) -> str:
        """Where a ref's top-level key comes from: ``tool``, ``model`` or ``input``."""
        top = top_key(path)
        return "tool" if top in self.stores else "model" if top in self.decided else "input"

    def visit(self, root: dict[str, Any]) -> None:
        """Count every node under ``root``, pre-order (a ref's source is what came before)."""
        for node in walk_ir(root):
            self._count(node)

    def _count(self, node: dict[str, Any]) -> None:
        kind = node.get("kind")
        if kind in _DETERMINISTIC:
            self.deterministic += 1
        if kind == "action":
            for spec in (node.get("args") or {}).values():
                self.args += 1
                if isinstance(spec, dict) and isinstance(spec.get("ref"), str):
                    self.refs[self.source(spec["ref"])] += 1
            if node.get("store"):
                self.stores.add(node["store"])
        elif kind in _MODEL:
            self.model += 1
            self.tools.append(len(node.get("tools") or ()))
            self.words.append(len(str(node.get("instructions") or "").split()))
            try:
                self.decided.update(Signature.parse(node["signature"]).output_names)
            except (ValueError, KeyError):
                pass
        elif kind == "selector":
            self.alternatives.append(len(child_slots(node)))


def package_metrics(ir: dict[str, Any]) -> PackageMetrics:
    """Compute :class:`PackageMetrics` from a Behavior IR document (or its root node): of the
    compiled program, without the fallback (:func:`jdsl.compiler.fallback.compiled_program`).

    Example:
        >>> ir = {"format": "jdsl.behavior.v1", "root": {"kind": "root", "name": "x", "child":
        ...     {"kind": "sequence", "children": [
        ...         {"kind": "action", "tool": "a", "args": {"q": {"ref": "q"}}, "store": "r"},
        ...         {"kind": "predict", "signature": "r -> pick: int", "instructions": "Pick one."},
        ...         {"kind": "action", "tool": "b", "args": {"id": {"ref": "r[$pick].id"}}}]}}}
        >>> m = package_metrics(ir)
        >>> m.model_dependent_decisions, m.residual_decision_burden, m.exact_dataflow_refs
        (1, 0.3333, 1)
        >>> m.input_refs, m.residual_refs, m.branch_points
        (1, 0, 0)
    """
    counter = _Counter()
    program = compiled_program(ir)
    counter.visit(program.get("root", program))
    total = counter.deterministic + counter.model
    rdb = round(counter.model / total, 4) if total else 0.0
    return PackageMetrics(
        meaningful_decisions=total,
        model_dependent_decisions=counter.model,
        residual_decision_burden=rdb,
        deterministic_coverage=round(1 - rdb, 4) if total else 0.0,
        exact_dataflow_refs=counter.refs["tool"],
        action_arguments=counter.args,
        exact_dataflow_rate=round(counter.refs["tool"] / counter.args, 4) if counter.args else 0.0,
        tool_branching=_mean(counter.tools),
        instruction_words=_mean(counter.words),
        residual_refs=counter.refs["model"],
        input_refs=counter.refs["input"],
        branch_points=len(counter.alternatives),
        deterministic_branching=_mean(counter.alternatives),
    )


def _mean(values: list[int]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0
