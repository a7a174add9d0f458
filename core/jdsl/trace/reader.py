"""Reading trace files: JSONL lines -> :class:`TraceEvent` s, and episodes one at a time.

Lines are decoded with orjson (``json`` for what orjson refuses: ``NaN``, ``Infinity``); an
event whose envelope fields already have the right types is built without a pydantic
validation pass (its payload is JSON data, used as decoded), any other line is validated as
:meth:`TraceEvent.from_dict` does, so a bad line raises the same :class:`TraceFormatError`.
The file is read as bytes: a line torn inside a UTF-8 character, a line nested too deep to
decode, and a line that is no event are all one typed error (or, with ``strict=False``, a
skipped line).

:func:`iter_episodes` streams a file's episodes in bounded memory: a first pass notes on which
line each episode ends, the second builds each episode and hands it over at that line, so only
the episodes still open (one, for runs recorded one after another) are held.

A :class:`SkippedLines` given to a ``strict=False`` read counts the lines it skipped, per file,
and keeps the first one's number and what was wrong with it (``jdsl ... --skip-bad-lines``
prints that).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from jdsl.errors import JdslError
from jdsl.trace.blobs import BlobStore
from jdsl.trace.canonical import long_number
from jdsl.trace.episodes import Episode, EpisodeSegmenter, part_id
from jdsl.trace.events import RUNTIME_SOURCE, EventSource, TraceEvent

__all__ = [
    "SkippedLines",
    "TraceFormatError",
    "TraceNotFoundError",
    "blob_dir_for",
    "iter_episodes",
    "iter_events",
]


class TraceFormatError(JdslError, ValueError):
    """A trace file line that is not a JSON trace event.

    Attributes:
        path: the file.
        line: the 1-based line number.
    """

    def __init__(self, message: str, *, path: str, line: int) -> None:
        self.path = path
        self.line = line
        self.detail = message
        super().__init__(f"{path}, line {line}: {message}")

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle with the keyword fields (the error crosses to a Dask client intact)."""
        return (_rebuild, (self.detail, self.path, self.line))


def _rebuild(message: str, path: str, line: int) -> TraceFormatError:
    return TraceFormatError(message, path=path, line=line)


class TraceNotFoundError(JdslError, FileNotFoundError):
    """A trace path that does not exist.

    Subclasses ``FileNotFoundError`` too, so ``except FileNotFoundError`` keeps working.

    Attributes:
        path: the path that was given.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(
            f"no trace file at {path}: pass the path of a JSONL trace (one a JsonlTraceSink or "
            "`jdsl run --trace FILE` wrote, or `jdsl import` converted); check the name and "
            "the current directory"
        )
        self.filename = path

    def __str__(self) -> str:  # OSError would print "[Errno None] None: path"
        return str(self.args[0])

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle with the path (the error crosses to a Dask client intact)."""
        return (TraceNotFoundError, (self.path,))


@dataclass
class SkippedLines:
    """The lines a ``strict=False`` read skipped: per file, how many and the first one.

    Pass one as ``skipped=`` to :func:`iter_events`, :func:`iter_episodes` or
    :func:`~jdsl.trace.read_events`; read :meth:`notes` after (also after a failure).

    Attributes:
        counts: file -> the number of lines skipped.
        first: file -> ``(line number, what was wrong)`` of the first skipped line.
    """

    counts: dict[str, int] = field(default_factory=dict)
    first: dict[str, tuple[int, str]] = field(default_factory=dict)

    def add(self, path: str, line: int, reason: str) -> None:
        """Count a skipped ``line`` of ``path``; the first one keeps its ``reason``."""
        self.counts[path] = self.counts.get(path, 0) + 1
        self.first.setdefault(path, (line, reason))

    def notes(self) -> list[str]:
        """One sentence per file with skipped lines: ``skipped 2 lines of t.jsonl that are
        not trace events (first: line 7: not a trace event (...))``."""
        notes = []
        for path, count in self.counts.items():
            line, reason = self.first[path]
            what = "line of {} that is" if count == 1 else "lines of {} that are"
            first = "" if count == 1 else "first: "
            notes.append(f"skipped {count} {what.format(path)} not a trace event "
                         f"({first}line {line}: {reason})")  # fmt: skip
        return notes


def _stat(path: Path) -> os.stat_result:
    """``path.stat()``.

    Raises:
        TraceNotFoundError: nothing is at ``path``.
    """
    try:
        return path.stat()
    except FileNotFoundError:
        raise TraceNotFoundError(str(path)) from None


def blob_dir_for(path: str | os.PathLike[str]) -> Path:
    """The blob directory beside a trace file: ``<file>.blobs``."""
    path = Path(path)
    return path.with_name(path.name + ".blobs")


