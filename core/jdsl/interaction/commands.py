"""The 14 read-only command tools: grep ls cat find head tail wc sort uniq cut stat file du pwd.

``read_only_command_tools(sandbox=..., executor=...)`` returns them; nothing is registered
automatically. Each tool takes structured arguments (unknown keys rejected), builds a fixed
argv and runs it once through :meth:`Sandbox.run`, never through a shell, so an argument such
as ``$(uname)`` reaches the command literally. Paths are relative POSIX paths inside the
workspace (no ``/abs``, ``..``, ``\\`` or empty segments); each is resolved through
:meth:`Sandbox.contain` with every link followed, so a path through a symlink that points out of
the workspace is refused (``PermissionDenied``) and the command is given the link-free real path;
``grep`` recurses with ``-r`` (links met while recursing are not followed, unlike ``-R``), and
``find`` and ``du`` do not follow links. A path starting with ``-`` is passed as ``./-...``.
Output is bounded (lines, stdout bytes, stderr bytes) without splitting a UTF-8
character. Using a tool needs its ``tool`` grant plus an ``execute`` grant for the command.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from jdsl.errors import ToolError
from jdsl.interaction.registry import RegisteredTool, ToolContext
from jdsl.interaction.results import ToolResult
from jdsl.interaction.sandbox import Executor, Sandbox

__all__ = ["COMMAND_NAMES", "read_only_command_tools"]

COMMAND_NAMES = (
    "grep", "ls", "cat", "find", "head", "tail", "wc", "sort", "uniq", "cut", "stat", "file",
    "du", "pwd",
)  # fmt: skip
_HARD_CAPS = {"max_entries": 10_000, "max_stdout_bytes": 1 << 20, "max_stderr_bytes": 64 << 10}
_FIELDS = re.compile(r"^\d+(-\d+)?(,\d+(-\d+)?)*$")
# executor error code -> (result status, result code)
_EXEC_STATUS = {
    "COMMAND_TIMEOUT": ("timeout", "COMMAND_TIMEOUT"),
    "CANCELLED": ("cancelled", "COMMAND_CANCELLED"),
    "OUTPUT_LIMIT": ("failed", "COMMAND_OUTPUT_LIMIT"),
}


def _line(value: str) -> str:
    if not value or len(value) > 1024 or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ValueError("must be a nonempty single line of at most 1024 characters")
    return value


def _relative_path(value: str) -> str:
    _line(value)
    segments = value.split("/")
    if value.startswith("/") or "\\" in value or "" in segments or ".." in segments:
        raise ValueError(
            f"{value!r} must be a relative POSIX path inside the workspace "
            "(no leading '/', '..', '\\' or empty segments)"
        )
    return value


Line = Annotated[str, AfterValidator(_line)]
RelPath = Annotated[str, AfterValidator(_relative_path)]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class PathArgs(_Args):
    path: RelPath


class GrepArgs(_Args):
    pattern: Line
    paths: list[RelPath] = Field(min_length=1, max_length=16)
    recursive: bool = False
    ignore_case: bool = False
    fixed_strings: bool = False


class LsArgs(_Args):
    path: RelPath = "."
    all: bool = False


class FindArgs(_Args):
    path: RelPath = "."
    max_depth: int = Field(default=8, ge=0, le=32)
    type: Literal["file", "directory"] | None = None
    name: Line | None = None


class LinesArgs(_Args):
    path: RelPath
    lines: int = Field(default=20, ge=1, le=1000)


class WcArgs(_Args):
    path: RelPath
    metric: Literal["lines", "words", "bytes"] = "lines"


class SortArgs(_Args):
    path: RelPath
    reverse: bool = False
    numeric: bool = False
    unique: bool = False


class UniqArgs(_Args):
    path: RelPath
    count: bool = False
    ignore_case: bool = False


class CutArgs(_Args):
    path: RelPath
    fields: Annotated[str, Field(pattern=_FIELDS.pattern, max_length=256)]
    delimiter: Annotated[str, Field(min_length=1, max_length=1)] | None = None


class DuArgs(_Args):
    path: RelPath = "."
    max_depth: int = Field(default=1, ge=0, le=32)


class NoArgs(_Args):
    pass


def _p(path: str) -> str:
    return "./" + path if path.startswith("-") else path


def _flags(*pairs: tuple[bool, str]) -> list[str]:
    return [flag for on, flag in pairs if on]


def _grep(a: GrepArgs) -> list[str]:
    flags = _flags((a.recursive, "-r"), (a.ignore_case, "-i"), (a.fixed_strings, "-F"))
    return ["-n", *flags, "--", a.pattern, *(_p(p) for p in a.paths)]


def _find(a: FindArgs) -> list[str]:
    argv = [_p(a.path), "-maxdepth", str(a.max_depth)]
    if a.type:
        argv += ["-type", "f" if a.type == "file" else "d"]
    if a.name:
        argv += ["-name", a.name]
    return [*argv, "-print"]


def _cut(a: CutArgs) -> list[str]:
    delimiter = ["-d", a.delimiter] if a.delimiter is not None else []
    return [*delimiter, "-f", a.fields, "--", _p(a.path)]


_WC = {"lines": "-l", "words": "-w", "bytes": "-c"}
_Spec = tuple[type[_Args], str, Callable[[Any], list[str]]]
_SPECS: dict[str, _Spec] = {
    "grep": (GrepArgs, "Search files for lines matching a pattern (line numbers shown).", _grep),
    "ls": (LsArgs, "List a directory, one entry per line.",
           lambda a: ["-1", *_flags((a.all, "-a")), "--", _p(a.path)]),
    "cat": (PathArgs, "Print a text file.", lambda a: ["--", _p(a.path)]),
    "find": (FindArgs, "Find files or directories below a path.", _find),
    "head": (LinesArgs, "Print the first lines of a file.",
             lambda a: ["-n", str(a.lines), "--", _p(a.path)]),
    "tail": (LinesArgs, "Print the last lines of a file.",
             lambda a: ["-n", str(a.lines), "--", _p(a.path)]),
    "wc": (WcArgs, "Count the lines, words or bytes of a file.",
           lambda a: [_WC[a.metric], "--", _p(a.path)]),
    "sort": (SortArgs, "Print the lines of a file sorted.", lambda a: [
        *_flags((a.reverse, "-r"), (a.numeric, "-n"), (a.unique, "-u")), "--", _p(a.path)]),
    "uniq": (UniqArgs, "Print a file with adjacent duplicate lines merged.", lambda a: [
        *_flags((a.count, "-c"), (a.ignore_case, "-i")), "--", _p(a.path)]),
    "cut": (CutArgs, "Print selected fields (e.g. '1,3-4') of each line of a file.", _cut),
    "stat": (PathArgs, "Show a file's size, type and times.", lambda a: ["--", _p(a.path)]),
    "file": (PathArgs, "Guess a file's type.", lambda a: ["--", _p(a.path)]),
    "du": (DuArgs, "Show disk usage in KiB below a path.",
           lambda a: ["-k", "-d", str(a.max_depth), "--", _p(a.path)]),
    "pwd": (NoArgs, "Print the workspace directory.", lambda a: []),
}  # fmt: skip


def _cut_utf8(data: bytes, limit: int) -> tuple[bytes, bool]:
    if len(data) <= limit:
        return data, False
    cut = limit
    while cut > 0 and (data[cut] & 0xC0) == 0x80:  # do not split a multi-byte character
        cut -= 1
    return data[:cut], True


def bound_text(data: bytes, max_bytes: int, max_lines: int) -> tuple[str, bool]:
    """``data`` decoded as UTF-8, cut to ``max_bytes`` and ``max_lines``; and whether it was cut."""
    data, truncated = _cut_utf8(data, max_bytes)
    lines = data.decode("utf-8", errors="replace").splitlines(keepends=True)
    if len(lines) > max_lines:
        lines, truncated = lines[:max_lines], True
    return "".join(lines), truncated


def _contained(args: _Args, sandbox: Sandbox) -> _Args:
    """``args`` with every path replaced by its link-free real path inside the workspace.

    Raises:
        PermissionDenied: a path (or a link on the way) that leads out of the workspace.
    """
    changes: dict[str, Any] = {}
    if isinstance(getattr(args, "path", None), str):
        changes["path"] = sandbox.contain(args.path, "execute")  # type: ignore[attr-defined]
    if isinstance(args, GrepArgs):
        changes["paths"] = [sandbox.contain(p, "execute") for p in args.paths]
    return args.model_copy(update=changes)


def _make_tool(name: str, sandbox: Sandbox, limits: dict[str, int]) -> RegisteredTool:
    model, description, build = _SPECS[name]

    def validate(arguments: dict[str, Any]) -> None:
        model.model_validate(arguments)

    def execute(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        argv = build(_contained(model.model_validate(arguments), sandbox))
        try:
            run = sandbox.run(name, argv, cancel=context.cancel)
        except ToolError as exc:
            if exc.code not in _EXEC_STATUS:
                raise
            status, code = _EXEC_STATUS[exc.code]
            return ToolResult.failure(code, f"{name} did not finish: {exc.code}", status=status)  # type: ignore[arg-type]
        stdout, cut_out = bound_text(run.stdout, limits["max_stdout_bytes"], limits["max_entries"])
        stderr, cut_err = bound_text(run.stderr, limits["max_stderr_bytes"], limits["max_entries"])
        structured = {
            "command": name, "args": argv, "stdout": stdout, "stderr": stderr,
            "exit_code": run.exit_code, "truncated": cut_out or cut_err,
        }  # fmt: skip
        if run.exit_code != 0:
            return ToolResult.failure(
                "COMMAND_EXIT_NONZERO",
                f"{name} exited with status {run.exit_code}",
                content=(stdout + stderr) or None,
                structured_content=structured,
            )
        return ToolResult(content=stdout, structured_content=structured)

    schema = model.model_json_schema()
    schema.pop("title", None)
    return RegisteredTool(
        name, description, schema, execute, validate=validate, effects=("read", "execute")
    )


def read_only_command_tools(
    *,
    sandbox: Sandbox,
    executor: Executor | None = None,
    max_entries: int = 1000,
    max_stdout_bytes: int = 64 << 10,
    max_stderr_bytes: int = 8 << 10,
    names: tuple[str, ...] = COMMAND_NAMES,
) -> list[RegisteredTool]:
    """The read-only command tools, to register explicitly.

    Args:
        sandbox: gives the workspace and the ``execute`` grants.
        executor: runs the commands (default: the sandbox's executor).
        max_entries: output lines kept (hard cap 10000).
        max_stdout_bytes: stdout bytes kept (hard cap 1 MiB).
        max_stderr_bytes: stderr bytes kept (hard cap 64 KiB).
        names: a subset of :data:`COMMAND_NAMES`.

    Returns:
        One :class:`RegisteredTool` per name. Success: ``content`` = stdout, ``structured_content
        = {command, args, stdout, stderr, exit_code, truncated}``. A nonzero exit is ``failed /
        COMMAND_EXIT_NONZERO``; a timeout or cancellation gives status timeout / cancelled;
        output over the executor's cap is ``failed / COMMAND_OUTPUT_LIMIT``.

    Raises:
        ValueError: an unknown name or a limit that is not positive or above its hard cap.

    Example:
        >>> box = Sandbox("repo", grants={"tool": ["cat"], "execute": ["cat"]},
        ...               executor=LocalExecutor(["cat"]))     # doctest: +SKIP
        >>> registry = ToolRegistry(read_only_command_tools(sandbox=box), sandbox=box)  # doctest: +SKIP
    """
    limits = {
        "max_entries": max_entries,
        "max_stdout_bytes": max_stdout_bytes,
        "max_stderr_bytes": max_stderr_bytes,
    }
    for key, value in limits.items():
        if not 0 < value <= _HARD_CAPS[key]:
            raise ValueError(f"{key}={value} must be between 1 and {_HARD_CAPS[key]}")
    unknown = sorted(set(names) - set(COMMAND_NAMES))
    if unknown:
        raise ValueError(f"unknown command tools {unknown}; choose from {COMMAND_NAMES}")
    if executor is not None:
        sandbox = Sandbox(sandbox.workspace, grants=sandbox.grants, executor=executor)
    return [_make_tool(name, sandbox, limits) for name in names]
