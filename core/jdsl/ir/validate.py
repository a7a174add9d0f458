"""``validate_ir``: every structural problem in a Behavior IR document, in one report.

Rules (docs/design.md §2, with the node fields of docs/ARCHITECTURE.md): the envelope has
the right format and a root; every kind is known and carries only its fields; ids are unique
where given; composites have children and decorators a child; repeat ``max`` is a whole
number in 1..1000; timeouts are finite, positive and at most a year; nodes nest at most
:data:`~jdsl.ir.nodes.MAX_NODE_DEPTH` deep and the document at most
:data:`~jdsl.ir.nodes.MAX_IR_NESTING` JSON levels; action and guard_call args are each ``{ref}`` or
``{const}``; ref paths parse (:func:`jdsl.expr.parse_path`); guard expressions are well formed
(:func:`jdsl.expr.validate_expr`); signatures parse (:mod:`jdsl.signature`); a react lists at
least one tool; with ``required_capabilities``, every action tool and react tool is declared.
Dataflow (whether a ref is produced before it is read) is not checked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from jdsl.errors import ValidationError
from jdsl.expr import preview
from jdsl.ir.format import BEHAVIOR_FORMAT, load_root
from jdsl.ir.nodes import MAX_NODE_DEPTH, MAX_REPEAT, NodeChecker, child_slots, nesting_problem

__all__ = ["MAX_REPEAT", "ValidationReport", "validate_ir"]


@dataclass(frozen=True)
class ValidationReport:
    """The outcome of :func:`validate_ir`.

    Attributes:
        problems: every problem found, one readable string each, in tree order.
        capabilities: the tool names the behavior uses (action tools and react tools), sorted.
    """

    problems: tuple[str, ...] = ()
    capabilities: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """True when there are no problems."""
        return not self.problems

    def __bool__(self) -> bool:
        return self.ok

    def raise_for_problems(self) -> None:
        """Raise :class:`jdsl.errors.ValidationError` listing every problem, when there are any."""
        if self.problems:
            raise ValidationError(self.problems)


def validate_ir(ir: Any, required_capabilities: Iterable[str] | None = None) -> ValidationReport:
    """Check a Behavior IR document against every structural rule.

    Args:
        ir: a ``{"format": "jdsl.behavior.v1", "root": {...}}`` dict.
        required_capabilities: the tool names a package declares; when given, each tool the
            behavior uses must be among them.

    Returns:
        A :class:`ValidationReport`; ``.ok`` is True when nothing is wrong.

    Example:
        >>> validate_ir({"format": "jdsl.behavior.v1", "root": {"kind": "root", "name": "x"}}).problems
        ("root 'root': root needs a child",)
    """
    problems, capabilities = structural_problems(ir, required_capabilities)
    if not problems:  # the rules the node models apply too: from_ir and this agree
        problems = load_root(ir)[1]
    return ValidationReport(tuple(problems), capabilities)


def structural_problems(
    ir: Any, required_capabilities: Iterable[str] | None = None
) -> tuple[list[str], tuple[str, ...]]:
    """:func:`validate_ir`'s rules short of building the nodes: ``(problems, capabilities)``."""
    if not isinstance(ir, dict):
        return [f"the IR must be a JSON object, got {type(ir).__name__}"], ()
    too_deep = nesting_problem(ir)
    if too_deep:
        return [too_deep], ()
    problems: list[str] = []
    if ir.get("format") != BEHAVIOR_FORMAT:
        problems.append(f"format is {preview(ir.get('format'))}; expected {BEHAVIOR_FORMAT!r}")
    extra = sorted(set(ir) - {"format", "root"}, key=str)[:10]  # keys are short JSON strings
    if extra:
        problems.append(f"unknown top-level keys {extra}; a document has only format and root")
    root = ir.get("root")
    checker = NodeChecker()
    if not isinstance(root, dict) or root.get("kind") != "root":
        problems.append("root must be a node object with kind 'root'")
    if isinstance(root, dict):
        _walk(root, "root", checker)
    problems += checker.problems
    if required_capabilities is not None:
        declared = set(required_capabilities)
        problems += [
            f"tool {name!r} used but not declared in required_capabilities"
            for name in sorted(checker.capabilities - declared)
        ]
    return problems, tuple(sorted(checker.capabilities))


def _walk(node: Any, where: str, checker: NodeChecker, depth: int = 1) -> None:
    """Check ``node`` then its children, pre-order; ``where`` is its structural id."""
    if not isinstance(node, dict):
        checker.problems.append(f"{where}: a node must be an object, got {type(node).__name__}")
        return
    if depth > MAX_NODE_DEPTH:
        checker.problems.append(f"{where}: nodes nest deeper than {MAX_NODE_DEPTH} levels")
        return
    checker.check(node, where)
    for index, child in enumerate(child_slots(node)):
        kind = child.get("kind") if isinstance(child, dict) else None
        kind = kind if isinstance(kind, str) and len(kind) <= 40 else "node"
        _walk(child, f"{where}/{kind}.{index}", checker, depth + 1)
