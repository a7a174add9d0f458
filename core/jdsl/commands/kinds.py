"""What a file given on the command line is, so a command handed the wrong kind says which
command takes it (a package to ``jdsl compile``, a trace to ``jdsl run``, ...)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from jdsl.commands.boundary import cli_fail

__all__ = ["refuse_behavior", "refuse_non_package", "refuse_package", "refuse_trace"]


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


def refuse_package_as_traces(path: Path, command: str) -> None:
    """Raise the CLI exit (code 1) when ``path``, given to ``command`` as TRACES, is a
    behavior package (read as a trace, its zip bytes were "not UTF-8")."""
    if _is_package(path):
        raise cli_fail(
            f"{path} is a jdsl behavior package, not traces, which `{command}` takes as TRACES",
            f"pass the runs' JSONL traces after the package: `{command} PKG TRACES.jsonl`",
        )


def refuse_behavior(path: Path, command: str) -> None:
    """Raise the CLI exit (code 1) when ``path``, given to ``command`` as a trace, is behavior
    text (``.behavior``): read as a trace, its first line was "not a trace event", with the
    advice to skip such lines."""
    if path.suffix == ".behavior":
        raise cli_fail(
            f"{path} is behavior text, not a trace, which `{command}` takes",
            f"record one with `jdsl run {path} --tools module:NAME --trace TRACES.jsonl`, then "
            f"`{command}` TRACES.jsonl",
        )


def refuse_trace(path: Path, command: str) -> None:
    """Raise the CLI exit (code 1) when ``path`` looks like a jdsl trace (``.jsonl``, or a
    first line that is a JSON object), which ``command`` does not take."""
    if path.suffix == ".jsonl" or _first_char(path) == "{":
        raise cli_fail(
            f"{path} is a trace (JSONL), which `{command}` does not take (it runs FILE.behavior)",
            f"look at it with `jdsl show {path}`, or compile it with `jdsl compile {path} -o OUT`",
        )


def refuse_non_package(path: Path, command: str) -> None:
    """Raise the CLI exit (code 1) when ``path``, given to ``command`` as its package, is
    behavior text (``.behavior``: name ``jdsl run``), or a trace or a tau-bench results file
    (a JSON file, not an archive): name what it is and the commands that make a package of it.

    Args:
        path: the file a user passed as PKG.
        command: what the user ran, e.g. ``"jdsl package run"``.
    """
    if path.suffix == ".behavior" and path.is_file():
        raise cli_fail(
            f"{path} is behavior text, but `{command}` takes a behavior package "
            "(PKG: a .jdsl archive or package folder)",
            f"run it with `jdsl run {path} --tools module:NAME`, or look at it with "
            f"`jdsl show {path}`",
        )
    if not path.is_file() or zipfile.is_zipfile(path):
        return
    if path.suffix not in {".jsonl", ".json"} and _first_char(path) not in {"{", "["}:
        return
    compile_it = f"compile it into packages with `jdsl compile {path} -o OUT/`"
    if _is_tau_bench(path):
        what = "a tau-bench results file"
        compile_it = (
            f"import it with `jdsl import tau-bench {path} -o TRACES.jsonl`, then compile "
            "the traces into packages with `jdsl compile TRACES.jsonl -o OUT/`"
        )
    else:
        what = "a trace (JSONL)"
    raise cli_fail(
        f"{path} is {what}, but `{command}` takes a behavior package "
        "(PKG: a .jdsl archive or package folder)",
        f"{compile_it} (a directory: one package per family), then `{command} OUT/NAME.jdsl`",
    )


def _is_tau_bench(path: Path) -> bool:
    """A tau-bench results file: its telltale ``"traj"`` key near the start (the marker
    :mod:`jdsl.trace.reader` recognizes it by)."""
    try:
        with path.open("rb") as handle:
            return b'"traj"' in handle.read(4096)
    except OSError:
        return False


def _first_char(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(64).lstrip()[:1].decode("ascii", "replace")
    except OSError:
        return ""
