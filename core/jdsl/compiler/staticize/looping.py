"""Emit a loop (:class:`~jdsl.compiler.staticize.loops.LoopSpec`) as a ``for_each`` node.

``for_each <item> in <head>`` with the looped call as its child: the looped argument reads the
element (``<item><tail>``), every other argument is chosen over every element's call like any
call slot's (:func:`jdsl.compiler.arguments.choose_argument`); the element name is available
only inside the loop. A loop over a list of any length replays call by call against each
episode (one call per element, in order).

A loop over some elements (:attr:`LoopSpec.select`) first asks a residual decision which ones
(``<name>_indexes: list[int]``, the 0-based indexes in the order the calls take them) and loops
over ``<head>[$<name>_indexes]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jdsl.compiler.arguments import ArgChoice, top_key
from jdsl.compiler.emitter import Emitter, Names, Slot
from jdsl.compiler.names import slug
from jdsl.compiler.normalized import ModelDecision
from jdsl.compiler.residualize import residualize_argument
from jdsl.compiler.staticize.loops import LoopSpec, element_at

__all__ = ["emit_loop"]


def _item_name(em: Emitter, spec: LoopSpec) -> str:
    base = spec.argument if not spec.tail else f"{spec.argument}_item"
    taken = em.available | em.inputs
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


def emit_loop(
    em: Emitter, slot: Slot, names: Names, decisions: Sequence[ModelDecision], spec: LoopSpec
) -> None:
    """Append ``for_each`` over ``spec.head`` whose child makes the looped call."""
    em.decisions(decisions, em.scope)
    em.need({top_key(spec.head)})
    items = _selection(em, slot, spec) if spec.select else spec.head
    item = _item_name(em, spec)
    path = f"{item}{spec.tail}"
    values = tuple(s.arguments.get(spec.argument) for s in slot.steps)
    element = ArgChoice(spec.argument, "loop", {"ref": path}, path, values)
    outer = em.nodes
    em.nodes = []
    before = set(em.available)
    em.available.add(item)
    em.loop_items.add(item)
    em.call(slot, names, (), em.scope, fixed={spec.argument: element})
    body, em.nodes = em.nodes, outer
    em.available = before  # after the loop its stores hold only the last element's result
    child: dict[str, Any] = (
        body[0] if len(body) == 1
        else {"kind": "sequence", "id": em.unique(f"each_{slug(slot.tool)}_body"), "children": body}
    )  # fmt: skip
    node_id = em.unique(f"each_{slug(slot.tool)}_{slot.position}")
    em.nodes.append({"kind": "for_each", "id": node_id, "items": items, "item": item,
                     "child": child})  # fmt: skip
    em.prove(node_id, "for_each", [], f"LOOP {slot.tool} once per element of {items} "
             f"({spec.argument} = the element{spec.tail})")  # fmt: skip


def _selection(em: Emitter, slot: Slot, spec: LoopSpec) -> str:
    """A predict that picks the elements a loop over some elements takes; the loop's items."""
    base = f"{slug(spec.argument).removesuffix('_id').removesuffix('_ids')}_indexes"
    key, n = base, 2
    while key in em.available | em.inputs:
        key, n = f"{base}_{n}", n + 1
    picked = [k for k in (element_at(s, spec) for s in slot.steps) if k is not None]
    residual = residualize_argument(
        node_id=em.unique(f"choose_{key}"), output=key, values=[picked[:3] or [0]],
        inputs=[*em._reads(), top_key(spec.head)], model=em.model,
        note=(f"Answer with a JSON list of the 0-based indexes of the elements of {spec.head} "
              f"to call {slot.tool} for, in the order to call it."),
    )  # fmt: skip
    em.add_residual(residual, None)
    em.prove(residual.node["id"], "predict", [],
             f"model-chosen elements of {spec.head} to call {slot.tool} for")  # fmt: skip
    return f"{spec.head}[${key}]"
