"""The fallback: what a compiled package does with a run it does not know.

A compiled program knows the paths its family's runs took. A run that leaves them (a guard or
route that does not hold, a value the program expects that is missing) is not refused: the rest
of it goes to a ``react`` leaf with the family's tools and the state so far. The package's root
is ``sel [compiled, react fallback]`` (:func:`with_fallback`):

* **when**: the compiled child ends FAILURE. Every ref an action passes is checked first
  (``guard exists(path)``, :func:`guard_refs`), so an expected value that is missing is a
  FAILURE, not an error. A write the tool refuses (an order no longer pending) hands over too:
  a bound package runs its compiled writes with ``on_error="fail"``
  (:meth:`jdsl.package.BehaviorPackage.writes_hand_over`), so the tool's error is the failure
  the fallback takes over from. Other errors (a read raising, a denied permission, an unbound
  tool) still stop the run: the fallback continues known work, it is not a retry of an unknown
  fault.
* **what it gets**: the run's conversation and run inputs, and every blackboard key the compiled
  program writes (a key it did not reach is ``None``), plus ``failure``, the node that failed and
  why. The trace's ``react.started`` of the fallback names the same failure (``after_failure``).
* **writes done before the failure stand** (nothing is rolled back). That is safe because the
  compiled program makes a write only on a path verification reproduced up to that write, and
  the fallback is told: each write action's result is on the blackboard under its store, and
  the instructions say a write whose result is given was already made and must not be repeated.
  A write that did not complete leaves no result, so the fallback may make it.

Replay (:mod:`jdsl.compiler.replay`) never asks a model to stand in for the fallback: it runs
the compiled child (:func:`split_fallback`) and reports where the fallback would have taken
over (:class:`Fallback`, from the run's failure, the record the fallback's ``after_failure``
carries). A traced run says where a fallback took over in its events: :func:`takeover` reads
it, for ``jdsl package run``'s note (:mod:`jdsl.commands.package`) and the step diff
(:mod:`jdsl.compiler.stepdiff`).
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jdsl.compiler.normalized import NormEpisode
from jdsl.ir.walk import transform_ir, walk_ir

__all__ = [
    "FALLBACK_ID",
    "HAND_OVER_REASON",
    "Fallback",
    "Takeover",
    "attach_fallback",
    "compiled_program",
    "family_tools",
    "guard_refs",
    "hand_over_guard",
    "hands_over",
    "is_fallback_node",
    "split_fallback",
    "takeover",
    "takeover_note",
    "with_fallback",
]

FALLBACK_ID = "fallback"
"""The id of the fallback react leaf."""
WRAPPER_ID = "compiled_or_fallback"
"""The id of the selector ``[compiled, fallback]``."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RESERVED = frozenset({"conversation", "failure", "answer"})
_HAND_OVER_EXPRESSION = {"const": False}


HAND_OVER_REASON = (
    "the recorded runs part ways here, too few of them each way to compile: the fallback "
    "takes the rest of the run"
)
"""What a hand-over guard says when it fails (its ``context``): the reason in the trace, the
fallback's ``failure`` input and replay's :class:`Fallback`."""


def hand_over_guard(node_id: str) -> dict[str, Any]:
    """A guard that never holds (``guard false``): where the compiled program hands the rest of
    a run to the fallback (the recorded runs went on in ways too thin to compile). Its
    ``context`` is :data:`HAND_OVER_REASON`: a failing guard's reason carries its context
    (:class:`jdsl.tree.leaves.Guard`), so the fallback is told in words why it took over."""
    return {"kind": "guard", "id": node_id, "expression": copy.deepcopy(_HAND_OVER_EXPRESSION),
            "context": HAND_OVER_REASON}  # fmt: skip


def hands_over(node: Mapping[str, Any]) -> bool:
    """Whether ``node`` is a :func:`hand_over_guard` (any ``guard false``: it can only hand
    over)."""
    return node.get("kind") == "guard" and node.get("expression") == _HAND_OVER_EXPRESSION


@dataclass(frozen=True)
class Fallback:
    """Where a run left the compiled program (what :func:`jdsl.compiler.replay.execute`
    reports instead of running the fallback).

    Attributes:
        node_id: the node whose FAILURE ended the compiled child.
        reason: why it failed (``guard exists(user.reservations[2]) was false`` ...).
        call_index: how many calls the compiled program had made.
        writes_done: how many of them were writes (all matched the recorded ones).
    """

    node_id: str | None
    reason: str
    call_index: int
    writes_done: int

    def __str__(self) -> str:
        where = f"node {self.node_id!r}" if self.node_id else "the root"
        return f"fallback after {self.writes_done} write(s), at {where}: {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        return {"node_id": self.node_id, "reason": self.reason, "call_index": self.call_index,
                "writes_done": self.writes_done}  # fmt: skip


@dataclass(frozen=True)
class Takeover:
    """Where a fallback took over in a run's trace (:func:`takeover`).

    Attributes:
        fallback_id: the node that took over (its ``node.enter``).
        node_id: the node whose FAILURE it took over from (``after_failure`` of the fallback's
            ``react.started``); None when the trace does not say.
        reason: why that node failed; None when the trace does not say.
        call_index: how many tool calls the run had made before it took over.
        event_index: the position of its ``node.enter`` among the events.
    """

    fallback_id: str
    node_id: str | None
    reason: str | None
    call_index: int
    event_index: int


