"""Per-kind rules of :func:`jdsl.ir.validate_ir`, applied to plain IR node dicts.

Works on dicts, not node objects, so it reports every problem of a document that pydantic
would reject at the first one (and problems pydantic cannot see, such as duplicate ids).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from jdsl.errors import SignatureError, ValidationError
from jdsl.expr import parse_path, preview, validate_expr
from jdsl.ir.walk import NODE_FIELDS, child_slots, walk_ir
from jdsl.signature import Signature
from jdsl.tree.decorators import MAX_TIMEOUT_SECONDS
from jdsl.tree.loops import collect_store_problem, item_name_problem, items_path_problem

__all__ = [
    "MAX_INT_DIGITS",
    "MAX_IR_NESTING",
    "MAX_NODE_DEPTH",
    "MAX_REPEAT",
    "MAX_TIMEOUT_SECONDS",
    "NODE_FIELDS",
    "NodeChecker",
    "child_slots",
    "finite_float",
    "nesting_problem",
    "refuse_constant",
    "walk_ir",
]

MAX_REPEAT = 1000
"""The largest ``max`` a repeat may declare: every loop in a behavior is bounded."""

MAX_NODE_DEPTH = 64
"""The deepest nesting of nodes a behavior may have (root = 1)."""

MAX_IR_NESTING = 256
"""The deepest JSON nesting (objects and arrays) an IR document may have, constants included."""


MAX_INT_DIGITS = 4000
"""The most digits a whole number in an IR document (or behavior text) may have; Python reads
at most 4300, and every IR number must print and parse back."""


def nesting_problem(document: Any, limit: int = MAX_IR_NESTING) -> str | None:
    """A problem when ``document`` nests JSON containers deeper than ``limit`` or holds a
    number JSON cannot carry (nan, inf, an int over :data:`MAX_INT_DIGITS` digits), else None.

    Iterative, so a document nested 100,000 deep is reported, not a RecursionError; every
    recursive pass over an IR (validation, loading, printing, tracing) runs after this check.
    """
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > limit:
                return f"the document nests deeper than {limit} levels; flatten it"
            stack.extend((item, depth + 1) for item in _items(value))
        elif isinstance(value, float) and not math.isfinite(value):
            return f"the document holds {value}, which JSON cannot carry; use a finite number"
        elif isinstance(value, int) and abs(value) >= _INT_LIMIT:
            return f"the document holds a whole number over {MAX_INT_DIGITS} digits"
    return None


_INT_LIMIT = 10**MAX_INT_DIGITS  # compared, never printed: no int -> str conversion


def finite_float(text: str) -> float:
    """The ``parse_float`` of every strict JSON reader (behavior text literals, imported files):
    the float ``text`` spells, or ValueError when it overflows a double (``1e400``)."""
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"the number {text[:40]} is too large for a double; write a smaller one")
    return number


def refuse_constant(name: str) -> Any:
    """The ``parse_constant`` of every strict JSON reader: ``NaN`` and ``Infinity`` raise
    ValueError (JSON has no such numbers)."""
    raise ValueError(f"{name} is not a JSON number; write a finite number or null")


def _items(value: dict[Any, Any] | list[Any]) -> list[Any]:
    items = value.values() if isinstance(value, dict) else value
    return [item for item in items if isinstance(item, dict | list | float | int)]


class NodeChecker:
    """Collects problems and used capabilities while :func:`validate_ir` walks a tree."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.capabilities: set[str] = set()
        self._ids: dict[str, str] = {}

    def check(self, node: dict[str, Any], where: str) -> None:
        """Apply the common rules and the rules of the node's kind."""
        kind = node.get("kind")
        shown = kind if isinstance(kind, str) and len(kind) <= 40 else preview(kind)
        label = f"{shown} {preview(node.get('id') or where, 200)}"
        if not isinstance(kind, str) or kind not in NODE_FIELDS:
            known = ", ".join(sorted(NODE_FIELDS))
            self.problems.append(
                f"{where}: unknown node kind {preview(kind)}; known kinds: {known}"
            )
            return
        self.problems += [f"{label}: {problem}" for problem in self.node_problems(node, where)]

    def node_problems(self, node: dict[str, Any], where: str) -> list[str]:
        """The problems of one node of a known kind, not prefixed with its label (the behavior
        text parser reports them at the node's line)."""
        kind = node["kind"]
        problems: list[str] = []
        unknown = sorted(set(node) - NODE_FIELDS[kind])
        if unknown:
            problems.append(f"unknown field(s) {unknown}")
        problems += self._check_id(node, where)
        if node.get("context") is not None and not isinstance(node["context"], str):
            problems.append("context must be a string")
        return problems + _RULES[kind](self, node)

    def _check_id(self, node: dict[str, Any], where: str) -> list[str]:
        node_id = node.get("id")
        if node_id is None:
            return []
        if not isinstance(node_id, str) or not node_id:
            return [f"id must be a non-empty string, got {preview(node_id)}"]
        first = self._ids.setdefault(node_id, where)
        return [] if first == where else [f"duplicate id {node_id!r} (first used at {first})"]

    # -- kind rules ---------------------------------------------------------------------------
    def _root(self, node: dict[str, Any]) -> list[str]:
        problems = _one_child(node, "root")
        if not isinstance(node.get("name"), str) or not node["name"]:
            problems.append("root needs a non-empty name")
        for name in ("system", "model_id"):
            if node.get(name) is not None and not isinstance(node[name], str):
                problems.append(f"{name} must be a string")
        return problems

    def _composite(self, node: dict[str, Any]) -> list[str]:
        children = node.get("children")
        if not isinstance(children, list) or not children:
            return [f"a {node['kind']} needs at least one child"]
        return []

    def _decorator(self, node: dict[str, Any]) -> list[str]:
        return _one_child(node, node["kind"])

    def _repeat(self, node: dict[str, Any]) -> list[str]:
        problems = _one_child(node, "repeat")
        bound = node.get("max", 3)
        if not _is_int(bound) or not 1 <= bound <= MAX_REPEAT:
            problems.append(
                f"unbounded or invalid max {preview(bound)}; use a whole number 1..{MAX_REPEAT}"
            )
        if "until" in node and not isinstance(node["until"], dict):
            problems.append("until must be a node")
        return problems

    def _for_each(self, node: dict[str, Any]) -> list[str]:
        problems = _one_child(node, "for_each")
        for problem in (
            items_path_problem(node.get("items")),
            item_name_problem(node.get("item")),
            collect_store_problem(node.get("collect"), node.get("store")),
        ):
            if problem:
                problems.append(problem)
        bound = node.get("max", MAX_REPEAT)
        if not _is_int(bound) or not 1 <= bound <= MAX_REPEAT:
            problems.append(
                f"unbounded or invalid max {preview(bound)}; use a whole number 1..{MAX_REPEAT}"
            )
        return problems

    def _timeout(self, node: dict[str, Any]) -> list[str]:
        problems = _one_child(node, "timeout")
        seconds = node.get("seconds", 30.0)
        if not _is_number(seconds) or not 0 < seconds <= MAX_TIMEOUT_SECONDS:
            problems.append(
                f"seconds must be a number > 0 and <= {MAX_TIMEOUT_SECONDS:g}, got {preview(seconds)}"
            )
        return problems

    def _action(self, node: dict[str, Any]) -> list[str]:
        problems = _name_problems(node.get("tool"), "tool")
        if not problems:
            self.capabilities.add(node["tool"])
        if node.get("store") is not None and not isinstance(node["store"], str):
            problems.append("store must be a blackboard key (a string)")
        if node.get("on_error") not in (None, "fail"):
            problems.append(
                f"on_error must be 'fail' (the tool's failure becomes the node's FAILURE) or "
                f"absent (an exception propagates), got {node['on_error']!r}"
            )
        return problems + _args_problems(node.get("args"))

    def _guard_call(self, node: dict[str, Any]) -> list[str]:
        return _name_problems(node.get("predicate"), "predicate") + _args_problems(node.get("args"))

    def _guard(self, node: dict[str, Any]) -> list[str]:
        expression = node.get("expression")
        if expression is None:
            return ["guard needs an expression"]
        return validate_expr(expression)

    def _check(self, node: dict[str, Any]) -> list[str]:
        return _path_problems(node.get("key"), "key")

    def _predict(self, node: dict[str, Any]) -> list[str]:
        problems = _signature_problems(node) + _instructions_problems(node)
        examples = node.get("examples") or []
        if not isinstance(examples, list) or not all(
            isinstance(item, dict) and set(item) <= {"input", "output"} for item in examples
        ):
            problems.append("examples must be a list of {input, output} objects")
        sources = node.get("input_sources") or {}
        if not isinstance(sources, dict):
            problems.append("input_sources must map input fields to paths")
        else:
            for source_field, path in sources.items():
                problems += _path_problems(path, f"input_sources[{preview(source_field)}]")
        return problems

    def _react(self, node: dict[str, Any]) -> list[str]:
        problems = _signature_problems(node) + _instructions_problems(node)
        tools = node.get("tools")
        if not isinstance(tools, list) or not tools:
            problems.append("a react must expose at least one tool (tools=[...])")
        else:
            for tool in tools:
                named = _name_problems(tool, "tool")
                problems += named
                if not named:
                    self.capabilities.add(tool)
        steps = node.get("max_steps", 6)
        if not _is_int(steps) or steps < 1:
            problems.append(f"max_steps must be a whole number >= 1, got {preview(steps)}")
        return problems


