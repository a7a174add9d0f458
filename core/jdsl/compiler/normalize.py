"""Normalize: episodes -> :class:`NormEpisode` s (steps, model decisions, evaluated guards).

The normalizer walks an episode's events in sequence order with a trusted state
(:class:`~jdsl.compiler.lineage.StateIndex`): ``blackboard.write`` sets a key; a completed tool
call stores its result under the runtime's ``store`` or a synthesized ``<tool>_out`` name.
Seeded run inputs are *not* trusted state (they are not writes), so a tool argument that merely
repeats an input is never lineaged to it (docs/design.md appendix B §1).

Every tool call becomes a :class:`NormStep` (list arguments with element-wise lineage, and the
arguments the user's messages so far state); a predict (``node.enter`` of type predict) or
react (``react.started``) becomes a :class:`ModelDecision`; a ``guard.evaluated`` becomes a
:class:`GuardObservation`. Decisions and guards are placed before the next successful step.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from jdsl.compiler.arguments import rank_sources
from jdsl.compiler.events import EpisodeLike, EpisodeRecords, EventLike, as_records, records_of
from jdsl.compiler.lineage import StateIndex, stated_in
from jdsl.compiler.names import synth_store
from jdsl.compiler.normalized import GuardObservation, ModelDecision, NormEpisode, NormStep
from jdsl.ir.walk import structural_ids, walk_ir
from jdsl.signature import Signature

__all__ = ["normalize_all", "normalize_episode"]


def normalize_all(
    episodes: Sequence[EpisodeLike | Any], *, canonical: Mapping[str, str] | None = None
) -> list[NormEpisode]:
    """:func:`normalize_episode` over ``episodes`` (control episodes ``_...`` skipped)."""
    return [normalize_episode(r, canonical=canonical) for r in records_of(episodes)]


def normalize_episode(
    episode: EpisodeLike | Any, *, canonical: Mapping[str, str] | None = None
) -> NormEpisode:
    """Normalize one episode.

    Args:
        episode: a :class:`jdsl.trace.Episode` or any form :func:`as_records` reads.
        canonical: host tool name -> logical capability id (a payload's ``logical_id`` wins).

    Returns:
        The :class:`NormEpisode`; pure (the episode is not changed).
    """
    walker = _Walker(canonical or {})
    records = as_records(episode)
    for event in records.events:
        walker.visit(event)
    return walker.finish(records)


class _Walker:
    """The state of one normalization walk."""

    def __init__(self, canonical: Mapping[str, str]) -> None:
        self.canonical = canonical
        self.index = StateIndex()
        self.steps: list[dict[str, Any]] = []
        self.open: dict[str, dict[str, Any]] = {}
        self.decisions: list[dict[str, Any]] = []
        self.guards: list[GuardObservation] = []
        self.node_types: dict[str, str] = {}
        self.started: dict[str, Any] = {}
        self.finished: dict[str, Any] = {}
        self.outcome: dict[str, Any] | None = None
        self.ended = False
        self.ok_count = 0
        self.occurrences: dict[str, int] = {}
        self.fresh_store: dict[str, Any] = {}
        self.decision_keys: set[str] = set()
        self.last_hash = ""
        self.said: list[str] = []
        self.replied: list[tuple[int, str]] = []

    # -- dispatch -----------------------------------------------------------------------------
    def visit(self, event: EventLike) -> None:
        handler = _HANDLERS.get(event.kind)
        if handler is not None:
            handler(self, event)

    def _episode_started(self, event: EventLike) -> None:
        self.started = dict(event.payload)

    def _episode_finished(self, event: EventLike) -> None:
        self.finished = dict(event.payload)
        self.ended = True

    def _outcome(self, event: EventLike) -> None:
        self.outcome = dict(event.payload)  # not the end: only episode.finished is

    def _user_message(self, event: EventLike) -> None:
        content = event.payload.get("content")
        if isinstance(content, str):
            self.said.append(content)

    def _assistant_message(self, event: EventLike) -> None:
        content = event.payload.get("content")
        if isinstance(content, str) and content:
            self.replied.append((self.ok_count, content))

    def _node_enter(self, event: EventLike) -> None:
        p = event.payload
        node_id, node_type = p.get("node_id"), p.get("type")
        if isinstance(node_id, str) and isinstance(node_type, str):
            self.node_types[node_id] = node_type
            if node_type == "predict":
                self._open_decision(
                    node_id, "predict", _label_signature(p.get("label")), sequence=event.sequence
                )

    def _react_started(self, event: EventLike) -> None:
        p = event.payload
        node_id = str(p.get("node_id") or "react")
        self.node_types[node_id] = "react"
        tools = tuple(self._logical(t) for t in p.get("tools") or () if isinstance(t, str))
        signature = str(p.get("signature") or "")
        self._open_decision(node_id, "react", signature, tools, sequence=event.sequence)

    def _model_requested(self, event: EventLike) -> None:
        p = event.payload
        node_id = p.get("node_id")
        if isinstance(node_id, str) and p.get("kind") == "react":
            self.node_types.setdefault(node_id, "react")
        decision = self._decision(node_id)
        if decision is not None and p.get("signature"):
            decision["signature"] = str(p["signature"])
        if decision is not None and isinstance(p.get("inputs"), dict):
            decision["inputs"] = dict(p["inputs"])

    def _model_responded(self, event: EventLike) -> None:
        decision = self._decision(event.payload.get("node_id"))
        if decision is not None and event.payload.get("status") not in (None, "success"):
            decision["ok"] = False

    def _blackboard_write(self, event: EventLike) -> None:
        key = event.payload.get("key")
        if not isinstance(key, str):
            return
        value = event.payload.get("value")
        stored = self.fresh_store.pop(key, _NOTHING)
        if stored is not _NOTHING and stored == value:
            return  # the result a completed call just stored: already indexed
        writer = event.payload.get("writer")
        decision = self._decision(writer)
        if decision is not None:
            decision["outputs"][key] = value
            self.decision_keys.add(key)
        self.index.set(key, value, decision=key in self.decision_keys)

    def _guard_evaluated(self, event: EventLike) -> None:
        p = event.payload
        self.guards.append(
            GuardObservation(
                position=self.ok_count,
                node_id=p.get("node_id"),
                type=str(p.get("type") or "guard"),
                expression=p.get("expression"),
                result=bool(p.get("result")),
                values=dict(p.get("values") or {}),
                sequence=event.sequence,
            )
        )

    # -- tool calls -----------------------------------------------------------------------------
    def _tool_started(self, event: EventLike) -> None:
        p = event.payload
        tool = p.get("tool")
        host = (tool.get("host_name") if isinstance(tool, dict) else tool) or p.get("name")
        logical = tool.get("logical_id") if isinstance(tool, dict) else None
        host = str(host or logical or "unknown")
        arguments = {k: v for k, v in dict(p.get("arguments") or {}).items() if k[:4] != "_arg"}
        node_id = p.get("node_id")
        sources = {a: self.index.sources(v) for a, v in arguments.items()}
        lists = {a: v for a, v in arguments.items() if isinstance(v, list) and v}
        step = {
            "index": len(self.steps),
            "logical_tool": str(logical or self._logical(host)),
            "host_tool": host,
            "arguments": arguments,
            "arg_sources": {a: s for a, s in sources.items() if s},
            "state_before": dict(self.index.state),
            "store": p.get("store"),
            "node_id": node_id,
            "node_type": self.node_types.get(node_id) if isinstance(node_id, str) else None,
            "finished": False,
            "element_sources": {
                a: tuple(self.index.sources(x) for x in v) for a, v in lists.items()
            },
            "list_sources": {a: self.index.list_sources(v) for a, v in lists.items()},
            "stated_args": frozenset(a for a, v in arguments.items() if stated_in(v, self.said)),
        }
        self.steps.append(step)
        self.open[event.event_id or str(len(self.steps))] = step

    def _tool_ended(self, event: EventLike) -> None:
        step = self.open.pop(event.parent_event_id or "", None)
        if step is None and self.open:
            step = self.open.pop(next(reversed(self.open)))
        if step is None:
            return
        step["finished"] = True
        if event.kind == "tool.call.failed":
            step.update(ok=False, error=event.payload.get("error"))
            step["error_type"] = event.payload.get("error_type")
            return
        result = event.payload.get("result")
        step.update(ok=True, result=result, position=self.ok_count)
        self.ok_count += 1
        tool = step["logical_tool"]
        self.occurrences[tool] = self.occurrences.get(tool, 0) + 1
        store = step["store"] or synth_store(tool, self.occurrences[tool])
        step["store"] = store
        self.index.set(store, result)
        self.fresh_store[store] = result

    # -- decisions ------------------------------------------------------------------------------
    def _open_decision(
        self,
        node_id: str,
        kind: str,
        signature: str,
        tools: tuple[str, ...] = (),
        sequence: int = -1,
    ) -> None:
        self.decisions.append(
            {
                "position": self.ok_count,
                "sequence": sequence,
                "node_id": node_id,
                "kind": kind,
                "signature": signature,
                "tools": tools,
                "outputs": {},
                "inputs": {},
                "ok": True,
            }
        )

    def _decision(self, node_id: Any) -> dict[str, Any] | None:
        for decision in reversed(self.decisions):
            if decision["node_id"] == node_id:
                return decision
        return None

    def _logical(self, host: str) -> str:
        return self.canonical.get(host, host)

    # -- result ---------------------------------------------------------------------------------
    def finish(self, records: EpisodeRecords) -> NormEpisode:
        inputs = dict(self.started.get("inputs") or {})
        teacher = self.started.get("ir")
        teacher_root = teacher.get("root", teacher) if isinstance(teacher, dict) else None
        metadata = {k: v for k, v in self.started.items() if k not in ("inputs", "ir")}
        if self.said and "conversation" not in inputs:
            inputs["conversation"] = list(self.said)
        return NormEpisode(
            episode_id=records.episode_id,
            steps=tuple(_step(s, inputs) for s in self.steps),
            decisions=tuple(_decision(d, teacher_root) for d in self.decisions),
            guards=tuple(self.guards),
            inputs=inputs,
            metadata=metadata,
            teacher_ir=teacher_root if isinstance(teacher_root, dict) else None,
            success=_success(self.outcome, self.finished),
            outcome=self.outcome,
            source_digest=_digest(records),
            conversation=tuple(self.said),
            replies=tuple(self.replied),
            complete=self.ended,
        )


_NOTHING = object()
_HANDLERS = {
    "episode.started": _Walker._episode_started,
    "episode.finished": _Walker._episode_finished,
    "environment.reward": _Walker._outcome,
    "environment.verdict": _Walker._outcome,
    "user.message": _Walker._user_message,
    "assistant.message": _Walker._assistant_message,
    "node.enter": _Walker._node_enter,
    "react.started": _Walker._react_started,
    "model.requested": _Walker._model_requested,
    "model.responded": _Walker._model_responded,
    "blackboard.write": _Walker._blackboard_write,
    "guard.evaluated": _Walker._guard_evaluated,
    "tool.call.started": _Walker._tool_started,
    "tool.call.completed": _Walker._tool_ended,
    "tool.call.failed": _Walker._tool_ended,
}


def _step(raw: dict[str, Any], inputs: dict[str, Any]) -> NormStep:
    sources: dict[str, tuple[str, ...]] = raw["arg_sources"]
    input_args = {
        arg: key
        for arg, value in raw["arguments"].items()
        for key in _input_keys(value, inputs)[:1]
    }
    ok = bool(raw.get("ok")) and raw["finished"]
    step = NormStep(
        index=raw["index"],
        position=raw.get("position") if ok else None,
        logical_tool=raw["logical_tool"],
        host_tool=raw["host_tool"],
        arguments=raw["arguments"],
        arg_lineage={},  # ranked below: _best_sources
        arg_sources=sources,
        input_args=input_args,
        state_before=raw["state_before"],
        store=raw["store"] if ok else None,
        node_id=raw["node_id"],
        node_type=raw["node_type"],
        ok=ok,
        result=raw.get("result"),
        error=None if ok else str(raw.get("error") or "call did not finish"),
        error_type=raw.get("error_type"),
        element_sources=raw["element_sources"],
        list_sources={a: s for a, s in raw["list_sources"].items() if s},
        stated_args=raw["stated_args"],
    )
    return dataclasses.replace(step, arg_lineage=_best_sources(step))


def _best_sources(step: NormStep) -> dict[str, str]:
    """Each argument's best exact source as :func:`jdsl.compiler.arguments.rank_sources` ranks
    them (a field of the object the call acts on, then the most recent), none for an argument
    whose every equal value is a coincidence: never merely the first equal value seen."""
    best: dict[str, str] = {}
    for argument, paths in step.arg_sources.items():
        ranked = rank_sources(argument, step, paths)
        if ranked:
            best[argument] = ranked[0]
    return best


def _input_keys(value: Any, inputs: dict[str, Any]) -> list[str]:
    """Run input keys whose value is exactly ``value`` (typed; bools only equal bools)."""
    return sorted(
        key
        for key, item in inputs.items()
        if type(item) is type(value) and item == value and value not in (None, "")
    )


def _decision(raw: dict[str, Any], teacher: dict[str, Any] | None) -> ModelDecision:
    node = _find_node(teacher, raw["node_id"]) if teacher else None
    signature = raw["signature"] or (node or {}).get("signature") or ""
    if not signature and raw["outputs"]:
        signature = "-> " + ", ".join(raw["outputs"])
    return ModelDecision(
        position=raw["position"],
        node_id=raw["node_id"],
        kind=raw["kind"],
        signature=signature,
        instructions=(node or {}).get("instructions"),
        input_sources=(node or {}).get("input_sources"),
        tools=raw["tools"],
        outputs=raw["outputs"],
        inputs=raw["inputs"],
        ok=raw["ok"],
        sequence=raw["sequence"],
    )


def _find_node(node: Any, node_id: str) -> dict[str, Any] | None:
    """The teacher IR node whose effective id is ``node_id``: its author id, else its
    structural id (``root/sequence.0/predict.1``, as a run numbers the nodes), or None.

    A node is found by what the run's events call it, so a predict written without ``id=``
    keeps its authored instructions through compile.
    """
    if not isinstance(node, dict):
        return None
    ids = structural_ids(node)
    return next((each for each in walk_ir(node) if ids.get(id(each)) == node_id), None)


def _label_signature(label: Any) -> str:
    """``"predict(a, b -> c)"`` -> ``"a, b -> c"`` (types come later from model.requested)."""
    text = str(label or "")
    if text.startswith("predict(") and text.endswith(")"):
        inner = text[len("predict(") : -1]
        try:
            return str(Signature.parse(inner))
        except ValueError:
            return ""
    return ""


def _success(outcome: dict[str, Any] | None, finished: dict[str, Any]) -> bool | None:
    if outcome is not None and isinstance(outcome.get("passed"), bool):
        return bool(outcome["passed"])  # the source said what its reward means
    if outcome is not None and outcome.get("reward") is not None:
        try:
            return float(outcome["reward"]) > 0
        except (TypeError, ValueError):
            return None
    if outcome is not None and outcome.get("verdict") is not None:
        verdict = str(outcome["verdict"]).strip().lower()
        return verdict in ("pass", "passed", "success", "succeeded", "true", "ok", "yes")
    status = finished.get("status")
    return None if status is None else status == "success"


def _digest(records: EpisodeRecords) -> str:
    """A stable digest of the episode: its id and its events' kinds, sequences and ids."""
    h = hashlib.sha256(records.episode_id.encode())
    for event in records.events:
        h.update(f"|{event.sequence}:{event.kind}:{event.event_id or ''}".encode())
    return "sha256:" + h.hexdigest()
