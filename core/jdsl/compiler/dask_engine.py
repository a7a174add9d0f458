"""The distributed engine: the per-episode passes as a map over trace shards on Dask.

Each shard (one JSONL trace file) is read, chain-checked and normalized on a worker
(:func:`map_shard`), which also maps its episodes into a :class:`~jdsl.compiler.reduce.FactTable`;
the tables are merged by a tree reduction on the cluster (``fan_in`` at a time, left before
right), and the client, holding the normalized episodes in shard order, runs the passes that
need them all (staticize, package). Verification's per-episode part (replaying every ref and
guard, executing the tree on every aligned episode) runs on the workers again, each shard where
its normalized episodes already are (:func:`replay_shards`), and the client joins the parts in
shard order. The package is byte-identical to the local engine's over the same files in the
same order.

On a real cluster the shards must be paths every worker can open (a shared file system, or an
object store mounted or fetched by the worker); the code is the same.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jdsl.compiler.compiled import CompiledBehavior
from jdsl.compiler.errors import CompileError
from jdsl.compiler.pipeline import CompileResult, compile_normalized
from jdsl.compiler.reduce import FactTable, merge_tables
from jdsl.compiler.store import NormStore
from jdsl.compiler.stream import leave_out_torn, normalize_stream
from jdsl.compiler.verify import ReplayMap, ReplayPart, replay_part
from jdsl.errors import MissingDependencyError
from jdsl.trace import iter_episodes
from jdsl.trace.addresses import redact_addresses
from jdsl.trace.reader import SkippedLines

__all__ = [
    "Reduced",
    "compile_on_dask",
    "compile_reduced",
    "dask_client",
    "map_shard",
    "reduce_shards",
    "replay_shards",
    "tree_reduce",
]

CONNECT_TIMEOUT_S = 10
"""Seconds a ``distributed.Client`` may take to connect to a scheduler that accepts TCP."""
PROBE_TIMEOUT_S = 3.0
"""Seconds a plain TCP connect to the scheduler's port may take before the client is made: a
refused connection fails at once instead of being retried for :data:`CONNECT_TIMEOUT_S`."""
HANDSHAKE_TIMEOUT_S = 5.0
"""Seconds a scheduler that accepted the probe's connection may take to send dask's handshake."""


Mapped = tuple[NormStore, FactTable, SkippedLines, list[str]]
"""What :func:`map_shard` gives: normalized episodes, fact table, skipped lines, ids left out."""


def map_shard(
    path: str,
    canonical: Mapping[str, str] | None = None,
    check_chain: bool = True,
    strict: bool = True,
    torn_out: bool = False,
) -> Mapped:
    """The per-episode passes over one shard: its normalized episodes, their fact table, the
    lines skipped (none when ``strict``) and the ids of the episodes left out because a skipped
    line was one of their events (``torn_out``: :func:`~jdsl.compiler.stream.leave_out_torn`,
    as ``jdsl compile --skip-bad-lines`` reads a file locally).

    Raises:
        CompileError: an episode's hash chain is broken (``check_chain``).
        TraceFormatError: a bad line (``strict``).
    """
    skipped = SkippedLines()
    left: list[str] = []
    episodes = iter_episodes(path, strict=strict, skipped=None if strict else skipped)
    if torn_out:
        episodes = leave_out_torn(episodes, skipped, left)
    normalized = normalize_stream(episodes, canonical=canonical, check_chain=check_chain)
    return normalized, FactTable.of(normalized), skipped, left


def tree_reduce(client: Any, futures: Sequence[Any], *, fan_in: int = 8) -> Any:
    """Merge fact-table futures on the cluster, ``fan_in`` at a time, keeping their order.

    Returns:
        The future of the merged table.
    """
    level = list(futures)
    if not level:
        return client.submit(merge_tables, pure=False)
    while len(level) > 1:
        level = [
            client.submit(merge_tables, *level[i : i + fan_in], pure=False)
            for i in range(0, len(level), fan_in)
        ]
    return level[0]


@contextmanager
def dask_client(
    scheduler: str | None = None, *, workers: int = 2, processes: bool = True
) -> Iterator[Any]:
    """A ``distributed.Client``: to ``scheduler`` (an address such as ``tcp://host:8786``), or
    to a ``LocalCluster`` of ``workers`` on 127.0.0.1 (processes, or threads of this process
    with ``processes=False``) started here and closed after.

    Raises:
        MissingDependencyError: dask.distributed is not installed (``pip install 'jdsl[dask]'``).
        CompileError: ``scheduler`` is not an address, nothing listens there (found in
            :data:`PROBE_TIMEOUT_S`, not after the client's retries), what listens sends no
            dask handshake in :data:`HANDSHAKE_TIMEOUT_S`, or no scheduler answers there in
            :data:`CONNECT_TIMEOUT_S`.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise MissingDependencyError("dask[distributed]", "dask") from None
    if scheduler is not None:
        try:
            _probe(scheduler)
            client = Client(scheduler, timeout=f"{CONNECT_TIMEOUT_S}s")
        except (ValueError, OSError, TimeoutError, TypeError) as exc:  # TypeError: tls, no ssl
            raise CompileError(redact_addresses(
                f"cannot reach a dask scheduler at {scheduler!r} ({type(exc).__name__}: {exc}); "
                "start one there (`dask scheduler`), pass its tcp://host:port, or leave out "
                "--scheduler for a LocalCluster on this machine",
                [scheduler],
            )) from None  # fmt: skip
        with client:
            yield client
        return
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=processes, host="127.0.0.1",
            protocol="tcp://",
            dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0",
            # A task's error reaches the client typed (and the CLI prints it once): the
            # workers' "Compute Failed" dump of it on stderr would only repeat it.
            silence_logs=logging.CRITICAL,
        ) as cluster,
        Client(cluster) as client,
    ):  # fmt: skip
        yield client


