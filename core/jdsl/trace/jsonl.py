"""Trace files: one canonical JSON event per line, appended in buffered writes.

Large payload values go to a blob store beside the file (``run.jsonl`` -> ``run.jsonl.blobs/``).
Durability (:mod:`jdsl.trace.linefile`): lines are buffered and written at the end of every
episode (the runtime ends every run with ``episode.finished``, also on an exception or a
KeyboardInterrupt), every ``flush_events`` events, at the latest ``flush_interval_s`` (0.1 s)
after an event, on :meth:`JsonlTraceSink.flush` / :meth:`~JsonlTraceSink.close` (or ``with``),
when the sink is dropped and at interpreter exit. So a run that raises or is interrupted loses
nothing; only a hard kill (SIGKILL, power loss) can lose the last 0.1 s of events.
``flush_interval_s=0`` writes every event before ``emit`` returns (add ``fsync=True`` to
survive power loss).

The runtime's events (:meth:`JsonlTraceSink.recorder`) are buffered as their parts, numbered
and timed as they come; their lines are built and hashed into the chain when they are written,
so a run pays for encoding and hashing in one pass at its end. The bytes are the same.
"""

from __future__ import annotations

import os
import sys
import time
import weakref
from collections.abc import Callable
from hashlib import sha256
from pathlib import Path
from typing import Any

from jdsl.errors import JdslError
from jdsl.trace.blobs import DEFAULT_BLOB_THRESHOLD, BlobStore, offload
from jdsl.trace.canonical import event_json, event_text
from jdsl.trace.events import (
    ACTORS,
    RUNTIME_ACTORS,
    SCHEMA_VERSION,
    Actor,
    EpisodeChain,
    EventSource,
    Timestamps,
    TraceEvent,
    actor_error,
    digest,
    with_hash,
)
from jdsl.trace.linefile import LineFile
from jdsl.trace.reader import blob_dir_for, iter_events
from jdsl.trace.redact import Redactor
from jdsl.trace.screen import RedactionScreen
from jdsl.trace.shared import Filled, JsonText, thaw
from jdsl.trace.sinks import BaseTraceSink, Parent, Recorder

__all__ = ["JsonlTraceSink", "TracePathError"]


class TracePathError(JdslError, OSError):
    """A trace file path a :class:`JsonlTraceSink` cannot write: a directory, or a path under
    a file. Raised when the sink is made, before any run. Subclasses ``OSError`` too.

    Attributes:
        path: the path given.
    """

    def __init__(self, message: str, *, path: str) -> None:
        self.path = path
        super().__init__(message)
        self.filename = path

    def __str__(self) -> str:  # OSError would print "[Errno None] None: path"
        return str(self.args[0])

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (str(self), self.path))


def _rebuild(message: str, path: str) -> TracePathError:
    return TracePathError(message, path=path)