def iter_events(
    path: str | os.PathLike[str], *, strict: bool = True, skipped: SkippedLines | None = None
) -> Iterator[TraceEvent]:
    """Yield the events of a JSONL trace file in file order; blank lines are skipped.

    Args:
        path: the trace file.
        strict: raise :class:`TraceFormatError` on a line that is not an event (not JSON, not
            UTF-8, nested too deep, or without a ``kind``); with ``strict=False`` such lines
            (e.g. one torn by a crash mid-write) are skipped.
        skipped: with ``strict=False``, counts the lines skipped (see :class:`SkippedLines`).

    Raises:
        TraceFormatError: a bad line (``strict=True``); a directory or a device (``line`` 0).
        TraceNotFoundError: ``path`` does not exist (a ``FileNotFoundError``).
    """
    mode = _stat(Path(path)).st_mode
    _refuse_directory(Path(path), mode)
    if _is_device(mode):  # /dev/zero has no end and no line break
        raise TraceFormatError(
            "a device, not a trace file: pass a JSONL file (or a pipe)", path=str(path), line=0
        )
    for _, event in _numbered_events(Path(path), strict, None, skipped=skipped):
        yield event


def iter_episodes(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    strict: bool = True,
    skipped: SkippedLines | None = None,
) -> Iterator[Episode]:
    """Yield the episodes of one or more trace files, one at a time, in bounded memory.

    For each file, the episodes are those of ``read_events(path).episodes`` (same ids, events,
    order and ``chain_start``), each with the file's blob store ``<file>.blobs`` (a value moved
    there, read when the directory was not copied with the file, raises ``MissingBlobError``).
    An episode is yielded at the line of its last event, so memory holds the episodes still
    open, not the file. The file is read twice (the first pass notes where episodes end); a
    file that grows meanwhile is read up to its size at the first pass.

    Args:
        paths: a trace file or several, read in the order given.
        strict: as :func:`iter_events`.
        skipped: as :func:`iter_events` (each skipped line counted once, though read twice).

    Raises:
        TraceFormatError: a bad line (``strict=True``); a path that is a pipe or a device
            (``line`` 0; two passes need a regular file).
        TraceNotFoundError: a path that does not exist (a ``FileNotFoundError``).
    """
    for path in [paths] if isinstance(paths, str | os.PathLike) else paths:
        yield from _file_episodes(Path(path), strict, skipped)


def _file_episodes(path: Path, strict: bool, skipped: SkippedLines | None) -> Iterator[Episode]:
    mode = _stat(path).st_mode
    _refuse_directory(path, mode)
    if not stat.S_ISREG(mode):
        what = "a pipe" if stat.S_ISFIFO(mode) else "a device" if _is_device(mode) else "a socket"
        raise TraceFormatError(
            f"{what}, not a regular file: episodes are read in two passes over a file (save "
            "the trace to a file first)",
            path=str(path), line=0,
        )  # fmt: skip
    size = path.stat().st_size
    ends, taken = _episode_ends(path, strict, size)
    # a value in a blob dir not copied along with the file: MissingBlobError when it is read
    store = BlobStore(blob_dir_for(path))
    segmenter = EpisodeSegmenter()
    open_parts: dict[int, Episode] = {}
    handed = 0
    for number, event in _numbered_events(path, strict, size, skipped=skipped):
        index, part, start = segmenter.place(event)
        if start is not None:
            open_parts[index] = Episode(
                part_id(event.episode_id, part, taken), blob_store=store, chain_start=start
            )
        open_parts[index].events.append(event)
        while handed in open_parts and ends[handed] <= number:
            yield open_parts.pop(handed)
            handed += 1


def _refuse_directory(path: Path, mode: int) -> None:
    """Raise :class:`TraceFormatError` (line 0) when ``mode`` is a directory's."""
    if stat.S_ISDIR(mode):
        raise TraceFormatError(
            f"a directory, not a trace file: pass the JSONL trace files in it ({path}/*.jsonl)",
            path=str(path), line=0,
        )  # fmt: skip


def _is_device(mode: int) -> bool:
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode)


def _episode_ends(path: Path, strict: bool, size: int) -> tuple[list[int], set[str]]:
    """The line number each episode ends on (episodes in first-seen order), and the ids used."""
    segmenter = EpisodeSegmenter()
    ends: list[int] = []
    taken: set[str] = set()
    for number, event in _numbered_events(path, strict, size, exact=False):
        taken.add(event.episode_id)
        index = segmenter.place(event)[0]
        if index == len(ends):
            ends.append(number)
        ends[index] = number
    return ends, taken


def _numbered_events(
    path: Path,
    strict: bool,
    size: int | None,
    *,
    exact: bool = True,
    skipped: SkippedLines | None = None,
) -> Iterator[tuple[int, TraceEvent]]:
    """``(line number, event)`` for each event line, reading at most ``size`` bytes
    (``exact``: as for :func:`decode_json`; the first pass, which only places events in
    episodes, does without); a line skipped (``strict=False``) is counted in ``skipped``."""
    where = str(path)
    with path.open("rb") as handle:
        left = size
        for number, line in enumerate(handle, start=1):
            if left is not None:
                if left <= 0:
                    return
                line, left = line[:left], left - len(line)
            if line.strip():
                event = _parse_line(line, where, number, strict, exact, skipped)
                if event is not None:
                    yield number, event