def compile_on_dask(
    shards: Sequence[str | os.PathLike[str]],
    *,
    name: str,
    client: Any = None,
    scheduler: str | None = None,
    workers: int = 2,
    canonical: Mapping[str, str] | None = None,
    allow_broken_chain: bool = False,
    strict: bool = True,
    fan_in: int = 8,
    **options: Any,
) -> CompileResult:
    """:func:`~jdsl.compiler.compile_behavior` over trace files, the per-episode passes on Dask.

    Args:
        shards: JSONL trace files (each one map task), in the order the local engine reads
            them; on a real cluster, paths the workers can open.
        name: the behavior name.
        client: a ``distributed.Client`` to use; else one to ``scheduler``, else a
            ``LocalCluster`` of ``workers`` processes, started and closed here.
        canonical, allow_broken_chain: as :func:`~jdsl.compiler.compile_behavior`.
        strict: raise on a bad trace line, else skip it.
        fan_in: tables merged per reduce task.
        **options: the other :func:`~jdsl.compiler.compile_normalized` arguments
            (``task_family``, ``contracts``, ``effects``, ``model``, ``version``).

    Returns:
        The :class:`~jdsl.compiler.CompileResult`, package bytes equal to the local engine's.

    Raises:
        CompileError / TraceFormatError: as the local engine, raised from the worker.
        MissingDependencyError: dask.distributed is not installed.
    """
    check = not allow_broken_chain
    if client is None:
        with dask_client(scheduler, workers=workers) as own:
            return compile_on_dask(shards, name=name, client=own, canonical=canonical,
                                   allow_broken_chain=allow_broken_chain, strict=strict,
                                   fan_in=fan_in, **options)  # fmt: skip
    reduced = reduce_shards(client, shards, canonical, check, strict, fan_in)
    return compile_reduced(client, reduced, name=name, **options)


@dataclass(frozen=True)
class Reduced:
    """Trace shards mapped and reduced on a cluster.

    Attributes:
        stores: the futures of each shard's normalized episodes, kept on the workers that
            normalized them (verification's per-episode part runs there), in shard order.
        normalized: the normalized episodes gathered to the client, in shard order.
        facts: the merged fact table.
    """

    stores: Sequence[Any]
    normalized: NormStore
    facts: FactTable


def compile_reduced(client: Any, reduced: Reduced, *, name: str, **options: Any) -> CompileResult:
    """:func:`~jdsl.compiler.compile_normalized` of ``reduced``: its merged facts, and
    verification's per-episode part on the workers holding the shards (:func:`replay_shards`).

    Args:
        client: the ``distributed.Client`` that reduced the shards.
        reduced: from :func:`reduce_shards`.
        name: the behavior name.
        **options: the other :func:`~jdsl.compiler.compile_normalized` arguments.
    """
    replay = replay_shards(client, reduced.stores)
    return compile_normalized(
        reduced.normalized, name=name, facts=reduced.facts, replay=replay, **options
    )


