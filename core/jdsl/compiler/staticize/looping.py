"""Emit a loop (:class:`~jdsl.compiler.staticize.loops.LoopSpec`) as a ``for_each`` node.

``for_each <item> in <head>`` with the looped call as its child: the looped argument reads the
element (``<item><tail>``), every other argument is chosen over every element's call like any
call slot's (:func:`jdsl.compiler.arguments.choose_argument`); the element name is available
only inside the loop. A loop over a list of any length replays call by call against each
episode (one call per element, in order).

A loop over some elements (:attr:`LoopSpec.select`) first asks a residual decision which ones
(``<name>_indexes: list[int]``, the 0-based indexes in the order the calls take them) and loops
over ``<head>[$<name>_indexes]``. A scan (:attr:`LoopSpec.prefix`) asks the same for the first
elements to read, up to the one to stop at, and, when every run's reads were such a prefix
and a later call acts on what it found, checks the answer where it is bound
(``guard <head>[$<name>_indexes] prefix_of <head>``: an index out of range or an answer that
is not 0, 1, ... fails the guard, and the package's fallback takes over with its reason); its
store stays available after the loop.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from jdsl.compiler.arguments import ArgChoice, top_key
from jdsl.compiler.names import slug
from jdsl.compiler.normalized import ModelDecision
from jdsl.compiler.staticize.calls import call, decisions, model_chosen, residual_inputs
from jdsl.compiler.staticize.fragment import Build, Evidence, Fragment, Here, Names, Slot, proof
from jdsl.compiler.staticize.loops import LoopSpec, element_at
from jdsl.compiler.staticize.scans import scan_store
from jdsl.ir.walk import transform_ir

__all__ = ["emit_loop"]


def _item_name(here: Here, spec: LoopSpec) -> str:
    base = spec.argument if not spec.tail else f"{spec.argument}_item"
    taken = here.available | here.inputs
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


def emit_loop(
    ev: Evidence,
    here: Here,
    slot: Slot,
    names: Names,
    found: Sequence[ModelDecision],
    spec: LoopSpec,
) -> Fragment:
    """``for_each`` over ``spec.head`` whose child makes the looped call (after the decisions
    ``found``)."""
    b = Build(here)
    b.add(decisions(ev, b.here, found))
    b.add(b.here.need({top_key(spec.head)}))
    items = spec.head
    if spec.select:
        items, made = _selection(ev, b.here, slot, spec)
        b.add(made)
    item = _item_name(b.here, spec)
    path = f"{item}{spec.tail}"
    values = tuple(s.arguments.get(spec.argument) for s in slot.steps)
    element = ArgChoice(spec.argument, "loop", {"ref": path}, path, values)
    inside = dataclasses.replace(b.here, sequence=(), available=b.here.available | {item},
                                 loop_items=b.here.loop_items | {item})  # fmt: skip
    made = call(ev, inside, slot, names, (), fixed={spec.argument: element})
    body = list(made.nodes)
    produced: frozenset[str] = frozenset()
    if spec.prefix:  # after a scan its store holds the element it stopped at
        body = [_stored(n, slot.tool) for n in body]
        produced = frozenset(scan_store(p) for p in made.produced)
    # after the loop its stores hold only the last element's result: nothing more is available
    b.add(dataclasses.replace(made, nodes=(), produced=produced,
                              loop_items=made.loop_items | {item}))  # fmt: skip
    child: dict[str, Any] = (
        body[0] if len(body) == 1
        else {"kind": "sequence", "id": b.id(f"each_{slug(slot.tool)}_body"), "children": body}
    )  # fmt: skip
    node_id = b.id(f"each_{slug(slot.tool)}_{slot.position}")
    b.add(Fragment(nodes=({"kind": "for_each", "id": node_id, "items": items, "item": item,
                           "child": child},)))  # fmt: skip
    b.add(proof(node_id, "for_each", [], f"LOOP {slot.tool} once per element of {items} "
                f"({spec.argument} = the element{spec.tail})"))  # fmt: skip
    return b.out


def _stored(node: dict[str, Any], tool: str) -> dict[str, Any]:
    """``node`` with the store of each call of ``tool`` in it the scan's (staticize/scans.py)."""

    def scan(n: dict[str, Any]) -> dict[str, Any]:
        if n.get("kind") == "action" and n.get("tool") == tool and n.get("store"):
            n["store"] = scan_store(str(n["store"]))
        return n

    return transform_ir(node, scan)


