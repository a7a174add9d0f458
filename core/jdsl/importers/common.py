"""What both importers share: the format error, reading JSON, and emitting conversations."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from jdsl.errors import JdslError
from jdsl.importers import jsondata
from jdsl.importers.conversation import Conversation, conversation_events
from jdsl.trace import ListTraceSink, Trace, TraceSink

__all__ = ["ImportFormatError", "emit_conversations", "read_json", "read_rows"]


class ImportFormatError(JdslError, ValueError):
    """A foreign trace file that does not have the format its importer reads.

    Attributes:
        path: the file.
        where: the place in it (``"line 3"``, ``"episode 2 step 5"``), when known.
    """

    def __init__(self, message: str, *, path: str | Path, where: str = "") -> None:
        self.path = str(path)
        self.where = where
        at = f"{self.path}, {where}" if where else self.path
        super().__init__(f"{at}: {message}")


def read_json(path: str | Path) -> Any:
    """Parse a JSON file.

    Raises:
        ImportFormatError: the file is missing, is not UTF-8 text (names the byte offset) or
            is not strict JSON (names the line and column; :mod:`jdsl.importers.jsondata`).
    """
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # a byte-order mark is no content
    except FileNotFoundError:
        raise ImportFormatError("no such file; check the path", path=path) from None
    except IsADirectoryError:
        raise ImportFormatError(
            "a folder, not a file; pass the JSON file in it", path=path
        ) from None
    except OSError as exc:
        raise ImportFormatError(f"cannot read the file ({exc.strerror})", path=path) from exc
    except UnicodeDecodeError as exc:
        raise ImportFormatError(
            f"not UTF-8 text ({exc.reason}); save the file as UTF-8 JSON",
            path=path,
            where=f"byte {exc.start}",
        ) from exc
    if not text.strip():
        raise ImportFormatError("the file is empty; pass the JSON file the tool wrote", path=path)
    try:
        return jsondata.loads(text)
    except jsondata.JsonDataError as exc:
        raise ImportFormatError(
            f"not JSON ({exc}); {_what_instead(text)}", path=path, where=exc.where
        ) from exc


def _what_instead(text: str) -> str:
    """The fix for a file that is not one JSON document: a jdsl trace needs no import; other
    JSON Lines must be one document."""
    first = text.lstrip().split("\n", 1)[0]
    try:
        head = jsondata.loads(first)
    except jsondata.JsonDataError:
        return "pass a JSON file"
    if isinstance(head, dict) and {"kind", "episode_id", "event_id"} <= head.keys():
        return "this is already a jdsl trace (JSON Lines): compile it with `jdsl compile`"
    return "this looks like JSON Lines: pass the file as one JSON document"


def read_rows(path: str | Path, is_row: Callable[[Any], bool]) -> Any:
    """:func:`read_json`, where a file that is one row (``is_row``) reads as ``[row]`` and a
    JSON Lines file whose every line is a row reads as the list of them; anything else (a
    line that is no row: ambiguous) keeps :func:`read_json`'s error."""
    try:
        data = read_json(path)
    except ImportFormatError as exc:
        rows = _json_lines(path)
        if rows and all(is_row(r) for r in rows):
            return rows
        raise exc
    return [data] if is_row(data) else data


def _json_lines(path: str | Path) -> list[Any]:
    """Each non-blank line of ``path`` parsed as JSON; ``[]`` when one is not (or the file
    cannot be read as text: :func:`read_json` said why)."""
    try:
        lines = Path(path).read_text(encoding="utf-8-sig").splitlines()
        return [jsondata.loads(line) for line in lines if line.strip()]
    except (OSError, UnicodeDecodeError, jsondata.JsonDataError):
        return []


def emit_conversations(
    conversations: Iterable[Conversation], sink: TraceSink | None = None
) -> Trace:
    """Emit each conversation as one episode through ``sink`` (a new list sink by default).

    Returns:
        A :class:`~jdsl.trace.Trace` of every stamped event, episode after episode.
    """
    sink = sink if sink is not None else ListTraceSink()
    trace = Trace()
    for conversation in conversations:
        trace.extend(conversation_events(conversation, sink))
    return trace
