"""What a file given on the command line is, so a command handed the wrong kind says which
command takes it (a package to ``jdsl compile``, a trace to ``jdsl run``, ...)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from jdsl.commands.boundary import cli_fail

__all__ = ["refuse_package", "refuse_trace"]


def _is_package(path: Path) -> bool:
    if path.is_dir():
        return (path / "manifest.json").is_file()
    return path.suffix == ".jdsl" or (path.is_file() and zipfile.is_zipfile(path))


def refuse_package(path: Path, command: str) -> None:
    """Raise the CLI exit (code 1, message on stderr) when ``path`` is a behavior package.

    Args:
        path: the file a user passed to ``command``.
        command: what the user ran, e.g. ``"jdsl compile"``.
    """
    if _is_package(path):
        raise cli_fail(
            f"{path} is a jdsl behavior package, which `{command}` does not take",
            f"run it with `jdsl package run {path} --tools module:NAME`, check it with "
            f"`jdsl package validate {path}`, or look at it with `jdsl show {path}`",
        )


def refuse_trace(path: Path, command: str) -> None:
    """Raise the CLI exit (code 1) when ``path`` looks like a jdsl trace (``.jsonl``, or a
    first line that is a JSON object), which ``command`` does not take."""
    if path.suffix == ".jsonl" or _first_char(path) == "{":
        raise cli_fail(
            f"{path} is a trace (JSONL), which `{command}` does not take (it runs FILE.behavior)",
            f"look at it with `jdsl show {path}`, or compile it with `jdsl compile {path} -o OUT`",
        )


def _first_char(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(64).lstrip()[:1].decode("ascii", "replace")
    except OSError:
        return ""