_Rule = Callable[[NodeChecker, dict[str, Any]], list[str]]
_RULES: dict[str, _Rule] = {
    "root": NodeChecker._root,
    "sequence": NodeChecker._composite,
    "selector": NodeChecker._composite,
    "action": NodeChecker._action,
    "predict": NodeChecker._predict,
    "react": NodeChecker._react,
    "check": NodeChecker._check,
    "guard": NodeChecker._guard,
    "guard_call": NodeChecker._guard_call,
    "repeat": NodeChecker._repeat,
    "for_each": NodeChecker._for_each,
    "invert": NodeChecker._decorator,
    "optional": NodeChecker._decorator,
    "oneshot": NodeChecker._decorator,
    "timeout": NodeChecker._timeout,
}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    """A finite int or float (not a bool, not nan or inf; any int, even one too large for a
    float, which ``math.isfinite`` would raise OverflowError on)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def _one_child(node: dict[str, Any], kind: str) -> list[str]:
    return [] if isinstance(node.get("child"), dict) else [f"{kind} needs a child"]


def _name_problems(name: Any, what: str) -> list[str]:
    if not isinstance(name, str) or not name.strip():
        return [f"needs a {what} name, got {preview(name)}"]
    return []


def _path_problems(path: Any, what: str) -> list[str]:
    if not isinstance(path, str) or not path:
        return [f"{what} must be a non-empty path string, got {preview(path)}"]
    try:
        parse_path(path)
    except ValidationError as exc:
        return [f"{what}: {problem}" for problem in exc.problems]
    return []


def _args_problems(args: Any) -> list[str]:
    if args is None:
        return []
    if not isinstance(args, dict):
        return ["args must be an object {name: {ref} or {const}}"]
    problems: list[str] = []
    for name, spec in args.items():
        if isinstance(spec, dict) and set(spec) == {"ref"}:
            problems += _path_problems(spec["ref"], f"argument {preview(name)}")
        elif not (isinstance(spec, dict) and set(spec) == {"const"}):
            problems.append(
                f'argument {preview(name)} must be {{"ref": path}} or {{"const": value}}'
            )
    return problems


def _signature_problems(node: dict[str, Any]) -> list[str]:
    text = node.get("signature")
    if not isinstance(text, str):
        return ['needs a signature string such as "request -> answer"']
    try:
        Signature.parse(text)
    except SignatureError as exc:
        return [f"malformed signature: {exc}"]
    return []


def _instructions_problems(node: dict[str, Any]) -> list[str]:
    instructions = node.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        return ["instructions must be a string"]
    return []
