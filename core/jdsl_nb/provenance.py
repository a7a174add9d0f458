"""Blackboard provenance from trace events: who wrote every value, from what, and who used it.

Each write becomes a :class:`WriteRecord` (key, value, writer node, previous value, whether it
overwrote another writer's value, the step it happened at) with the later consumers of that
value: every ref read (``blackboard.read``) that resolved against it, tied to the tool argument
it fed when the reader then called a tool. Only traces without any read event fall back to
matching tool argument values against the blackboard (exact, typed equality, as the compiler's
lineage does).

A react leaf's tool calls are never linked to a key: their arguments are chosen by the model
(a react leaf's reads of its signature inputs stay plain reads). :func:`model_choices` lists
those calls apart, as :class:`ModelChoice`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jdsl.ir.walk import ir_nodes_with_ids
from jdsl.trace.values import is_meaningful
from jdsl.tree.blackboard import Read, Write
from jdsl.tree.node_keys import path_keys

__all__ = [
    "Consumer",
    "ModelChoice",
    "WriteRecord",
    "events_from_activity",
    "model_choices",
    "path_keys",
    "provenance",
    "react_nodes",
]


@dataclass(frozen=True)
class Consumer:
    """A later use of a written value: the reader node, and the tool argument it fed if any."""

    step: int
    node_id: str
    path: str
    tool: str | None = None
    argument: str | None = None

    def describe(self) -> str:
        """``tool.argument <- path @node`` style text."""
        if not self.tool:
            return f"read as {self.path} by {self.node_id} (step {self.step})"
        target = f"{self.tool}.{self.argument}" if self.argument else f"{self.tool}(...)"
        return f"{target} <- {self.path} @{self.node_id} (step {self.step})"


@dataclass(frozen=True)
class ModelChoice:
    """A tool call whose arguments the model chose (inside a react leaf), not a blackboard key."""

    step: int
    node_id: str
    tool: str
    arguments: Mapping[str, Any]

    def describe(self) -> str:
        """``tool(arg=value, ...) chosen by the model @node`` style text."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
        return f"{self.tool}({args}) chosen by the model @{self.node_id} (step {self.step})"


@dataclass
class WriteRecord:
    """One blackboard write and its later consumers.

    ``source`` and ``index``: for a for_each's item, the element it came from
    (``user.orders[2]``) and the pass (``2``); None for any other write.
    """

    key: str
    value: Any
    writer: str
    writer_label: str
    previous: Any
    overwrote: bool
    step: int
    sequence: int
    consumers: list[Consumer] = field(default_factory=list)
    source: str | None = None
    index: int | None = None

    def pass_text(self) -> str:
        """``pass 2, from user.orders[2]``-style text for a loop's item write, else ``""``."""
        if self.source is None:
            return ""
        if self.index is None:
            return f"from {self.source}"
        return f"pass {self.index}, from {self.source}"


def _find_path(target: Any, value: Any, path: str, depth: int = 0) -> str | None:
    if type(target) is type(value) and target == value:
        return path
    if depth >= 4:
        return None
    items: Iterable[tuple[str, Any]] = ()
    if isinstance(value, Mapping):
        items = ((f"{path}.{k}", v) for k, v in value.items())
    elif isinstance(value, list):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    for sub_path, sub in items:
        found = _find_path(target, sub, sub_path, depth + 1)
        if found:
            return found
    return None


class _Builder:
    def __init__(self, ir: Mapping[str, Any] | None) -> None:
        self.records: list[WriteRecord] = []
        self.current: dict[str, int] = {}
        self.pending: dict[str, list[tuple[int, str, int]]] = {}
        self.args_by_node: dict[str, Mapping[str, Any]] = {}
        self.react: set[str] = set()
        self.seeded: dict[str, Any] = {}
        if ir:
            self.index_ir(ir)

    def index_ir(self, ir: Mapping[str, Any]) -> None:
        for node_id, node in ir_nodes_with_ids(ir):
            if isinstance(node.get("args"), Mapping):
                self.args_by_node[node_id] = node["args"]

    def write(self, step: int, seq: int, payload: Mapping[str, Any], writer: str) -> None:
        key = str(payload.get("key"))
        value = payload.get("value")
        last = self.records[self.current[key]] if key in self.current else None
        previous = payload.get("previous", last.value if last else None)
        overwrote = payload.get("overwrote", bool(last and last.writer != writer))
        label = str(payload.get("writer_label") or writer)
        source, index = payload.get("source"), payload.get("index")
        self.records.append(
            WriteRecord(
                key,
                value,
                writer,
                label,
                previous,
                bool(overwrote),
                step,
                seq,
                source=None if source is None else str(source),
                index=index if isinstance(index, int) else None,
            )
        )
        self.current[key] = len(self.records) - 1

    def read(self, step: int, payload: Mapping[str, Any]) -> None:
        path, reader = str(payload.get("path", "")), str(payload.get("reader", ""))
        for key in path_keys(path):
            if key in self.current:
                self.pending.setdefault(reader, []).append((self.current[key], path, step))

    def tool_call(self, step: int, payload: Mapping[str, Any], by_value: bool) -> None:
        node_id = str(payload.get("node_id", ""))
        if node_id in self.react:  # the model chose these arguments: no key fed them
            return
        tool, arguments = _tool_name(payload), payload.get("arguments") or {}
        if by_value:
            self._match_values(step, node_id, tool, arguments)
            return
        refs = self.args_by_node.get(node_id, {})
        for index, path, _ in self.pending.pop(node_id, []):
            arg = next(
                (a for a, s in refs.items() if isinstance(s, Mapping) and s.get("ref") == path),
                None,
            )
            if arg is None:
                arg = next(
                    (a for a, v in arguments.items() if v == self.records[index].value), None
                )
            self.records[index].consumers.append(Consumer(step, node_id, path, tool, arg))

    def _match_values(
        self, step: int, node_id: str, tool: str, arguments: Mapping[str, Any]
    ) -> None:
        for arg, value in arguments.items():
            if not is_meaningful(value):
                continue
            for key, index in self.current.items():
                path = _find_path(value, self.records[index].value, key)
                if path:
                    consumer = Consumer(step, node_id, path, tool, arg)
                    self.records[index].consumers.append(consumer)
                    break

    def flush(self, node_id: str) -> None:
        for index, path, step in self.pending.pop(node_id, []):
            self.records[index].consumers.append(Consumer(step, node_id, path))