def is_fallback_node(payload: Mapping[str, Any]) -> bool:
    """Whether a ``node.enter`` payload is a node taking over for a compiled program: a react
    leaf, or a node whose own id starts with ``fallback`` (the wrapper
    ``compiled_or_fallback`` holds the compiled program too and is not one)."""
    name = str(payload.get("node_id") or "").rsplit("/", 1)[-1].lower()
    return name.startswith("fallback") or payload.get("type") == "react"


def takeover(events: Iterable[Any]) -> Takeover | None:
    """Where a fallback took over in a run's events (:class:`~jdsl.trace.TraceEvent` s or
    their dicts): the first ``node.enter`` of a node :func:`is_fallback_node` accepts, with the
    failure the first ``react.started`` after it names (``after_failure``); None when no
    fallback ran."""
    found: Takeover | None = None
    calls = 0
    for index, event in enumerate(events):
        kind, payload = _kind_payload(event)
        if found is None and kind == "tool.call.started":
            calls += 1
        elif found is None and kind == "node.enter" and is_fallback_node(payload):
            found = Takeover(str(payload.get("node_id") or ""), None, None, calls, index)
        elif found is not None and kind == "react.started" and "after_failure" in payload:
            failed = payload.get("after_failure") or {}
            return dataclasses.replace(
                found, node_id=failed.get("node_id"), reason=failed.get("reason")
            )
    return found


def takeover_note(events: Iterable[Any]) -> str | None:
    """What a run of a package says when its fallback took over (:func:`takeover`, the
    package's own :data:`FALLBACK_ID` leaf): where the compiled program stopped and why. The
    one wording of ``jdsl package run``'s note (:mod:`jdsl.commands.package`) and the
    notebook's (``jdsl_nb/binding.py``); None when no fallback of the package ran."""
    taken = takeover(events)
    if taken is None or taken.fallback_id != FALLBACK_ID:
        return None
    return (
        f"the compiled program stopped at {taken.node_id or '?'} ({taken.reason or '?'}); the "
        "package's fallback (a react agent with the family's tools) took the rest of the run"
    )


def _kind_payload(event: Any) -> tuple[Any, Mapping[str, Any]]:
    if isinstance(event, Mapping):
        return event.get("kind"), event.get("payload") or {}
    return getattr(event, "kind", None), getattr(event, "payload", None) or {}


def _is_ref_check(node: Mapping[str, Any]) -> bool:
    children = node.get("children") or []
    return (node.get("kind") == "sequence" and len(children) == 2
            and str(node.get("id", "")).startswith("refs_")
            and children[0].get("kind") == "guard" and str(children[0].get("id", "")).startswith("has_")
            and children[1].get("kind") == "action")  # fmt: skip


