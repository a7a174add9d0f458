"""Hand-built episodes (event dicts per docs/ARCHITECTURE.md) for pass-level tests, and what
the compiler tests do with them: compile a family (:func:`compiled`), find nodes in the program
(:func:`nodes`, :func:`hand_overs`), verify a program broken on purpose (:func:`verify_broken`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from jdsl.compiler import compile_normalized
from jdsl.compiler.fallback import compiled_program
from jdsl.compiler.verify import VerificationReport, verify
from jdsl.ir.walk import walk_ir


class EpisodeBuilder:
    """Builds one episode's event dicts in sequence order."""

    def __init__(self, episode_id: str, *, inputs: dict[str, Any] | None = None, **meta: Any):
        self.episode_id = episode_id
        self.events: list[dict[str, Any]] = []
        self.emit("episode.started", {"skill": "hand", "inputs": inputs or {}, "ir": None, **meta})

    def emit(self, kind: str, payload: dict[str, Any], parent: str | None = None) -> str:
        event_id = f"{self.episode_id}-{len(self.events)}"
        self.events.append(
            {"kind": kind, "sequence": len(self.events), "payload": payload,
             "event_id": event_id, "parent_event_id": parent}
        )  # fmt: skip
        return event_id

    def call(
        self,
        tool: str,
        result: Any = None,
        *,
        error: str | None = None,
        store: str | None = None,
        node_id: str | None = None,
        node_type: str = "action",
        **arguments: Any,
    ) -> EpisodeBuilder:
        node_id = node_id or f"{tool}_node"
        if node_type == "react":
            self.emit("model.requested", {"node_id": node_id, "kind": "react"})
        else:
            self.emit("node.enter", {"node_id": node_id, "type": node_type, "label": tool})
        head = {"node_id": node_id, "store": store, "tool": {"host_name": tool, "logical_id": None}}
        started = self.emit("tool.call.started", {**head, "arguments": arguments})
        if error is not None:
            self.emit("tool.call.failed", {**head, "error": error, "error_type": "E"}, started)
            return self
        self.emit("tool.call.completed", {**head, "result": result}, started)
        if store:
            self.write(store, result, node_id)
        return self

    def write(self, key: str, value: Any, writer: str = "w") -> EpisodeBuilder:
        self.emit("blackboard.write", {"key": key, "value": value, "writer": writer})
        return self

    def predict(self, node_id: str, signature: str, **outputs: Any) -> EpisodeBuilder:
        self.emit("node.enter", {"node_id": node_id, "type": "predict", "label": "predict"})
        self.emit(
            "model.requested", {"node_id": node_id, "kind": "predict", "signature": signature}
        )
        self.emit("model.responded", {"node_id": node_id, "kind": "predict", "status": "success"})
        for key, value in outputs.items():
            self.write(key, value, node_id)
        return self

    def guard(
        self, expression: dict[str, Any], result: bool = True, kind: str = "guard"
    ) -> EpisodeBuilder:
        self.emit("guard.evaluated", {"node_id": f"g{len(self.events)}", "type": kind,
                                      "expression": expression, "result": result, "values": {}})  # fmt: skip
        return self

    def done(self, success: bool | None = True) -> dict[str, Any]:
        if success is not None:
            status = "success" if success else "failure"
            self.emit("episode.finished", {"skill": "hand", "status": status})
        return {"episode_id": self.episode_id, "events": self.events}


class AgentBuilder(EpisodeBuilder):
    """An episode whose calls a model chose (a react loop's, as imported tau-bench runs are)."""

    def call(self, tool: str, result: Any = None, **kwargs: Any) -> EpisodeBuilder:
        return super().call(tool, result, node_id="agent", node_type="react", **kwargs)


def compiled(runs: Sequence[Any], *, name: str, **options: Any) -> Any:
    """``compile_normalized(runs, name=name, **options)``, which must compile."""
    result = compile_normalized(runs, name=name, **options)
    assert result.ok, result.report().text
    return result


def nodes(ir: dict[str, Any], **fields: Any) -> list[dict[str, Any]]:
    """The program's nodes (the package's fallback around it left out) with those fields."""
    return [n for n in walk_ir(compiled_program(ir)["root"])
            if all(n.get(k) == v for k, v in fields.items())]  # fmt: skip


def hand_overs(ir: dict[str, Any]) -> list[dict[str, Any]]:
    """The program's hand-over guards (:func:`jdsl.compiler.staticize.emit.hand_over_node`)."""
    return [n for n in nodes(ir) if str(n.get("id", "")).startswith("hand_over")]


def verify_broken(
    result: Any, break_it: Callable[[dict[str, Any]], dict[str, Any]], **options: Any
) -> VerificationReport:
    """Verification of ``result``'s program as ``break_it`` changes it (which it must)."""
    ir = result.compiled.ir
    wrong_ir = break_it(ir)
    assert wrong_ir != ir
    return verify(dataclasses.replace(result.compiled, ir=wrong_ir), result.normalized, **options)