def _tool_name(payload: Mapping[str, Any]) -> str:
    info = payload.get("tool")
    return str(info.get("host_name") if isinstance(info, Mapping) else info)


def react_nodes(
    events: Iterable[Mapping[str, Any]], ir: Mapping[str, Any] | None = None
) -> set[str]:
    """Ids of the react leaves of a run: from ``node.enter`` types, ``react.started`` and the IR."""
    found = (
        {node_id for node_id, node in ir_nodes_with_ids(ir) if node.get("kind") == "react"}
        if ir
        else set()
    )
    for event in events:
        kind, payload = event.get("kind"), event.get("payload") or {}
        if kind == "react.started" or (kind == "node.enter" and payload.get("type") == "react"):
            found.add(str(payload.get("node_id", "")))
        elif kind == "episode.started" and ir is None and isinstance(payload.get("ir"), Mapping):
            found |= react_nodes((), payload["ir"])
    return found


def model_choices(
    events: Sequence[Mapping[str, Any]], ir: Mapping[str, Any] | None = None
) -> list[ModelChoice]:
    """The tool calls of react leaves, in order: their arguments came from the model.

    Args:
        events: the run's events as dicts, in order.
        ir: the tree's IR; defaults to ``episode.started``'s.
    """
    react = react_nodes(events, ir)
    choices = []
    for step, event in enumerate(events):
        payload = event.get("payload") or {}
        node_id = str(payload.get("node_id", ""))
        if event.get("kind") == "tool.call.started" and node_id in react:
            arguments = dict(payload.get("arguments") or {})
            choices.append(ModelChoice(step, node_id, _tool_name(payload), arguments))
    return choices


def provenance(
    events: Sequence[Mapping[str, Any]], ir: Mapping[str, Any] | None = None
) -> list[WriteRecord]:
    """Every blackboard write of a run, in order, with its consumers.

    Args:
        events: the run's events as dicts, in order (``jdsl_nb._coerce.as_events``).
        ir: the tree's IR, to name the argument a ref fed; defaults to ``episode.started``'s.

    Returns:
        One record per write; run inputs are writes by ``input`` at the ``episode.started`` step.
        Consumers come from ``blackboard.read`` events; only when the trace has none are tool
        arguments matched by value. React tool calls are never consumers (see
        :func:`model_choices`).
    """
    builder = _Builder(ir)
    builder.react |= react_nodes(events, ir)
    by_value = not any(e.get("kind") == "blackboard.read" for e in events)
    for step, event in enumerate(events):
        kind, payload = event.get("kind"), event.get("payload") or {}
        seq = int(event.get("sequence", step) or 0)
        if kind == "episode.started":
            if ir is None and isinstance(payload.get("ir"), Mapping):
                builder.index_ir(payload["ir"])
            for key, value in (payload.get("inputs") or {}).items():
                builder.seeded[key] = value
                builder.write(
                    step, seq, {"key": key, "value": value, "writer_label": "run input"}, "input"
                )
        elif kind == "blackboard.write":
            writer = str(payload.get("writer", "?"))
            key = payload.get("key")
            if (
                writer == "input"
                and key in builder.seeded
                and builder.seeded.pop(key) == payload.get("value")
            ):
                continue
            builder.write(step, seq, payload, writer)
        elif kind == "blackboard.read":
            builder.read(step, payload)
        elif kind == "tool.call.started":
            builder.tool_call(step, payload, by_value)
        elif kind == "node.exit":
            builder.flush(str(payload.get("node_id", "")))
    return builder.records


def events_from_activity(activity: Iterable[Write | Read]) -> list[dict[str, Any]]:
    """The events a traced run records for ``ctx.blackboard.activity`` (for a run traced
    without a sink): each record's own ``blackboard.write`` / ``blackboard.read`` payload."""
    return [
        {"kind": r.event_kind, "payload": r.event_payload(), "sequence": r.sequence}
        for r in activity
    ]