def _unguard(node: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``node`` with each ref check :func:`guard_refs` added back to its action."""
    return transform_ir(node, _unguard_one)


def _unguard_one(node: dict[str, Any]) -> dict[str, Any]:
    return dict(node["children"][1]) if _is_ref_check(node) else node


def compiled_program(ir: Mapping[str, Any]) -> dict[str, Any]:
    """The IR as staticize emitted it: without the fallback and the ref guards
    :func:`with_fallback` added (what the package's metrics describe)."""
    bare, fallback = split_fallback(ir)
    if fallback is None:
        return bare
    root = bare.get("root", bare)
    unguarded = {**root, "child": _unguard(root["child"])}
    return {**bare, "root": unguarded} if "root" in bare else unguarded


def split_fallback(ir: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """``(ir of the compiled program alone, the fallback node)``; ``(ir, None)`` for an IR
    :func:`with_fallback` did not wrap."""
    root = ir.get("root", ir)
    child = root.get("child")
    children = (child or {}).get("children") or []
    if (child or {}).get("id") != WRAPPER_ID or len(children) != 2:
        return dict(ir), None
    bare = {**root, "child": children[0]}
    return ({**ir, "root": bare} if "root" in ir else bare), dict(children[1])


def family_tools(episodes: Sequence[NormEpisode]) -> list[str]:
    """The capabilities the family's successful runs called, sorted (the fallback's tools)."""
    return sorted({s.logical_tool for e in episodes if e.success is not False
                   for s in e.ok_steps()})  # fmt: skip


def _refs(spec: Any) -> list[str]:
    return [str(spec["ref"])] if isinstance(spec, Mapping) and "ref" in spec else []


def guard_refs(node: dict[str, Any], used: set[str], inputs: Sequence[str] = ()) -> dict[str, Any]:
    """A copy of ``node`` in which each action that passes refs runs after a guard that every
    one of them exists (``seq [guard exists(a) and ..., action]``): a missing value fails the
    action's branch (FAILURE) instead of raising; a run input the host could not give (one the
    user never stated) included. Every child slot is rebuilt (:func:`jdsl.ir.walk.transform_ir`:
    a repeat's ``until`` too). Guard ids ``has_<action id>`` (unique in ``used``, which is
    updated)."""

    def guard(each: dict[str, Any]) -> dict[str, Any]:
        if each.get("kind") != "action":
            return each
        paths = sorted({p for spec in (each.get("args") or {}).values() for p in _refs(spec)
                        if p not in inputs})  # fmt: skip
        if not paths:
            return each
        terms = [{"exists": p} for p in paths]
        expression = terms[0] if len(terms) == 1 else {"and": terms}
        base = str(each.get("id") or each.get("tool"))
        check = {"kind": "guard", "id": _fresh(f"has_{base}", used), "expression": expression}
        return {"kind": "sequence", "id": _fresh(f"refs_{base}", used),
                "children": [check, each]}  # fmt: skip

    return transform_ir(node, guard)


def _fresh(base: str, used: set[str]) -> str:
    name, k = re.sub(r"[^A-Za-z0-9_]+", "_", base), 2
    found = name
    while found in used:
        found, k = f"{name}_{k}", k + 1
    used.add(found)
    return found


def _state_keys(root: Mapping[str, Any], inputs: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(keys the fallback reads, stores of write actions)``: run inputs and every key the
    compiled program writes (action stores, predict / react outputs), identifiers only."""
    from jdsl.compiler.families import is_write
    from jdsl.signature import Signature

    keys, writes = list(inputs), []
    for node in walk_ir(root):
        kind = node.get("kind")
        if kind == "action" and node.get("store"):
            keys.append(str(node["store"]))
            if is_write(str(node["tool"])):
                writes.append(f"{node['tool']} -> {node['store']}")
        elif kind in ("predict", "react") and node.get("signature"):
            keys += Signature.parse(str(node["signature"])).output_names
    found = [k for k in dict.fromkeys(keys) if _NAME.fullmatch(k) and k not in _RESERVED]
    return found, writes


def _instructions(family: str, tools: Sequence[str], writes: Sequence[str],
                  episodes: Sequence[NormEpisode]) -> str:  # fmt: skip
    from jdsl.compiler.families import intent_writes

    seen = sorted({" -> ".join(intent_writes(e)) or "(no write)" for e in episodes
                   if e.success is not False})  # fmt: skip
    lines = [
        f"You continue a run of '{family}' that its compiled program could not finish; "
        "'failure' says which step failed and why.",
        "The conversation and what the program found so far are your inputs (an input that is "
        "None was not reached).",
        "Recorded runs of this family made these writes: " + "; ".join(seen) + ".",
        "Use the tools to finish the user's request the way those runs did; make a write only "
        "when the conversation and the data support it.",
    ]
    if writes:
        lines.append("Writes the program may already have made (result key given = done, never "
                     "repeat it): " + ", ".join(writes) + ".")  # fmt: skip
    lines.append("Answer with the final message to the user.")
    return "\n".join(lines)


def with_fallback(
    ir: Mapping[str, Any],
    episodes: Sequence[NormEpisode],
    *,
    family: str,
    inputs: Sequence[str] = (),
    max_steps: int | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """``(ir wrapped as sel [compiled, react fallback], the fallback's tools)``.

    Args:
        ir: the compiled Behavior IR (``{"format", "root"}``); returned unchanged (a copy) when
            the root has no child or there is no tool to give the fallback.
        episodes: the family's episodes (its successful runs give the tools and the writes).
        family: the family (behavior) name, for the instructions.
        inputs: the run inputs the compiled program reads (the fallback reads them too).
        max_steps: the fallback's model calls (default: twice the most calls a successful run
            made, at least 6, at most 40).
    """
    document = copy.deepcopy(dict(ir))
    root = document["root"]
    tools = family_tools(episodes)
    if root.get("child") is None or not tools:
        return document, []
    used = {str(n["id"]) for n in walk_ir(root) if n.get("id")}
    compiled = guard_refs(root["child"], used)
    keys, writes = _state_keys(compiled, inputs)
    calls = max((len(e.ok_steps()) for e in episodes if e.success is not False), default=3)
    fallback = {
        "kind": "react",
        "id": FALLBACK_ID,
        "signature": ", ".join(["conversation", "failure", *keys]) + " -> answer",
        "tools": tools,
        "instructions": _instructions(family, tools, writes, episodes),
        "max_steps": max_steps or min(40, max(6, 2 * calls)),
    }
    root["child"] = {"kind": "selector", "id": WRAPPER_ID, "children": [compiled, fallback]}
    return document, tools


def attach_fallback(compiled: Any, episodes: Sequence[NormEpisode]) -> Any:
    """A copy of a :class:`~jdsl.compiler.compiled.CompiledBehavior` whose IR is wrapped by
    :func:`with_fallback` and whose required capabilities include the fallback's tools."""
    ir, tools = with_fallback(compiled.ir, episodes, family=compiled.name, inputs=compiled.inputs)
    if not tools:
        return compiled
    capabilities = tuple(sorted(set(compiled.required_capabilities) | set(tools)))
    return dataclasses.replace(compiled, ir=ir, required_capabilities=capabilities)
