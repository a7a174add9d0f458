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

from collections.abc import Callable, Collection, Sequence

from jdsl.compiler.names import slug
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.rejoin import rename_stores
from jdsl.compiler.branches import successful_pool
from jdsl.compiler.staticize.loops import LoopSpec, compress, family_loops
from jdsl.compiler.store import NormStore

__all__ = ["scan_store", "scan_stores"]

_EARLIER = "__scanned"


def scan_store(first: str) -> str:
    """The loop's store, from its first call's store after :func:`scan_stores`."""
    head, sep, _ = first.rpartition(_EARLIER)
    return head if sep else first


def _renames(episode: NormEpisode, loops: Collection[LoopSpec]) -> dict[str, str]:
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


def scan_stores(
    episodes: Sequence[NormEpisode], read_only: Callable[[str], bool]
) -> tuple[Sequence[NormEpisode], bool]:
    """The episodes with each scan's stores renamed (module docstring), and whether any was
    (the family's loops: :func:`~jdsl.compiler.staticize.loops.family_loops`)."""
    loops = family_loops(successful_pool(episodes), read_only=read_only)
    if not any(spec.prefix for spec in loops):
        return episodes, False
    renames = [_renames(e, loops) for e in episodes]
    if not any(renames):
        return episodes, False
    rewritten = (rename_stores(e, r) for e, r in zip(episodes, renames, strict=True))
    if isinstance(episodes, NormStore):
        return NormStore(rewritten), True
    return list(rewritten), True