def _parse_line(
    line: bytes,
    path: str,
    number: int,
    strict: bool,
    exact: bool = True,
    skipped: SkippedLines | None = None,
) -> TraceEvent | None:
    try:
        data = decode_json(line, exact=exact)
        if not exact and type(data) is dict and type(data.get("sequence")) is float:
            data = decode_json(line)  # a long sequence: as the exact pass will decode it
        if not isinstance(data, dict) or "kind" not in data:
            raise ValueError("not a JSON object with a 'kind'")
        return _fast_event(data) or TraceEvent.from_dict(data)
    except ValueError as exc:  # json, orjson, UTF-8 and pydantic errors are ValueErrors
        what, fix = _problem(line, exc)
        if not strict:
            if skipped is not None:
                skipped.add(path, number, what if len(what) <= 120 else what[:119] + "…")
            return None
        raise TraceFormatError(f"{what}; {fix}", path=path, line=number) from None


def _problem(line: bytes, exc: ValueError) -> tuple[str, str]:
    """What is wrong with a line that is no event, and the fix."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as bad:
        return (
            f"not UTF-8 text ({bad.reason} at byte {bad.start} of the line)",
            "pass a jdsl trace (JSONL written by a JsonlTraceSink or `jdsl import`), or read "
            "with strict=False to skip the line (e.g. one torn by a crash mid-write)",
        )
    head = line[:4096]
    for marker, command in _FOREIGN:
        if marker in head:
            return (
                f"not a trace event but {command[0]} ({exc})",
                f"convert it first: `jdsl import {command[1]} FILE -o TRACES.jsonl`",
            )
    return (
        f"not a trace event ({exc})",
        "each line must be one TraceEvent JSON object, or read with strict=False to skip it",
    )


_FOREIGN = (
    (b'"resourceSpans"', ("OTLP JSON (OpenTelemetry spans)", "otel")),
    (b'"traj"', ("a tau-bench results file", "tau-bench")),
)  # a known format's telltale key near the start of the line -> what it is, how to import


def decode_json(data: bytes | str, *, exact: bool = True) -> Any:
    """One JSON document: orjson, else ``json`` (``NaN``, ``Infinity``, and a document with a
    number of 19 digits or more, since ``json`` keeps ints beyond 64 bits exact; ``exact``
    False skips that check, for a reader that needs no payload values).

    Raises:
        ValueError: not JSON, not UTF-8, or nested deeper than a decoder allows (the
            ``RecursionError`` of a deeply nested line is turned into this).
    """
    first: Exception | str = "a number of 19 digits or more"
    if not exact or not long_number(_numbers_of(_utf8(data))):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            first = exc
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError(f"nested too deeply to decode ({first})") from None


def _utf8(data: bytes | str) -> bytes:
    return data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")


def _numbers_of(raw: bytes) -> bytes:
    """Where a line's long numbers can be: an event line as jdsl writes it holds numbers only
    in its payload (between ``"payload":`` and ``"prev_event_hash"``, keys sorted) and its
    short ``sequence``; any other line, whole. Scanning the payload alone is a fifth of the
    cost on runtime events."""
    start = raw.find(b',"payload":')
    end = raw.find(b',"prev_event_hash":', start) if start >= 0 else -1
    return raw[start:end] if end > start else raw


_ACTORS = frozenset({"model", "user", "environment", "system", "tool"})
_FIELD_COUNT = len(TraceEvent.model_fields)


def _fast_event(data: dict[str, Any]) -> TraceEvent | None:
    """The event of ``data`` without validation when every field is present with its type.

    None sends the line through :meth:`TraceEvent.from_dict` (defaults, coercion, errors).
    """
    try:
        text = (
            data["kind"], data["capture_id"], data["episode_id"], data["schema_version"],
            data["event_id"], data["timestamp"], data["actor"],
        )  # fmt: skip
        optional = (
            data["parent_event_id"], data["state_before_ref"], data["state_after_ref"],
            data["prev_event_hash"], data["event_hash"],
        )  # fmt: skip
        sequence, payload, refs, source = (
            data["sequence"], data["payload"], data["blob_refs"], data["source"]
        )  # fmt: skip
    except KeyError:
        return None
    typed = (
        type(sequence) is int
        and type(payload) is dict
        and type(refs) is list
        and text[6] in _ACTORS
        and _all_text(text)
        and _all_text(v for v in optional if v is not None)
        and (not refs or _all_text(refs))
    )
    if not typed or len(data) != _FIELD_COUNT:  # extra fields: let pydantic drop them
        return None
    if source == RUNTIME_SOURCE.__dict__:
        data["source"] = RUNTIME_SOURCE
    elif isinstance(source, dict):
        data["source"] = EventSource.model_validate(source)
    else:
        return None
    return TraceEvent.trusted(data)


def _all_text(values: Iterable[Any]) -> bool:
    return all(type(v) is str for v in values)
