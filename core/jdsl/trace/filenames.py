"""File names made from data (a skill, a family, a task id, ``-n``), and the check that a file
written under an output directory stays in it.

A trace never chooses where a file is written: :func:`safe_file_name` turns any text into one
path component, :func:`file_names` does so for a batch of texts without two of them landing on
one file, :func:`prefixed` names one of a family of files (``NAME-FAMILY``) so that a cut keeps
the family, and :func:`path_inside` joins a name to a directory and refuses anything that would
leave it (:class:`OutputPathError`). ``SECURITY.md`` ("Where outputs are written") states the
guarantee; ``tests/trace/test_filenames.py`` holds its cases.

pathvalidate's ``sanitize_filename`` (3.3.1) was weighed for :func:`safe_file_name`: it keeps
``..``, a leading dot (``../../pwned`` -> ``....pwned``) and U+202E, so the rules here would
stay around it; it is not used.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Final

from jdsl.errors import JdslError

__all__ = [
    "MAX_NAME_BYTES",
    "OutputPathError",
    "file_names",
    "path_inside",
    "prefixed",
    "safe_file_name",
]

MAX_NAME_BYTES: Final = 120
"""The longest name :func:`safe_file_name` makes, suffix included, in UTF-8 bytes (file systems
allow 255; a temp name is made beside it, see ``jdsl.trace.atomic.temp_beside``)."""

_FALLBACK: Final = "unnamed"
_HASH_CHARS: Final = 8
_UNSAFE: Final = re.compile(r'[<>:"/\\|?*]')  # separators and what Windows refuses in a name
_RUNS: Final = re.compile(r"\.{2,}|_{2,}|\s+")
_RESERVED: Final = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {f"{device}{n}" for device in ("COM", "LPT") for n in "0123456789¹²³"}
)
"""Windows device names, which no file may be called, whatever its extension (``nul.jdsl``)."""


class OutputPathError(JdslError, ValueError):
    """A file name that would be written outside its output directory (``../x``, ``/etc/x``,
    ``a/b``, ``..``), or that names no file. Subclasses ``ValueError`` too.

    Attributes:
        name: the file name given.
        directory: the output directory it had to stay in.
    """

    def __init__(self, name: str, directory: str) -> None:
        self.name = name
        self.directory = directory
        super().__init__(
            f"refusing to write {name!r} under {directory}: a file name made from data must be "
            "one path component inside the output directory; make it with safe_file_name()"
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (OutputPathError, (self.name, self.directory))


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]


def _visible(char: str) -> str:
    """``char``, or ``_`` for a control, format (U+202E turns ``gpj.exe`` around), surrogate,
    private-use or unassigned character, or a line or paragraph separator."""
    category = unicodedata.category(char)
    return "_" if category[0] == "C" or category in ("Zl", "Zp") else char


def _clean(text: str) -> str:
    name = "".join(map(_visible, unicodedata.normalize("NFC", text)))
    name = _RUNS.sub(lambda m: " " if m[0].isspace() else "_", _UNSAFE.sub("_", name))
    name = name.strip(" ._-")  # no leading dot (hidden, "."), no trailing dot or space (Windows)
    if name.split(".", 1)[0].rstrip(" ").upper() in _RESERVED:
        name = f"_{name}"
    return name


def _cut(name: str, limit: int) -> str:
    """``name`` cut to at most ``limit`` UTF-8 bytes, on a character boundary."""
    return name.encode("utf-8")[:limit].decode("utf-8", "ignore").rstrip(" ._-")


def safe_file_name(text: str, *, suffix: str = "") -> str:
    """``text`` as one safe path component, ending in ``suffix`` (``".jdsl"``).

    The name has no path separator (``/`` and ``\\`` become ``_``), no ``..``, no leading dot,
    no control or invisible format character, none of ``<>:"|?*``, is not a Windows device name
    (``CON``, ``nul.txt``), and is at most :data:`MAX_NAME_BYTES` bytes. A name that is already
    safe is kept as it is (``airline.cancel_reservation``); one that had to be cut gets 8 hex
    digits of the original's sha256 (``...-1a2b3c4d``), so two long names stay apart. Text with
    nothing usable left (``".."``, ``""``) becomes ``unnamed``.

    >>> safe_file_name("../../pwned", suffix=".jdsl")
    'pwned.jdsl'
    >>> safe_file_name("airline.cancel_reservation", suffix=".jdsl")
    'airline.cancel_reservation.jdsl'
    """
    room = MAX_NAME_BYTES - len(suffix.encode("utf-8"))
    name = _clean(text) or _FALLBACK
    if len(name.encode("utf-8")) > room:
        name = f"{_cut(name, room - _HASH_CHARS - 1)}-{_short_hash(text)}"
    return name + suffix


def prefixed(prefix: str | None, name: str, *, suffix: str = "") -> str:
    """``<prefix>-<name>`` (``name`` alone without a prefix): the name of one of a family of
    files and what it holds, e.g. ``jdsl compile -n NAME``'s ``NAME-FAMILY`` packages. Every
    place that prefixes a name uses it, so a package is named as its file.

    When that is too long for one file name ending in ``suffix`` (:data:`MAX_NAME_BYTES`), the
    prefix is cut, never ``name``: ``<prefix cut>-<8 hex of the prefix's sha256>-<name>``, so
    the file still says which family it holds (a whole cut, as :func:`safe_file_name` makes,
    kept only the prefix) and two long prefixes stay apart. A ``name`` too long to leave room
    for any of the prefix keeps only its hash, and is cut by :func:`safe_file_name`.

    >>> prefixed("shop", "airline.cancel_reservation", suffix=".jdsl")
    'shop-airline.cancel_reservation'
    >>> prefixed("n" * 115, "seq-lookup", suffix=".jdsl")[-20:]
    '-1e00c4fc-seq-lookup'
    """
    if not prefix:
        return name
    text = f"{prefix}-{name}"
    room = MAX_NAME_BYTES - len(suffix.encode("utf-8"))
    if len(_clean(text).encode("utf-8")) <= room:
        return text
    tail = f"-{_short_hash(prefix)}-{name}"
    room -= len(_clean(f"x{tail}").encode("utf-8")) - 1  # as cleaned after a head ("x")
    head = _cut(_clean(prefix), room) if room > 0 else ""
    return f"{head}{tail}" if head else tail.removeprefix("-")


def file_names(texts: Iterable[str], *, suffix: str = "") -> dict[str, str]:
    """Each of ``texts`` -> its :func:`safe_file_name`, no two of them the same file.

    When several texts make one name, also on a file system that ignores case (``a/b``,
    ``a_b``, ``A_B``), the first of them in sorted order keeps it and each other one gets 8 hex
    digits of its own sha256 (``a_b-5c1e0f3a.jdsl``): the names depend only on the set of
    texts, never on their order.
    """
    names: dict[str, str] = {}
    taken: set[str] = set()
    for text in sorted(set(texts)):
        name = safe_file_name(text, suffix=suffix)
        if name.casefold() in taken:
            stem = safe_file_name(text)
            room = MAX_NAME_BYTES - len(suffix.encode("utf-8")) - _HASH_CHARS - 1
            name = f"{_cut(stem, room) or _FALLBACK}-{_short_hash(text)}{suffix}"
        taken.add(name.casefold())
        names[text] = name
    return names


def path_inside(directory: str | os.PathLike[str], name: str) -> Path:
    """``directory / name``, when ``name`` is one path component that stays in ``directory``.

    Checked on the text (one component on POSIX and Windows alike, not ``.`` or ``..``, no NUL,
    not absolute, no drive) and on the file system (the real parent of the result is the real
    ``directory``; a link *named* ``name`` is replaced by a write, not followed).

    Raises:
        OutputPathError: any other ``name``.
    """
    base = Path(directory)
    pure = PureWindowsPath(name)
    one_part = (
        bool(name)
        and "\0" not in name
        and name not in (".", "..")
        and PurePosixPath(name).name == name
        and pure.name == name
        and not pure.drive
    )
    target = base / name
    if not one_part or os.path.realpath(target.parent) != os.path.realpath(base):
        raise OutputPathError(name, str(base))
    return target
