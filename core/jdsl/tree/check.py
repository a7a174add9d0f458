"""A static check of a tree before it runs: types across the blackboard, names, reads, reach.

:func:`check_tree` walks a tree once, in tick order (pre-order, left to right), and reports:

- ``type-mismatch`` (error; a warning when only the allowed values differ, e.g. a ``str``
  output into a ``Literal`` parameter): a value whose declared type does not fit the tool or
  predicate parameter it feeds, e.g. ``predict "ticket -> urgency"`` (a ``str``) read by
  ``act escalate(level=urgency)`` where ``def escalate(level: int)``. Producers are predict and
  react outputs (their signature types) and action stores (the tool's return annotation);
  consumers are action and guard_call arguments that ref a whole key. Types are compared as
  JSON Schema (pydantic), so ``int`` fits ``float`` and a ``Literal`` fits ``str``.
- ``unbound`` (error): a tool or predicate name with no callable (only when bindings are given).
- ``read-before-write`` (warning): a key read before the first node that writes it, and not a
  run input. ``guard exists(key)`` reads are not counted: testing for absence is their job.
  A ``for_each`` reads its ``items`` path and writes its ``item`` (for its child and after it)
  and its ``store``.
- ``missing-input`` (error, only when the run's inputs are known): a key read that no node
  writes, no input gives and no ``guard exists(key)`` tests, outside any selector or optional
  (there a missing value fails one alternative, not the run), e.g. ``predict "request -> x"``
  run with only ``student_id``: the run would read a value nobody provided.
- ``unknown-key`` (warning, when the inputs are not known): a key read that no node writes
  but that is close to one a node does (``studnet`` for ``student``). Both say "did you mean".
- ``unreachable`` (warning): a child no tick can reach: after a selector child that always
  succeeds (``optional``), or after a sequence child that always fails.
- ``duplicate-id`` (error): an author id two nodes carry (``act(f, id="a")`` twice); ids name
  nodes in traces, packages and the notebook's views, and behavior text refuses the second.

:meth:`jdsl.tree.Root.run` calls it before the first tick and stops on errors with
:class:`~jdsl.errors.BehaviorCheckError`; ``Root.check()``, ``jdsl.check(tree)`` and
``%behavior check NAME`` show the whole report.

Example:
    >>> from jdsl.text import parse_behavior
    >>> def escalate(level: int) -> str:
    ...     return "ok"
    >>> tree = parse_behavior('seq\\n  predict "ticket -> urgency"\\n  act escalate(level=urgency)')
    >>> print(tree.bind(tools=[escalate]).check())  # doctest: +NORMALIZE_WHITESPACE
    1 error, 0 warnings
      error type-mismatch at root/sequence.0/action.1: act escalate(level=urgency) passes
      urgency to parameter level: integer, but predict "ticket -> urgency"
      [root/sequence.0/predict.0] writes it as string
        fix: declare the type in the signature ("... -> urgency: int") or change the
        tool's annotation
"""

from __future__ import annotations

import difflib
import inspect
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jdsl.tree.node_keys import (
    exists_paths,
    label,
    path_keys,
    read_keys,
    typed_writes,
    written_keys,
)
from jdsl.tree.reach import unreachable
from jdsl.tree.schemas import (
    Schema,
    annotation_schema,
    fits,
    parameter_schema,
    return_schema,
    type_text,
    without_enum,
)

if TYPE_CHECKING:
    from jdsl.tree.base import Node
    from jdsl.tree.context import Bindings

__all__ = ["CheckReport", "Problem", "check_tree"]


@dataclass(frozen=True)
class Problem:
    """One finding of the static check.

    Attributes:
        severity: ``error`` (a run stops before its first tick) or ``warning``.
        code: ``type-mismatch``, ``unbound``, ``read-before-write``, ``missing-input``,
            ``unknown-key`` or ``unreachable``.
        node_id: the effective id of the node the finding is about (the consumer for a
            mismatch, the unreachable child, the reader).
        message: what is wrong, naming the nodes involved.
        hint: how to fix it.
        related: the other node involved (the producer, the sibling that blocks), or "".
    """

    severity: str
    code: str
    node_id: str
    message: str
    hint: str = ""
    related: str = ""

    def __str__(self) -> str:
        text = f"{self.severity} {self.code} at {self.node_id}: {self.message}"
        return text + (f"\n    fix: {self.hint}" if self.hint else "")


