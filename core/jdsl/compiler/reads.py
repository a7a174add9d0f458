"""What replay answers a read the recorded episode never made (:mod:`jdsl.compiler.replay`).

Matched means the same writes; reads may differ. A read with the same arguments as a recorded
one gets its recorded result. Two reads the record cannot answer still need no answer:

* a read whose result no node of the tree reads (:func:`unused_reads`: a ``think`` scratchpad,
  a lookup left in the program that nothing depends on) is answered ``None``;
* a read of a tool that answered nothing (:func:`empty`) to every call the episode made gets
  that empty answer.

A model call is answered by the recorded decision of the leaf that makes it
(:func:`asking_leaf`), never by another leaf's: a fork's other arm may hold predicts this run
never reaches.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from jdsl.compiler.families import is_write
from jdsl.compiler.normalized import NormStep
from jdsl.ir.walk import CHILD_SLOTS
from jdsl.signature import Signature

__all__ = ["UNUSED_READ", "asking_leaf", "empty", "predict_prompts", "unused_reads"]

UNUSED_READ = NormStep(index=-1, position=None, logical_tool="", host_tool="", arguments={},
                        arg_lineage={}, arg_sources={}, input_args={}, state_before={},
                        store=None, node_id=None, node_type=None)  # fmt: skip
"""What a read whose result nothing uses is answered with (``result`` None)."""


def _own_fields(node: Mapping[str, Any]) -> dict[str, Any]:
    """A node's fields without its child slots (:data:`jdsl.ir.walk.CHILD_SLOTS`)."""
    slots = CHILD_SLOTS.get(str(node.get("kind")), ())
    return {k: v for k, v in node.items() if k not in slots}


def unused_reads(nodes: Iterable[Mapping[str, Any]], effects: Mapping[str, Any] | None = None
                 ) -> frozenset[str]:  # fmt: skip
    """The read tools of a tree (its IR nodes) whose results no other node reads: every
    action of the tool has no store, or a store key no other node mentions."""
    nodes = list(nodes)
    texts = [json.dumps(_own_fields(n), default=str) for n in nodes]
    used: dict[str, bool] = {}
    for at, node in enumerate(nodes):
        if node.get("kind") != "action" or is_write(str(node["tool"]), effects):
            continue
        store = node.get("store")
        word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(str(store))}(?![A-Za-z0-9_])")
        read = bool(store) and any(word.search(t) for k, t in enumerate(texts) if k != at)
        used[str(node["tool"])] = used.get(str(node["tool"]), False) or read
    return frozenset(tool for tool, read in used.items() if not read)


def empty(value: Any) -> bool:
    """``None``, ``""``, ``[]`` or ``{}``."""
    return value is None or (isinstance(value, str | list | dict) and not value)


Prompt = tuple[str, str, list[str]]


def predict_prompts(nodes: Iterable[Mapping[str, Any]]) -> list[Prompt]:
    """``(node id, instructions, "- input:" lines)`` of each predict leaf, as its prompt shows
    them (:func:`jdsl.signature.render_prompt`)."""
    return [(str(n.get("id") or ""), str(n.get("instructions") or "").strip(),
             [f"- {name}:" for name in Signature.parse(str(n["signature"])).input_names])
            for n in nodes if n.get("kind") == "predict" and n.get("signature")]  # fmt: skip


def asking_leaf(
    prompts: Sequence[Prompt], messages: Sequence[Mapping[str, Any]]
) -> str | frozenset[str] | None:
    """The predict leaf whose prompt the last message is (its instructions first, then its input
    lines); the leaves that fit when several do (alternatives may ask alike: only one of them
    asks, never a leaf whose prompt differs); None when none fits."""
    prompt = str(messages[-1].get("content") or "") if messages else ""
    found = {node for node, head, lines in prompts
             if prompt.startswith(head) and all(line in prompt for line in lines)}  # fmt: skip
    return (found.pop() if len(found) == 1 else frozenset(found)) if found else None
