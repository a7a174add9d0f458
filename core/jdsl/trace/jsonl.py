"""Trace files: one canonical JSON event per line, appended and flushed as events happen.

Large payload values go to a blob store beside the file (``run.jsonl`` -> ``run.jsonl.blobs/``).
A run that crashes or is interrupted loses nothing already emitted: every line is written with
one unbuffered ``write`` (and, with ``fsync=True``, synced) before ``emit`` returns. The sink
keeps the file open between events; :meth:`JsonlTraceSink.close` (or ``with``) closes it, and
so does dropping the sink.
"""

from __future__ import annotations

import os
import weakref
from pathlib import Path
from typing import Any

from jdsl.trace.blobs import DEFAULT_BLOB_THRESHOLD, BlobStore, offload
from jdsl.trace.canonical import canonical_json, event_text
from jdsl.trace.events import (
    RUNTIME_ACTORS,
    SCHEMA_VERSION,
    Actor,
    EventSource,
    TraceEvent,
    digest,
    with_hash,
)
from jdsl.trace.reader import blob_dir_for, iter_events
from jdsl.trace.redact import Redactor
from jdsl.trace.sinks import BaseTraceSink, Parent, Recorder

__all__ = ["JsonlTraceSink"]


class JsonlTraceSink(BaseTraceSink):
    """Appends one deterministic JSON line per event to ``path``; thread-safe.

    Args:
        path: the trace file; parent directories are created. An existing file is appended to,
            and (with ``resume``) the chain continues after its last event of each episode.
        redactor: applied to every payload before it is stamped and written; default
            ``Redactor()``. Pass ``Redactor(enabled=False)`` to keep payloads verbatim.
        blob_threshold_bytes: payload values with more bytes of JSON go to ``blob_dir``;
            None keeps everything inline.
        blob_dir: the blob store directory; default ``<path>.blobs``.
        fsync: also ``os.fsync`` after each line (slower; survives power loss).
        resume: read an existing file to continue its sequences and hash chains.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        redactor: Redactor | None = None,
        blob_threshold_bytes: int | None = DEFAULT_BLOB_THRESHOLD,
        blob_dir: str | os.PathLike[str] | None = None,
        fsync: bool = False,
        resume: bool = True,
    ) -> None:
        self.path = Path(path)
        store = BlobStore(blob_dir if blob_dir is not None else blob_dir_for(self.path))
        super().__init__(
            redactor=Redactor() if redactor is None else redactor,
            blob_store=store if blob_threshold_bytes is not None else None,
            blob_threshold_bytes=blob_threshold_bytes or DEFAULT_BLOB_THRESHOLD,
        )
        self.fsync = fsync
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._needs_newline = False
        self._fd: int | None = None
        self._closer: Any = weakref.finalize(self, _noop)
        if resume and self.path.exists():
            self._resume()

    def append(self, event: TraceEvent) -> None:
        """Write one stamped event as a line, flushed before returning."""
        self._write(event.to_json() + "\n")

    def recorder(self, capture_id: str, episode_id: str) -> Recorder | None:
        """A :data:`~jdsl.trace.sinks.Recorder` writing each event's line as it comes.

        Each line is encoded once: the hash is taken over the canonical JSON of the event
        without ``event_hash``, which is then spliced in at its sorted place. None when a
        subclass changed ``prepare``, ``append`` or ``emit``.
        """
        if self._overrides(JsonlTraceSink, "prepare", "append", "emit"):
            return None
        chain = self._chainer.chain(capture_id, episode_id)
        fields: dict[str, Any] = {
            "capture_id": capture_id, "episode_id": episode_id, "payload": None,
            "schema_version": SCHEMA_VERSION, "source": _SOURCE, "state_after_ref": None,
            "state_before_ref": None,
        }  # fmt: skip
        clock, lock, write = self._clock, self._lock, self._write

        def record(
            kind: str, payload: dict[str, Any], parent: Parent = None, actor: Actor | None = None
        ) -> int:
            text, refs = self._payload_text(payload)
            with lock:
                sequence = next(chain.counter)
                line = event_text(
                    {
                        **fields,
                        "actor": actor or RUNTIME_ACTORS.get(kind, "system"),
                        "blob_refs": refs,
                        "event_id": chain.event_id(sequence),
                        "kind": kind,
                        "parent_event_id": chain.parent_id(parent),
                        "prev_event_hash": chain.tail,
                        "sequence": sequence,
                        "timestamp": clock.now(),
                    },
                    text,
                )
                event_hash = digest(line)
                try:
                    write(with_hash(line, event_hash) + "\n")
                except BaseException:
                    chain.restart(sequence)  # a line not written leaves no gap in the chain
                    raise
                chain.tail = event_hash
            return sequence

        return record

    def _payload_text(self, payload: dict[str, Any]) -> tuple[str, list[str]]:
        """The redacted payload's canonical JSON (encoded once) and its blob refs."""
        if self.redactor is not None:
            payload = self.redactor.redact(payload)
        text = canonical_json(payload)
        store, limit = self.blob_store, self.blob_threshold_bytes
        if store is None or len(text) * 4 <= limit or len(text.encode()) <= limit:
            return text, []
        payload, refs = offload(payload, store, limit)
        return canonical_json(payload), refs

    def close(self) -> None:
        """Close the file (a later event opens it again)."""
        with self._lock:
            fd, self._fd = self._fd, None
            self._closer.detach()
            if fd is not None:
                os.close(fd)

    def __enter__(self) -> JsonlTraceSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, line: str) -> None:
        """Append ``line`` with one ``write`` on a file opened in append mode; sync if asked."""
        data = line.encode("utf-8")
        with self._lock:
            if self._needs_newline:
                data = b"\n" + data
            fd = self._fd if self._fd is not None else self._open()
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            self._needs_newline = False
            if self.fsync:
                os.fsync(fd)

    def _open(self) -> int:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._fd = fd
        self._closer = weakref.finalize(self, os.close, fd)
        return fd

    def _resume(self) -> None:
        for event in iter_events(self.path, strict=False):
            self._chainer.observe(event)
        with self.path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            if handle.tell():
                handle.seek(-1, os.SEEK_END)
                self._needs_newline = handle.read(1) != b"\n"


_SOURCE = EventSource().__dict__  # the runtime's source, as JSON data


def _noop() -> None:
    """Nothing to close yet."""
