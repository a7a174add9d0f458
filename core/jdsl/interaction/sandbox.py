"""The sandbox: deny-by-default permissions and workspace-confined files (DESIGN.md §7).

Categories (the keys of ``grants``): ``file.read``, ``file.write``, ``execute`` (command names),
``network`` (URL origins), ``tool``, ``mcp`` (server names) and ``skill``. Nothing is allowed
unless granted; ``"*"`` in a pattern matches any run of characters (``"*"`` alone grants the
whole category). File patterns match the workspace-relative POSIX path.

This is a cooperative guard for code that asks it, not OS isolation: untrusted code belongs in a
container executor.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Protocol
from urllib.parse import urlsplit

from jdsl.errors import PermissionDenied, ToolError
from jdsl.interaction.cancel import is_cancelled

__all__ = ["CATEGORIES", "CommandResult", "Executor", "Sandbox", "normalize_origin"]

CATEGORIES = ("file.read", "file.write", "execute", "network", "tool", "mcp", "skill")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class CommandResult:
    """What a command produced: ``exit_code``, raw ``stdout`` and ``stderr`` bytes."""

    __slots__ = ("args", "command", "exit_code", "stderr", "stdout")

    def __init__(
        self, command: str, args: Sequence[str], exit_code: int, stdout: bytes, stderr: bytes
    ) -> None:
        self.command = command
        self.args = tuple(args)
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr

    def __repr__(self) -> str:
        return f"CommandResult({self.command!r}, exit_code={self.exit_code})"


class Executor(Protocol):
    """Runs one command without a shell (see :class:`jdsl.interaction.LocalExecutor`)."""

    def run(
        self, command: str, args: Sequence[str], *, cwd: str, cancel: object | None = None
    ) -> CommandResult: ...


def normalize_origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, lower-cased, default ports dropped.

    Raises:
        ValueError: ``url`` is not an absolute http(s) URL.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http(s) URL with a host")
    port = parts.port
    host = parts.hostname.lower()
    netloc = host if port in (None, _DEFAULT_PORTS[parts.scheme]) else f"{host}:{port}"
    return f"{parts.scheme}://{netloc}"


def _pattern(text: str) -> re.Pattern[str]:
    return re.compile("^" + ".*".join(re.escape(piece) for piece in text.split("*")) + "$")


def _validate_grants(grants: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    clean: dict[str, tuple[str, ...]] = {}
    for category, names in grants.items():
        if category not in CATEGORIES:
            raise ValueError(
                f"unknown sandbox category {category!r}; use one of {', '.join(CATEGORIES)}"
            )
        if isinstance(names, str | bytes) or not isinstance(names, Sequence):
            raise ValueError(f"grants[{category!r}] must be a list of names, not {names!r}")
        for name in names:
            if not isinstance(name, str) or not name:
                raise ValueError(f"grants[{category!r}] holds {name!r}; use nonempty strings")
        if category == "network":
            names = [n if n == "*" else normalize_origin(n) for n in names]
        clean[category] = tuple(names)
    return clean


class Sandbox:
    """Deny-by-default permissions plus a workspace for file access and commands.

    Args:
        workspace: the directory files and commands are confined to (None: no file access).
        grants: ``{category: [pattern, ...]}``; see the module docstring.
        executor: runs commands (``execute`` needs one; there is no shell fallback).

    Raises:
        ValueError: an unknown category, a non-list value, or an empty/non-string pattern.

    Example:
        >>> box = Sandbox(grants={"tool": ["lookup_*"], "network": ["https://api.example.com"]})
        >>> box.allows("tool", "lookup_order"), box.allows("tool", "refund")
        (True, False)
    """

    def __init__(
        self,
        workspace: str | os.PathLike[str] | None = None,
        *,
        grants: Mapping[str, Sequence[str]] | None = None,
        executor: Executor | None = None,
    ) -> None:
        self._grants = MappingProxyType(_validate_grants(grants or {}))
        self._patterns = {k: tuple(_pattern(n) for n in v) for k, v in self._grants.items()}
        self.workspace = Path(workspace) if workspace is not None else None
        self.executor = executor

    @property
    def grants(self) -> Mapping[str, tuple[str, ...]]:
        """The validated grants (read-only)."""
        return self._grants

    def granting(self, category: str, names: Sequence[str]) -> Sandbox:
        """A new sandbox with ``names`` added to ``category`` (this one is unchanged)."""
        merged = {k: list(v) for k, v in self._grants.items()}
        merged.setdefault(category, []).extend(names)
        return Sandbox(self.workspace, grants=merged, executor=self.executor)

    def allows(self, category: str, name: str) -> bool:
        """Whether ``name`` is granted in ``category`` (network names are URLs or origins)."""
        if category == "network":
            try:
                name = normalize_origin(name)
            except ValueError:
                return False
        return any(p.match(name) for p in self._patterns.get(category, ()))

    def check(self, category: str, name: str) -> None:
        """Raise :class:`PermissionDenied` unless ``name`` is granted in ``category``."""
        if category not in CATEGORIES:
            raise ValueError(f"unknown sandbox category {category!r}")
        if not self.allows(category, name):
            raise PermissionDenied(category, name)

    def contain(self, path: str, category: str = "file.read") -> str:
        """Workspace-relative ``path`` with every link resolved, refused if it leaves the workspace.

        Returns:
            The POSIX path of the real target relative to the real workspace (``"."`` for the
            workspace itself), which names no link (grants are not checked here).

        Raises:
            PermissionDenied: no workspace, or a path that leaves it (``..``, an absolute path or
                a symlink pointing outside, at any step).
        """
        if self.workspace is None:
            raise PermissionDenied(category, path, hint="the sandbox has no workspace")
        root = Path(os.path.realpath(self.workspace))
        real = Path(os.path.realpath(root / path))
        if real != root and root not in real.parents:
            raise PermissionDenied(category, path, hint="the path leaves the workspace")
        return real.relative_to(root).as_posix()

    def resolve(self, path: str, category: str = "file.read") -> Path:
        """The real path of workspace-relative ``path``, checked against ``category`` grants.

        Raises:
            PermissionDenied: as :meth:`contain`, or a path not granted.
        """
        relative = self.contain(path, category)
        self.check(category, relative)
        return Path(os.path.realpath(self.workspace)) / relative  # type: ignore[arg-type]

    def read_text(self, path: str, *, cancel: object | None = None) -> str:
        """Read a UTF-8 text file inside the workspace (needs ``file.read``).

        Raises:
            PermissionDenied: as :meth:`resolve`, or a target that is not a regular file (a
                FIFO or device, which could block or never end, is refused without opening it).
            ToolError: the file is missing (``FILE_NOT_FOUND``), a directory
                (``IS_A_DIRECTORY``), unreadable (``FILE_UNREADABLE``) or not UTF-8
                (``NOT_UTF8``).
        """
        _raise_if_cancelled(cancel, path)
        real = self.resolve(path, "file.read")
        try:
            fd = self._open_checked(real, os.O_RDONLY, "file.read", path)
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                os.close(fd)
                if stat.S_ISDIR(mode):
                    raise ToolError(f"{path!r} is a directory, not a file", code="IS_A_DIRECTORY")
                raise PermissionDenied(
                    "file.read", path, hint="it is not a regular file (a FIFO, socket or device)"
                )
            with os.fdopen(fd, "rb") as file:
                return file.read().decode("utf-8")
        except FileNotFoundError:
            raise ToolError(f"no file {path!r} in the workspace", code="FILE_NOT_FOUND") from None
        except UnicodeDecodeError as exc:
            raise ToolError(
                f"{path!r} is not UTF-8 text (byte {exc.start})", code="NOT_UTF8"
            ) from None
        except OSError as exc:
            raise ToolError(
                f"cannot read {path!r}: {exc.strerror}", code="FILE_UNREADABLE"
            ) from None

    def write_text(self, path: str, content: str, *, cancel: object | None = None) -> None:
        """Write a UTF-8 text file inside the workspace (needs ``file.write``).

        Directories are not created; a dangling symlink, a directory, a FIFO or a device is
        refused (``PermissionDenied``); a failed write is a ``ToolError`` (``FILE_UNWRITABLE``).
        """
        _raise_if_cancelled(cancel, path)
        if self.workspace is not None:
            link = Path(self.workspace) / path
            if link.is_symlink() and not link.exists():
                raise PermissionDenied("file.write", path, hint="it is a dangling symlink")
        real = self.resolve(path, "file.write")
        if not real.parent.is_dir():
            raise PermissionDenied("file.write", path, hint="its directory does not exist")
        if real.exists() and not real.is_file():
            raise PermissionDenied("file.write", path, hint="it is not a regular file")
        data = content.encode("utf-8")
        try:
            fd = self._open_checked(real, os.O_WRONLY | os.O_CREAT, "file.write", path)
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise PermissionDenied("file.write", path, hint="it is not a regular file")
            with os.fdopen(fd, "wb") as file:
                file.truncate(0)
                file.write(data)
        except OSError as exc:
            raise ToolError(
                f"cannot write {path!r}: {exc.strerror}", code="FILE_UNWRITABLE"
            ) from None

    def _open_checked(self, real: Path, flags: int, category: str, path: str) -> int:
        """Open ``real`` (a link-free path :meth:`resolve` checked) without following a link at
        any step: from the real workspace, one directory descriptor per part, each opened
        ``O_NOFOLLOW``. A link swapped in since the check (a race) is refused rather than
        followed; a FIFO opens without blocking (``O_NONBLOCK``) so the caller can refuse it.

        Raises:
            PermissionDenied: a part became a link (or stopped being a directory).
            OSError: the file cannot be opened (missing, unreadable, ...).
        """
        if not _DIR_FDS:  # no descriptor-relative opens here: the check is all there is
            return os.open(real, flags | os.O_NONBLOCK, 0o666)
        root = os.path.realpath(self.workspace)  # type: ignore[arg-type]
        parts = real.relative_to(root).parts
        nofollow = getattr(os, "O_NOFOLLOW", 0)
        where = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for part in parts[:-1]:
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | nofollow, dir_fd=where)
                os.close(where)
                where = inner
            name = parts[-1] if parts else "."
            return os.open(name, flags | nofollow | os.O_NONBLOCK, 0o666, dir_fd=where)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                raise PermissionDenied(
                    category, path, hint="a link appeared on its path after it was checked"
                ) from None
            raise
        finally:
            os.close(where)

    def run(
        self, command: str, args: Sequence[str] = (), *, cancel: object | None = None
    ) -> CommandResult:
        """Run ``command`` with literal ``args`` in the workspace through the executor.

        Needs an ``execute`` grant for ``command``, an executor and a workspace. Arguments are
        copied before anything runs; NUL bytes are refused.

        Raises:
            PermissionDenied: not granted, or no executor / workspace.
            ToolError: a NUL byte in the command or an argument (code ``INVALID_ARGUMENTS``).
        """
        argv = tuple(args)
        if any("\0" in a for a in (command, *argv)):
            raise ToolError(
                f"command {command!r} has an argument with a NUL byte",
                tool=command,
                code="INVALID_ARGUMENTS",
            )
        self.check("execute", command)
        if self.executor is None or self.workspace is None:
            raise PermissionDenied(
                "execute", command, hint="give the Sandbox an executor and a workspace"
            )
        _raise_if_cancelled(cancel, command)
        result = self.executor.run(
            command, argv, cwd=os.path.realpath(self.workspace), cancel=cancel
        )
        _raise_if_cancelled(cancel, command)
        return result


_DIR_FDS = os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")
"""Whether this platform opens relative to a directory descriptor (POSIX: yes)."""


def _raise_if_cancelled(cancel: object | None, target: str) -> None:
    if is_cancelled(cancel):
        raise ToolError(f"{target!r} was cancelled before it ran", code="CANCELLED")