def _selection(ev: Evidence, here: Here, slot: Slot, spec: LoopSpec) -> tuple[str, Fragment]:
    """A predict that picks the elements a loop over some elements takes; the loop's items."""
    base = f"{slug(spec.argument).removesuffix('_id').removesuffix('_ids')}_indexes"
    key, n = base, 2
    # a key another arm's selection wrote is not available after the fork, but a run through
    # that arm has it: the name is new in the whole program (as its leaf's id is)
    while key in here.available | here.inputs or f"choose_{key}" in here.ids:
        key, n = f"{base}_{n}", n + 1
    picked = [k for k in (element_at(s, spec) for s in slot.steps) if k is not None]
    b = Build(here)
    b.add(model_chosen(
        ev, here, key,
        values=[picked[:3] or [0]],
        inputs=[*residual_inputs(here), top_key(spec.head)],
        why=f"model-chosen elements of {spec.head} to call {slot.tool} for",
        note=(f"Answer with a JSON list of the 0-based indexes of the first elements of "
              f"{spec.head} to call {slot.tool} for, in order (0, 1, ...), up to the one to "
              f"stop at." if spec.prefix else
              f"Answer with a JSON list of the 0-based indexes of the elements of {spec.head} "
              f"to call {slot.tool} for, in the order to call it."),
    ))  # fmt: skip
    items = f"{spec.head}[${key}]"
    if spec.prefix and _prefixes(slot, spec) and _consumed(slot):  # 0, 1, ...: else fallback
        b.add(_prefix_guard(b.here, items, spec.head, key))
    return items, b.out


def _prefixes(slot: Slot, spec: LoopSpec) -> bool:
    """Whether every run's calls of the loop (``slot.at``: every element's call) read elements
    0, 1, ... of the list: a scan. Where some run read others (items 3 then 0: the ones it
    meant), the loop reads a selection and its answer is not held to a prefix."""
    taken: dict[str, list[tuple[int, int]]] = {}
    for position, episodes in slot.at:
        for episode in episodes:
            k = element_at(episode.ok_steps()[position], spec)
            taken.setdefault(episode.episode_id, []).append((position, -1 if k is None else k))
    return all([k for _, k in sorted(found)] == list(range(len(found)))
               for found in taken.values())  # fmt: skip


def _consumed(slot: Slot) -> bool:
    """Whether a later call of some run acts on what the scan found: an argument whose lineage
    reads the scan's store (the order read last, then cancelled). A scan nothing reads after
    it reads what the run wanted to see, in any order: its answer is not held to a prefix."""
    store = scan_store(str(slot.steps[0].store or ""))
    last: dict[str, int] = {}
    for position, episodes in slot.at:
        for episode in episodes:
            last[episode.episode_id] = max(position, last.get(episode.episode_id, -1))
    for _, episodes in slot.at:
        for episode in episodes:
            later = episode.ok_steps()[last[episode.episode_id] + 1 :]
            if any(re.split(r"[.\[]", path, maxsplit=1)[0] == store
                   for step in later for path in step.arg_lineage.values()):  # fmt: skip
                return True
    return False


def _prefix_guard(here: Here, items: str, head: str, key: str) -> Fragment:
    """``guard <head>[$key] prefix_of <head>`` after a scan's selection: its failure (an index
    out of range, an answer not 0, 1, ...) hands the run to the fallback, with the reason.
    Execution replay checks it (the recorded answers are prefixes); it has no static replay
    check (the recorded state holds no answer), so it is no :class:`CompiledGuard`."""
    node_id = here.unique(f"check_{key}")
    node = {"kind": "guard", "id": node_id,
            "expression": {"prefix_of": [{"ref": items}, {"ref": head}]},
            "context": f"{key} must be the indexes 0, 1, ... of the first elements of {head} "
                       "to scan, each in range"}  # fmt: skip
    made = Fragment(nodes=(node,), ids=frozenset({node_id}))
    return made + proof(node_id, "guard", [], "a scan's selection is a prefix of the list")
