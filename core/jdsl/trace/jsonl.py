"""Trace files: one canonical JSON event per line, appended and flushed as events happen.

Large payload values go to a blob store beside the file (``run.jsonl`` -> ``run.jsonl.blobs/``).
A run that crashes or is interrupted loses nothing already emitted: every line is flushed (and,
with ``fsync=True``, synced) before ``emit`` returns.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jdsl.errors import JdslError
from jdsl.trace.blobs import DEFAULT_BLOB_THRESHOLD, BlobStore
from jdsl.trace.events import TraceEvent
from jdsl.trace.redact import Redactor
from jdsl.trace.sinks import BaseTraceSink

__all__ = ["JsonlTraceSink", "TraceFormatError", "blob_dir_for", "iter_events"]


class TraceFormatError(JdslError, ValueError):
    """A trace file line that is not a JSON trace event.

    Attributes:
        path: the file.
        line: the 1-based line number.
    """

    def __init__(self, message: str, *, path: str, line: int) -> None:
        self.path = path
        self.line = line
        super().__init__(f"{path}, line {line}: {message}")


def blob_dir_for(path: str | os.PathLike[str]) -> Path:
    """The blob directory beside a trace file: ``<file>.blobs``."""
    path = Path(path)
    return path.with_name(path.name + ".blobs")


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
        if resume and self.path.exists():
            self._resume()

    def append(self, event: TraceEvent) -> None:
        """Write one stamped event as a line, flushed before returning."""
        line = event.to_json() + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            if self._needs_newline:
                handle.write("\n")
                self._needs_newline = False
            handle.write(line)
            handle.flush()
            if self.fsync:
                os.fsync(handle.fileno())

    def _resume(self) -> None:
        for event in iter_events(self.path, strict=False):
            self._chainer.observe(event)
        with self.path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            if handle.tell():
                handle.seek(-1, os.SEEK_END)
                self._needs_newline = handle.read(1) != b"\n"


def iter_events(path: str | os.PathLike[str], *, strict: bool = True) -> Iterator[TraceEvent]:
    """Yield the events of a JSONL trace file in file order; blank lines are skipped.

    Args:
        path: the trace file.
        strict: raise :class:`TraceFormatError` on a line that is not an event; with
            ``strict=False`` such lines (e.g. one torn by a crash mid-write) are skipped.
    """
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            event = _parse_line(line, str(path), number, strict)
            if event is not None:
                yield event


def _parse_line(line: str, path: str, number: int, strict: bool) -> TraceEvent | None:
    try:
        data: Any = json.loads(line)
        if not isinstance(data, dict) or "kind" not in data:
            raise ValueError("not a JSON object with a 'kind'")
        return TraceEvent.from_dict(data)
    except ValueError as exc:  # json and pydantic errors are ValueErrors
        if not strict:
            return None
        raise TraceFormatError(
            f"not a trace event ({exc}); each line must be one TraceEvent JSON object, "
            "or read with strict=False to skip it",
            path=path,
            line=number,
        ) from exc
