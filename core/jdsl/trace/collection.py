"""``Trace``: a list of events that knows its episodes, its blob store and how to save itself."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jdsl.errors import MissingDependencyError
from jdsl.trace.atomic import write_atomic
from jdsl.trace.blobs import BlobStore, hydrate
from jdsl.trace.chain import verify_chain
from jdsl.trace.episodes import Episode, segment_episodes
from jdsl.trace.events import TraceEvent
from jdsl.trace.reader import SkippedLines, blob_dir_for, iter_events

__all__ = ["COLUMNS", "Trace", "read_events"]

COLUMNS = (
    "capture_id", "episode_id", "sequence", "kind", "actor", "timestamp", "event_id",
    "parent_event_id", "node_id", "node_type", "label", "tool", "status", "key", "model_id",
    "input_tokens", "output_tokens", "error", "payload",
)  # fmt: skip
"""The columns of :meth:`Trace.to_pandas`, in order."""


class Trace(list[TraceEvent]):
    """A list of :class:`TraceEvent` (dicts are converted), with episode views and file I/O.

    Args:
        events: events or event dicts, in emission order.
        blob_store: where the events' blob refs can be loaded from (set by :meth:`load`).
    """

    def __init__(
        self,
        events: Iterable[TraceEvent | dict[str, Any]] = (),
        *,
        blob_store: BlobStore | None = None,
    ) -> None:
        super().__init__(
            e if isinstance(e, TraceEvent) else TraceEvent.from_dict(e) for e in events
        )
        self.blob_store = blob_store

    def __repr__(self) -> str:
        return f"Trace({len(self)} events, {len(self.episodes)} episodes)"

    @property
    def episodes(self) -> list[Episode]:
        """The episodes, in first-seen order (:func:`~jdsl.trace.segment_episodes`).

        A run recorded under an episode id an earlier run used is its own episode, with a
        derived id (``ep_local#2``). Their views load blob values from :attr:`blob_store` when
        it is set.
        """
        return segment_episodes(self, blob_store=self.blob_store)

    def episode(self, episode_id: str) -> Episode:
        """The episode with id ``episode_id``; raises ``KeyError`` naming the ids there are."""
        for episode in self.episodes:
            if episode.episode_id == episode_id:
                return episode
        ids = ", ".join(repr(e.episode_id) for e in self.episodes) or "none"
        raise KeyError(f"no episode {episode_id!r} in this trace; episodes: {ids}")

    def verify(self) -> list[str]:
        """The problems in the hash chains (:func:`~jdsl.trace.verify_chain`); empty = intact."""
        return verify_chain(self)

    def hydrated(self) -> Trace:
        """A copy with every blob marker replaced by the stored value (needs ``blob_store``)."""
        if self.blob_store is None:
            if any(e.blob_refs for e in self):
                raise ValueError("this trace has blob refs but no blob_store; load it from a file")
            return Trace(self)
        store = self.blob_store
        return Trace((hydrate(e, store) for e in self), blob_store=store)

    def to_records(self) -> list[dict[str, Any]]:
        """One flat dict per event with the :data:`COLUMNS` keys."""
        return [_record(event) for event in self]

    def to_pandas(self) -> Any:
        """A ``pandas.DataFrame``, one row per event, columns :data:`COLUMNS`.

        Raises:
            MissingDependencyError: pandas is not installed (``pip install 'jdsl[notebook]'``).
        """
        try:
            import pandas as pd
        except ImportError:
            raise MissingDependencyError("pandas", "notebook") from None
        return pd.DataFrame(self.to_records(), columns=list(COLUMNS))

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the events as JSONL, atomically (temp file then rename); returns the path.

        Blobs the events refer to are copied into ``<path>.blobs`` from :attr:`blob_store`.
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._copy_blobs(BlobStore(blob_dir_for(path)))
        return write_atomic(path, (f"{event.to_json()}\n".encode() for event in self))

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        resolve_blobs: bool = False,
        strict: bool = True,
        skipped: SkippedLines | None = None,
    ) -> Trace:
        """Read a JSONL trace file (see :func:`read_events`).

        :attr:`blob_store` is ``<path>.blobs``: a value moved there, read when the directory was
        not copied along with the file, raises :class:`~jdsl.trace.MissingBlobError` naming the fix.
        """
        store = BlobStore(blob_dir_for(path))
        trace = cls(iter_events(path, strict=strict, skipped=skipped), blob_store=store)
        return trace.hydrated() if resolve_blobs else trace

    def _copy_blobs(self, target: BlobStore) -> None:
        source = self.blob_store
        if source is None or source.root.resolve() == target.root.resolve():
            return
        for ref in sorted({ref for event in self for ref in event.blob_refs}):
            if not target.has(ref):
                target.put(source.get(ref))


def read_events(
    path: str | os.PathLike[str],
    *,
    resolve_blobs: bool = False,
    strict: bool = True,
    skipped: SkippedLines | None = None,
) -> Trace:
    """Read a JSONL trace file into a :class:`Trace`.

    Args:
        path: the file a :class:`~jdsl.trace.JsonlTraceSink` wrote.
        resolve_blobs: replace blob markers by the full values from ``<path>.blobs`` (the
            hydrated events no longer verify; check the chain first).
        strict: raise :class:`~jdsl.trace.TraceFormatError` on a bad line, else skip it.
        skipped: with ``strict=False``, counts the lines skipped
            (:class:`~jdsl.trace.reader.SkippedLines`).
    """
    return Trace.load(path, resolve_blobs=resolve_blobs, strict=strict, skipped=skipped)


def _record(event: TraceEvent) -> dict[str, Any]:
    p = event.payload
    tool = p.get("tool")
    if isinstance(tool, dict):
        tool = tool.get("logical_id") or tool.get("host_name")
    usage: dict[str, Any] = p["usage"] if isinstance(p.get("usage"), dict) else {}
    return {
        "capture_id": event.capture_id,
        "episode_id": event.episode_id,
        "sequence": event.sequence,
        "kind": event.kind,
        "actor": event.actor,
        "timestamp": event.timestamp,
        "event_id": event.event_id,
        "parent_event_id": event.parent_event_id,
        "node_id": p.get("node_id") or p.get("writer") or p.get("reader"),
        "node_type": p.get("type"),
        "label": p.get("label") or p.get("writer_label"),
        "tool": tool,
        "status": p.get("status"),
        "key": p.get("key") or p.get("store") or p.get("path"),
        "model_id": p.get("model_id"),
        "input_tokens": usage.get("input_tokens"),
        "output_tokens": usage.get("output_tokens"),
        "error": p.get("error") or p.get("error_message"),
        "payload": p,
    }