@dataclass(frozen=True)
class CheckReport:
    """Everything :func:`check_tree` found, in tick order.

    Attributes:
        problems: every finding; ``errors`` and ``warnings`` split them.
        inputs: the keys the tree reads that no node writes (what a run must be given).
    """

    problems: tuple[Problem, ...] = ()
    inputs: tuple[str, ...] = ()

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings allowed)."""
        return not self.errors

    def summary(self) -> str:
        """``"1 error, 2 warnings"``."""
        errors, warnings = len(self.errors), len(self.warnings)
        return f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"

    def __str__(self) -> str:
        lines = [self.summary()] + [f"  {p}" for p in self.problems]
        return "\n".join(lines)


@dataclass
class _Writer:
    """A node that writes a key; its type is worked out only when a consumer needs it."""

    node_id: str
    node: Node
    annotation: Any = inspect.Parameter.empty  # a predict/react output's type
    fn: Callable[..., Any] | None = None  # an action's tool (its return annotation)

    @property
    def label(self) -> str:
        return label(self.node)

    def schema(self, walk: _Walk) -> Schema | None:
        if self.fn is not None:
            return walk.schema_of(self.fn, "return")
        return annotation_schema(self.annotation)


@dataclass
class _Walk:
    """What the walk has seen so far: writers per key (in tick order) and every read."""

    ids: dict[int, str]
    bindings: Bindings | None
    inputs: frozenset[str] | None
    writers: dict[str, list[_Writer]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)
    tested: frozenset[str] = frozenset()  # keys some ``guard exists(key)`` tests
    fallible: frozenset[int] = frozenset()  # nodes inside a selector's or optional's child
    schemas: dict[tuple[int, str], Schema | None] = field(default_factory=dict)

    def schema_of(self, fn: Callable[..., Any], arg: str) -> Schema | None:
        """:func:`parameter_schema` (``arg="return"``: the return type's), once per callable."""
        key = (id(fn), arg)
        if key not in self.schemas:
            self.schemas[key] = return_schema(fn) if arg == "return" else parameter_schema(fn, arg)
        return self.schemas[key]


def check_tree(
    tree: Node, *, bindings: Bindings | None = None, inputs: Iterable[str] | None = None
) -> CheckReport:
    """Check ``tree`` statically (module docstring lists the checks).

    Args:
        tree: a root or any node.
        bindings: the tools and predicates a run would use; None checks names and types only
            where callables were left on the nodes (Python authoring) or bound to the root.
        inputs: the run's input keys; None (not known) takes every key no node writes as an
            input.

    Returns:
        A :class:`CheckReport`; ``report.ok`` is False when a run would stop.
    """
    from jdsl.tree.ids import walk_with_ids

    nodes = list(walk_with_ids(tree))
    if bindings is None and hasattr(tree, "resolved_bindings"):
        bindings = tree.resolved_bindings()
    walk = _Walk(
        {id(n): n.id or path for n, path in nodes},
        bindings,
        None if inputs is None else frozenset(inputs),
    )
    written = {key for node, _ in nodes for key in written_keys(node)}
    walk.tested = frozenset(
        key
        for node, _ in nodes
        if node.kind == "guard"
        for path in exists_paths(node.expression)  # type: ignore[attr-defined]
        for key in path_keys(path)
    )
    walk.fallible = _fallible(node for node, _ in nodes)
    for node, _ in nodes:
        _check_node(node, walk, written)
    walk.problems += _unreachable(tree, walk.ids)
    walk.problems += _duplicate_ids(nodes)
    order = {node_id: i for i, node_id in enumerate(walk.ids.values())}
    problems = sorted(walk.problems, key=lambda p: (order.get(p.node_id, 0), p.code))
    return CheckReport(tuple(problems), tuple(dict.fromkeys(walk.unwritten)))


def _fallible(nodes: Iterable[Node]) -> frozenset[int]:
    """The nodes under a selector or an optional: a value missing there fails one alternative
    (the selector tries the next, a compiled package's fallback takes over), not the run."""
    found: set[int] = set()
    stack = [c for n in nodes if n.kind in ("selector", "optional") for c in n.children_nodes()]
    while stack:
        node = stack.pop()
        if id(node) not in found:
            found.add(id(node))
            stack.extend(node.children_nodes())
    return frozenset(found)


def _check_node(node: Node, walk: _Walk, written: set[str]) -> None:
    node_id = walk.ids[id(node)]
    for key in read_keys(node):
        _check_read(node, node_id, key, walk, written)
    fn = _bound_callable(node, walk) if node.kind in ("action", "guard_call") else None
    if fn is not None:
        for arg, spec in (getattr(node, "args", None) or {}).items():
            if isinstance(spec, Mapping) and isinstance(spec.get("ref"), str):
                _check_type(node, node_id, arg, spec["ref"], fn, walk)
    for key, annotation in typed_writes(node):
        writer = _Writer(node_id, node, annotation, fn if node.kind == "action" else None)
        walk.writers.setdefault(key, []).append(writer)


def _check_read(node: Node, node_id: str, key: str, walk: _Walk, written: set[str]) -> None:
    if key in walk.writers or (walk.inputs is not None and key in walk.inputs):
        return
    if key not in written:
        walk.unwritten.append(key)
        _check_unwritten(node, node_id, key, walk, written)
        return
    walk.problems.append(
        Problem(
            "warning",
            "read-before-write",
            node_id,
            f"{label(node)} reads {key} before any node writes it",
            f"give {key} as a run input, or move its writer before this node",
        )
    )


def _check_unwritten(node: Node, node_id: str, key: str, walk: _Walk, written: set[str]) -> None:
    """A key no node writes: an error when the inputs are known and do not give it (unless a
    guard tests it with ``exists``); else a warning when it looks like a misspelt written key."""
    if key in walk.tested:
        return
    known = sorted(written | (walk.inputs or frozenset()))
    close = [  # a typo, not a longer name (``student_id`` is not a misspelt ``student``)
        name
        for name in difflib.get_close_matches(key, known, n=3, cutoff=0.75)
        if abs(len(name) - len(key)) <= 2
    ]
    guess = f"did you mean {' or '.join(close)}? " if close else ""
    if (
        walk.inputs is not None
        and node.kind not in ("check", "for_each")  # absent: FAILURE
        and id(node) not in walk.fallible
    ):
        given = ", ".join(sorted(walk.inputs)) or "none"
        walk.problems.append(
            Problem(
                "error",
                "missing-input",
                node_id,
                f"{label(node)} reads {key}, which no node writes and the run's inputs "
                f"({given}) do not give",
                f"{guess}give {key} as a run input, or write it in an earlier node",
            )
        )
    elif close:
        walk.problems.append(
            Problem(
                "warning",
                "unknown-key",
                node_id,
                f"{label(node)} reads {key}, which no node writes",
                f"{guess}(or give {key} as a run input)",
            )
        )


def _check_type(
    node: Node, node_id: str, arg: str, path: str, fn: Callable[..., Any], walk: _Walk
) -> None:
    writers = walk.writers.get(path)
    produced = writers[-1].schema(walk) if writers else None
    expected = walk.schema_of(fn, arg) if produced is not None else None
    if produced is None or expected is None or fits(produced, expected):
        return
    writer = writers[-1]  # type: ignore[index]
    loose = fits(without_enum(produced), without_enum(expected))
    walk.problems.append(
        Problem(
            "warning" if loose else "error",
            "type-mismatch",
            node_id,
            f"{label(node)} passes {path} to parameter {arg}: {type_text(expected)}, but "
            f"{writer.label} [{writer.node_id}] writes it as {type_text(produced)}"
            + (" (any value of its type, not only those)" if loose else ""),
            _type_hint(writer.label, path, expected),
            related=writer.node_id,
        )
    )


def _type_hint(producer: str, key: str, expected: Schema) -> str:
    python = {
        "integer": "int",
        "number": "float",
        "boolean": "bool",
        "array": "list",
        "object": "dict",
        "string": "str",
    }.get(str(expected.get("type")), "")
    if "enum" in expected:
        python = "Literal[" + ", ".join(json.dumps(v) for v in expected["enum"]) + "]"
    if producer.startswith(("predict", "react")) and python:
        return (
            f'declare the type in the signature ("... -> {key}: {python}") or change '
            "the tool's annotation"
        )
    return "convert the value with a tool in between, or change one of the annotations"


# -- callables and types ------------------------------------------------------------------------
def _bound_callable(node: Node, walk: _Walk) -> Callable[..., Any] | None:
    if walk.bindings is None:
        return None
    if node.kind == "action":
        name = str(node.tool)  # type: ignore[attr-defined]
        table = walk.bindings.tools
    else:
        name = str(node.predicate)  # type: ignore[attr-defined]
        table = walk.bindings.predicates
    flag = "tools" if node.kind == "action" else "predicates"
    found = table.get(name)
    if found is None:
        walk.problems.append(
            Problem(
                "error",
                "unbound",
                walk.ids[id(node)],
                f"{'tool' if node.kind == 'action' else 'predicate'} {name!r} is not bound",
                f"bind it: root.bind({flag}={{{name!r}: fn}}) or run({flag}=...)",
            )
        )
    return found


def _duplicate_ids(nodes: Iterable[tuple[Node, str]]) -> list[Problem]:
    """An error at each node whose author id an earlier node (pre-order) already carries."""
    first: dict[str, str] = {}
    problems: list[Problem] = []
    for node, path in nodes:
        if node.id is None:
            continue
        seen = first.setdefault(node.id, path)
        if seen != path:
            problems.append(
                Problem(
                    "error",
                    "duplicate-id",
                    path,
                    f"{label(node)}: id {node.id!r} is already the id of the node at {seen}",
                    "ids are unique in a tree: rename one of them, or leave id= out (every "
                    "node has a structural id)",
                    related=seen,
                )
            )
    return problems


def _unreachable(tree: Node, ids: Mapping[int, str]) -> list[Problem]:
    problems: list[Problem] = []
    for container, child, later in unreachable(tree):
        blocker = ids[id(child)]
        fate = "succeeds" if container.kind == "selector" else "fails"
        problems.append(
            Problem(
                "warning",
                "unreachable",
                ids[id(later)],
                f"{label(later)} can never run: {label(child)} [{blocker}] always "
                f"{fate} in this {container.kind}",
                "remove the child, or reorder the children",
                related=blocker,
            )
        )
    return problems