def reduce_shards(
    client: Any,
    shards: Sequence[str | os.PathLike[str]],
    canonical: Mapping[str, str] | None = None,
    check_chain: bool = True,
    strict: bool = True,
    fan_in: int = 8,
    skipped: SkippedLines | None = None,
    left: list[str] | None = None,
) -> Reduced:
    """:func:`map_shard` over ``shards`` on the cluster, the tables tree-reduced there, the
    normalized episodes gathered to the client in shard order (their stores kept on the
    workers too). With ``strict=False``, the lines the workers skipped are added to
    ``skipped`` under each shard's name as given, as the local read counts them. Given
    ``left``, an episode a skipped line was an event of is left out on its worker and its id
    appended to ``left``, in shard order (``jdsl compile --skip-bad-lines``)."""
    mapped = client.map(
        map_shard, [str(Path(p).resolve()) for p in shards], canonical=dict(canonical or {}),
        check_chain=check_chain, strict=strict, torn_out=left is not None, pure=False,
    )  # fmt: skip
    merged = tree_reduce(client, client.map(_table, mapped, pure=False), fan_in=fan_in)
    stores = client.map(_episodes, mapped, pure=False)
    lines = client.map(_skipped, mapped, pure=False)
    torn = client.map(_left, mapped, pure=False)
    del mapped  # each (store, table, skipped, left) result is released once its parts are taken
    parts = client.gather(stores)
    if left is not None:
        left.extend(i for ids in client.gather(torn) for i in ids)
    for shard, part in zip(shards, client.gather(lines), strict=True):
        if skipped is not None and part.counts:  # one file a shard: the worker's resolved path
            [(count, first)] = zip(part.counts.values(), part.first.values(), strict=True)
            skipped.counts[str(shard)] = skipped.counts.get(str(shard), 0) + count
            skipped.first.setdefault(str(shard), first)
    return Reduced(stores, NormStore.concat(parts), merged.result())


def replay_shards(client: Any, stores: Sequence[Any]) -> ReplayMap:
    """Verification's per-episode part on the cluster: for a compiled behavior, one
    :func:`~jdsl.compiler.verify.replay_part` per shard, each on the worker holding the
    shard's normalized episodes (``stores``: futures of their
    :class:`~jdsl.compiler.store.NormStore` s, in shard order), the behavior broadcast to the
    workers once. The parts come back in shard order.

    Returns:
        A :data:`~jdsl.compiler.verify.ReplayMap` for :func:`~jdsl.compiler.verify.verify`.
    """

    def replay(compiled: CompiledBehavior, execute: bool) -> list[ReplayPart]:
        [shared] = client.scatter([compiled], broadcast=True, hash=False)
        parts = [
            client.submit(replay_part, shared, store, execute=execute, pure=False)
            for store in stores
        ]
        return list(client.gather(parts))

    return replay


def _table(mapped: Mapped) -> FactTable:
    return mapped[1]


def _episodes(mapped: Mapped) -> NormStore:
    return mapped[0]


def _skipped(mapped: Mapped) -> SkippedLines:
    return mapped[2]


def _left(mapped: Mapped) -> list[str]:
    return mapped[3]


def _probe(scheduler: str) -> None:
    """Check that a dask scheduler answers at a ``tcp://`` (or bare host:port) address.

    A plain TCP connect first (a refused connection fails at once, not after the client's
    retries), then dask's handshake under a deadline: ``distributed`` waits for a handshake
    without one, so a port where something else listens would hang the client for ever.
    ``tls://`` gets the TCP check only (its handshake needs the client's SSL context).

    Raises:
        OSError: nothing accepts a connection there within :data:`PROBE_TIMEOUT_S`, or what
            answers is not a dask scheduler.
        TimeoutError: something accepts connections but sends no dask handshake within
            :data:`HANDSHAKE_TIMEOUT_S`.
        ValueError: the address has no host and port.
    """
    import socket
    import threading

    from distributed.comm.addressing import get_address_host_port, parse_address

    scheme, _ = parse_address(scheduler)
    if scheme not in ("tcp", "tls"):
        return  # another transport (inproc, ucx, ws): the client checks it
    host, port = get_address_host_port(scheduler)
    socket.create_connection((host, port), timeout=PROBE_TIMEOUT_S).close()
    if scheme == "tls":
        return
    outcome: list[BaseException | None] = []

    def talk() -> None:
        try:
            asyncio.run(_handshake(scheduler))
            outcome.append(None)
        except BaseException as exc:  # reported on the caller's thread
            outcome.append(exc)

    # A thread of its own: the caller may be inside a running event loop (a notebook).
    thread = threading.Thread(target=talk, name="jdsl-dask-probe", daemon=True)
    thread.start()
    thread.join(HANDSHAKE_TIMEOUT_S)
    if not outcome:
        raise TimeoutError(
            f"something accepts connections there but sent no dask handshake in "
            f"{HANDSHAKE_TIMEOUT_S:g} s (not a dask scheduler?)"
        )
    problem = outcome[0]
    if problem is not None:
        raise OSError(f"not a dask scheduler ({type(problem).__name__}: {str(problem)[:200]})")


async def _handshake(address: str) -> None:
    from distributed.comm import connect

    comm = await asyncio.wait_for(connect(address, timeout=PROBE_TIMEOUT_S), HANDSHAKE_TIMEOUT_S)
    await comm.close()
