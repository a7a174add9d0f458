"""Stores of a scan (:attr:`jdsl.compiler.staticize.loops.LoopSpec.prefix`) named as the loop
stores them.

A run that reads ``user.orders[0]``, ``[1]``, ``[2]`` one by one records each result under its
own key (``get_order_details_out``, ``_2``, ``_3``), and the write that follows reads the last
one (``get_order_details_out_3.order_id``); another run stops after one and reads
``get_order_details_out``. The compiled loop stores every element under one key, which after the
loop holds the last scanned element's result. :func:`scan_stores` renames, in each episode, the
last call's store of the j-th scan to ``<tool>_scanned`` (``_2``, ... for later scans) and each
earlier call's to ``<that name>__scanned<k>`` (never available after the loop), so every run's
later call reads the same key (a scan storing every element under one key has it renamed
to that name); the loop's action stores under the name
:func:`scan_store` gives back from the first call's store.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from jdsl.compiler.branches import successful_pool
from jdsl.compiler.names import slug
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.rejoin import rename_stores
from jdsl.compiler.staticize.loops import LoopSpec, compress, family_loops
from jdsl.compiler.store import NormStore
from jdsl.ir.walk import walk_ir

__all__ = ["program_scans", "scan_renames", "scan_store", "scan_stores"]

_EARLIER = "__scanned"
_SCANNED = re.compile(r"^[a-z0-9_]+_scanned(_\d+)?$")
_SELECTED = re.compile(r"^(?P<head>.+)\[\$(?P<key>[A-Za-z_][A-Za-z0-9_]*)\]$")


def scan_store(first: str) -> str:
    """The loop's store, from its first call's store after :func:`scan_stores`."""
    head, sep, _ = first.rpartition(_EARLIER)
    return head if sep else first


def scan_renames(episode: NormEpisode, loops: Collection[LoopSpec]) -> dict[str, str]:
    """``{store: name}`` renaming ``episode``'s scans' stores (module docstring)."""
    ok = episode.ok_steps()
    tokens, positions, specs = compress(episode, loops)
    renames: dict[str, str] = {}
    seen: dict[str, int] = {}
    for token, at in zip(tokens, positions, strict=True):
        spec = specs.get(token)
        if spec is None or not spec.prefix:
            continue
        stores = [ok[i].store for i in at]
        if any(not s for s in stores):
            continue
        j = seen[spec.tool] = seen.get(spec.tool, 0) + 1
        name = f"{slug(spec.tool)}_scanned" + (f"_{j}" if j > 1 else "")
        if len(set(stores)) == 1:  # one key for every element: it is the loop's
            renames[str(stores[0])] = name
            continue
        for k, store in enumerate(stores):
            renames[str(store)] = name if k == len(stores) - 1 else f"{name}{_EARLIER}{k}"
    return renames


def program_scans(ir: Mapping[str, Any]) -> frozenset[LoopSpec]:
    """The scans a compiled program loops over (``for_each x in xs[$k]`` whose call stores
    under a scan's name), to rename held-out runs' stores as the compiled runs' were."""
    found = set()
    for node in walk_ir(ir.get("root", ir)):
        match = (
            _SELECTED.match(str(node.get("items", ""))) if node.get("kind") == "for_each" else None
        )
        if match is None:
            continue
        item = str(node.get("item"))
        for action in walk_ir(node.get("child") or {}):
            if action.get("kind") != "action" or _EARLIER in str(action.get("store", "")):
                continue
            if not _SCANNED.match(str(action.get("store", ""))):
                continue
            for arg, spec in (action.get("args") or {}).items():
                ref = str(spec.get("ref", "")) if isinstance(spec, Mapping) else ""
                if ref == item or ref.startswith((f"{item}.", f"{item}[")):
                    found.add(LoopSpec(str(action["tool"]), arg, match["head"], ref[len(item) :],
                                       select=True, prefix=True))  # fmt: skip
    return frozenset(found)


def scan_stores(
    episodes: Sequence[NormEpisode],
    read_only: Callable[[str], bool],
    loops: Collection[LoopSpec] | None = None,
) -> tuple[Sequence[NormEpisode], bool]:
    """The episodes with each scan's stores renamed (module docstring), and whether any was
    (``loops``, else the family's: :func:`~jdsl.compiler.staticize.loops.family_loops`)."""
    if loops is None:
        loops = family_loops(successful_pool(episodes), read_only=read_only)
    if not any(spec.prefix for spec in loops):
        return episodes, False
    renames = [scan_renames(e, loops) for e in episodes]
    if not any(renames):
        return episodes, False
    rewritten = (rename_stores(e, r) for e, r in zip(episodes, renames, strict=True))
    if isinstance(episodes, NormStore):
        return NormStore(rewritten), True
    return list(rewritten), True
