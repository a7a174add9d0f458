"""Whole-file writes that never leave half a file: a temp file beside the target, then a rename."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable
from pathlib import Path

__all__ = ["temp_beside", "write_atomic"]


def temp_beside(target: Path) -> Path:
    """A fresh hidden name in ``target``'s directory (``.<name>.<12 hex>.tmp``)."""
    return target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")


def write_atomic(path: str | os.PathLike[str], data: bytes | Iterable[bytes]) -> Path:
    """Write ``data`` (bytes, or chunks of bytes written as they come) to ``path`` atomically.

    The bytes go to a new temp file in the target's directory, which is then renamed over the
    target (``os.replace``): a reader sees the old file or the whole new one, never a part.
    The file's mode is ``0o666`` less the umask, like any new file (``tempfile.mkstemp`` would
    make it ``0o600``). Parent directories are created.

    Returns:
        The path written.

    Raises:
        OSError: the directory or the file cannot be written; the temp file is removed and the
            target is left as it was (also when producing a chunk raises, or on Ctrl-C).
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        temp = temp_beside(target)
        try:
            fd = os.open(temp, flags, 0o666)  # the umask applies, as to any new file
            break
        except FileExistsError:  # pragma: no cover - a 48-bit name taken: draw again
            continue
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes | bytearray | memoryview):
                handle.write(data)
            else:
                for chunk in data:
                    handle.write(chunk)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return target