def _writable_path(path: Path) -> None:
    """Create ``path``'s missing parent directories.

    Raises:
        TracePathError: ``path`` is a directory, or a parent on the way is a file.
    """
    if path.is_dir():
        raise TracePathError(
            f"the trace path {path} is a directory; pass a file path such as {path / 'runs.jsonl'}",
            path=str(path),
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next(p for p in [path.parent, *path.parent.parents] if p.exists())
        raise TracePathError(
            f"the trace path {path} is under {blocker}, which is a file, not a directory; pass "
            "a path in a directory",
            path=str(path),
        ) from None


class JsonlTraceSink(BaseTraceSink):
    """Appends one deterministic JSON line per event to ``path``; thread-safe.

    Args:
        path: the trace file; parent directories are created (a directory, or a path under a
            file, is a :class:`TracePathError`). An existing file is appended to,
            and (with ``resume``) the chain continues after its last event of each episode.
        redactor: applied to every payload before it is stamped and written; default
            ``Redactor()``. Pass ``Redactor(enabled=False)`` to keep payloads verbatim.
        blob_threshold_bytes: payload values with more bytes of JSON go to ``blob_dir``;
            None keeps everything inline.
        blob_dir: the blob store directory; default ``<path>.blobs``.
        fsync: also ``os.fsync`` after each write (slower; survives power loss).
        resume: read an existing file to continue its sequences and hash chains (a regular
            file only: a device or pipe such as ``/dev/null`` is written to, never read).
        flush_interval_s: the longest an event waits in memory before it is written; 0 writes
            each event at once (per-event durability, several times slower).
        flush_events: write when this many events are buffered (200: a batch of ~120 kB, which
            the allocator reuses; a 1,000-event batch was a fresh mapping per write and cost
            a quarter more time per event in page faults).
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
        flush_interval_s: float = 0.1,
        flush_events: int = 200,
    ) -> None:
        self.path = Path(path)
        _writable_path(self.path)
        store = BlobStore(blob_dir if blob_dir is not None else blob_dir_for(self.path))
        super().__init__(
            redactor=Redactor() if redactor is None else redactor,
            blob_store=store if blob_threshold_bytes is not None else None,
            blob_threshold_bytes=blob_threshold_bytes or DEFAULT_BLOB_THRESHOLD,
        )
        self._screen = RedactionScreen.of(self.redactor)
        self._file = LineFile(
            self.path, self._lock, interval_s=flush_interval_s, max_lines=flush_events,
            fsync=fsync, render=_render,
        )  # fmt: skip
        self._closer = weakref.finalize(self, self._file.close_finally)
        # Whether this class's own append keeps events, and whether its recorder keeps their
        # parts (a subclass may replace them); the class of an object does not change, so one
        # check serves every event and run.
        self._own_append = not self._overrides(JsonlTraceSink, "append")
        self._records = not self._overrides(JsonlTraceSink, "prepare", "append", "emit")
        self._kinds: dict[str, str] = {}  # _line_builder's kind texts, shared by the episodes
        if resume and self.path.is_file():  # not a device or pipe (/dev/full reads for ever)
            self._resume()

    @property
    def fsync(self) -> bool:
        """Whether every write is synced."""
        return self._file.fsync

    def append(self, event: TraceEvent) -> None:
        """Buffer one stamped event's line (written as :mod:`~jdsl.trace.linefile` says)."""
        with self._lock:
            self._file.lines.append(event.to_json() + "\n")
            self._written(event.kind)

    def _keeper(self, event: TraceEvent) -> tuple[list[Any], Any] | None:
        if not self._own_append:
            return None
        return self._file.lines, event.to_json() + "\n"

    def emit(self, event: TraceEvent) -> TraceEvent:
        """Prepare, stamp and buffer ``event``; written at episode end or by the policy."""
        with self._lock:
            _render(self._file.lines)  # recorded events first: they come before in the chain
            stamped = super().emit(event)
            if self._own_append:  # kept by _keeper
                self._written(stamped.kind)
        return stamped

    def flush(self) -> None:
        """Write every buffered event now."""
        self._file.flush()

    def _written(self, kind: str) -> None:
        """The durability policy after an event was buffered."""
        if kind == _EPISODE_FINISHED:
            self._file.flush()
        else:
            self._file.added()

    def recorder(self, capture_id: str, episode_id: str) -> Recorder | None:
        """A :data:`~jdsl.trace.sinks.Recorder` keeping each event as its parts.

        An event is numbered and kept at once, with its redacted payload text and the time
        (as the list sink keeps events); its line is built and hashed when the buffer is
        written (:meth:`flush`, the end of the episode, the flush policy, and before
        :meth:`emit` stamps an event), by :func:`_line_builder`. None when a subclass changed
        ``prepare``, ``append`` or ``emit``.
        """
        if not self._records:
            return None
        chain = self._chainer.chain(capture_id, episode_id)
        build = _line_builder(chain, self._clock, self._kinds)
        lock, file, now = self._lock, self._file, time.time_ns
        payload_text, screen = self._payload_text, self._screen
        defaults, finished = RUNTIME_ACTORS, _EPISODE_FINISHED
        # A shared payload this short is under the blob threshold (4 bytes a character at
        # most): written as it is when the screen passed it (its answer kept on the payload,
        # ``JsonText.screened``) and the redactor follows no value; else as any payload.
        small = self.blob_threshold_bytes // 4 if self.blob_store is not None else sys.maxsize
        redactor = self.redactor
        fingerprint = screen.fingerprint if screen is not None else None
        # Lines after which the policy may act (LineFile.added): the first one buffered (the
        # timer), a full batch, or every line when each is written at once.
        eager, batch = file.interval_s <= 0, file.max_lines

        def record(
            kind: str, payload: dict[str, Any], parent: Parent = None, actor: Actor | None = None
        ) -> int:
            if not actor:
                actor = defaults.get(kind, "system")
            elif actor not in ACTORS:
                raise actor_error(actor)
            if (
                type(payload) is JsonText
                and len(payload.text) <= small  # type: ignore[union-attr]
                and (
                    screen is None
                    or payload.screened.get(fingerprint) is False  # type: ignore[union-attr]
                    and redactor.followed_pattern is None  # type: ignore[union-attr]
                )
            ):
                text, refs = payload.text, None  # type: ignore[union-attr]
            else:
                text, refs = payload_text(payload)
            with lock:
                ns = now()
                sequence = chain.next
                lines = file.lines
                # Number and keep with no call or jump between: a Ctrl-C cannot split them.
                chain.next = sequence + 1
                lines.append((build, sequence, kind, actor, parent, text, refs, ns))
                if kind == finished:
                    file.flush()
                elif eager or len(lines) == 1 or len(lines) >= batch:
                    file.added()
            return sequence

        return record

    def _payload_text(self, payload: dict[str, Any] | JsonText | Filled) -> tuple[str, list[str]]:
        """The redacted payload's canonical JSON (encoded once) and its blob refs.

        The text is screened first (:class:`~jdsl.trace.screen.RedactionScreen`): a payload
        with no sensitive key and nothing secret-looking is written as encoded, unwalked. A
        :class:`~jdsl.trace.canonical.JsonText` payload is written as it is, screened once; a
        ``Filled`` one encodes and screens only its varying value.
        """
        screen = self._screen
        kind = type(payload)
        if kind is JsonText:
            text = payload.text  # type: ignore[union-attr]
            flagged = screen is not None and screen.may_redact_text(payload)  # type: ignore[arg-type]
        elif kind is Filled:
            text, value_text = payload.template.text(payload.value)  # type: ignore[union-attr]
            flagged = screen is not None and (
                screen.may_redact_text(payload.template.stand_in)  # type: ignore[union-attr]
                or screen.may_redact(value_text)
            )
        else:
            text = event_json(payload)
            flagged = screen is not None and screen.may_redact(text)
        if flagged:
            payload = self.redactor.redact(thaw(payload))  # type: ignore[union-attr]
            text = event_json(payload)
        store, limit = self.blob_store, self.blob_threshold_bytes
        if store is None or len(text) * 4 <= limit or len(text.encode()) <= limit:
            return text, []
        payload, refs = offload(thaw(payload), store, limit)
        return event_json(payload), refs

    def close(self) -> None:
        """Write what is buffered and close the file (a later event opens it again)."""
        self._file.close()

    def __enter__(self) -> JsonlTraceSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _resume(self) -> None:
        for event in iter_events(self.path, strict=False):
            self._chainer.observe(event)
        with self.path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            if handle.tell():
                handle.seek(-1, os.SEEK_END)
                self._file.needs_newline = handle.read(1) != b"\n"


_SOURCE = EventSource().__dict__  # the runtime's source, as JSON data
_SOURCE_TEXT = event_json(_SOURCE)
_EPISODE_FINISHED = "episode.finished"
_FIXED = f'"schema_version":"{SCHEMA_VERSION}","sequence":'
_SOURCE_FIELDS = (
    f',"source":{_SOURCE_TEXT},"state_after_ref":null,"state_before_ref":null,"timestamp":"'
)
_KINDS_KEPT = 1024
_LOW_HEX = tuple(f"{low:02x}" for low in range(256))
"""The last two hex digits of an event id, by ``sequence & 255`` (formatting an int with a
spec costs a few times a tuple lookup; the builder formats the rest once per 256 events)."""


Build = Callable[[list[Any], int], int]
"""``build(lines, index) -> index``: builds the lines of the run of one episode's kept events
that starts at ``index``, in place; returns the index after it (:func:`_line_builder`)."""


def _render(lines: list[Any]) -> None:
    """Replace the events recorders kept as parts in ``lines`` by their lines, in order (each
    episode's events were kept in sequence order, so each chain links in order)."""
    index, end = 0, len(lines)
    while index < end:
        item = lines[index]
        index = item[0](lines, index) if type(item) is tuple else index + 1


def _line_builder(chain: EpisodeChain, clock: Timestamps, kinds: dict[str, str]) -> Build:
    """What builds and hashes the lines of one episode's kept events (a :data:`Build`).

    Each line is encoded once, from a template of the episode's fixed fields: the hash is
    taken over the canonical JSON of the event without ``event_hash``, which is then put at its
    sorted place (after ``episode_id``). A field that would need escaping takes the general
    encoder (:func:`~jdsl.trace.canonical.event_text`) instead; both write the same bytes.
    ``kinds`` keeps each kind's text between the event id and the parent id ("" for a kind
    that needs escaping) for the sink's episodes (the first :data:`_KINDS_KEPT` kinds).
    """
    capture_id, episode_id, prefix = chain.capture_id, chain.episode_id, chain.prefix
    fields: dict[str, Any] = {
        "capture_id": capture_id, "episode_id": episode_id, "payload": None,
        "schema_version": SCHEMA_VERSION, "source": _SOURCE, "state_after_ref": None,
        "state_before_ref": None,
    }  # fmt: skip
    templated = _plain(capture_id + episode_id + prefix)
    ids = f',"capture_id":"{capture_id}","episode_id":"{episode_id}"'
    fixed, source, low_hex, stamp_of = _FIXED, _SOURCE_FIELDS, _LOW_HEX, clock.format
    # Each actor's line start (no blob refs), and a hash fed with it that every event copies
    # (the hash of head + rest is the hash fed head, then rest).
    heads: dict[str, tuple[str, Any]] = {}

    def build(lines: list[Any], index: int) -> int:
        last_ms, stamp = -1, ""
        block, block_id = -1, ""  # sequence >> 8, and its event ids' text but the last two digits
        tail = chain.tail
        tail_text = "null" if tail is None else f'"{tail}"'
        end = len(lines)
        while index < end:
            item = lines[index]
            if type(item) is not tuple or item[0] is not build:
                break
            _, sequence, kind, actor, parent, text, refs, ns = item
            if ns // 1_000_000 != last_ms:
                last_ms, stamp = ns // 1_000_000, stamp_of(ns)
            if sequence >> 8 != block:
                block = sequence >> 8
                block_id = f"{prefix}{block:010x}"
            if parent is None:
                parent_text = "null"
            elif type(parent) is int:
                parent_block = block_id if parent >> 8 == block else f"{prefix}{parent >> 8:010x}"
                parent_text = f'"{parent_block}{low_hex[parent & 255]}"'
            elif isinstance(parent, str) and _plain(parent):
                parent_text = f'"{parent}"'
            else:
                parent_text = ""
            kind_text = kinds.get(kind)
            if kind_text is None:
                kind_text = f'","kind":"{kind}",' if _plain(kind) else ""
                if len(kinds) < _KINDS_KEPT:
                    kinds[kind] = kind_text
            if templated and parent_text and kind_text:
                rest = (
                    f',"event_id":"{block_id}{low_hex[sequence & 255]}{kind_text}'
                    f'"parent_event_id":{parent_text},"payload":{text},'
                    f'"prev_event_hash":{tail_text},{fixed}{sequence}{source}{stamp}"}}'
                )
                if refs:
                    head = f'{{"actor":"{actor}","blob_refs":{event_json(refs)}{ids}'
                    hasher = sha256((head + rest).encode())
                else:
                    head, fed = heads.get(actor) or _head(heads, actor, ids)
                    hasher = fed.copy()
                    hasher.update(rest.encode())
                event_hash = "sha256:" + hasher.hexdigest()
                tail_text = f'"{event_hash}"'
                line = f'{head},"event_hash":{tail_text}{rest}\n'
            else:
                fields.update(
                    actor=actor, blob_refs=refs or [], event_id=chain.event_id(sequence),
                    kind=kind, parent_event_id=chain.parent_id(parent), prev_event_hash=tail,
                    sequence=sequence, timestamp=stamp,
                )  # fmt: skip
                unhashed = event_text(fields, text)
                event_hash = digest(unhashed)
                tail_text = f'"{event_hash}"'
                line = with_hash(unhashed, event_hash) + "\n"
            # Link and keep with no call or jump between: an interruption cannot split them.
            chain.tail = tail = event_hash
            lines[index] = line
            index += 1
        return index

    return build


def _head(heads: dict[str, tuple[str, Any]], actor: str, ids: str) -> tuple[str, Any]:
    """An event line's start for ``actor`` with no blob refs, and a hash fed with it."""
    head = f'{{"actor":"{actor}","blob_refs":[]{ids}'
    heads[actor] = found = (head, sha256(head.encode()))
    return found


def _plain(text: str) -> bool:
    """Whether ``text`` goes into JSON as it is (nothing to escape, as orjson writes it)."""
    return text.isprintable() and '"' not in text and "\\" not in text
