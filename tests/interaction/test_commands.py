from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from jdsl.errors import PermissionDenied, ToolError
from jdsl.interaction import (
    COMMAND_NAMES,
    CommandResult,
    LocalExecutor,
    Sandbox,
    ToolRegistry,
    read_only_command_tools,
)
from jdsl.providers.messages import ToolCall


class FakeExecutor:
    def __init__(self, stdout: bytes = b"out\n", stderr: bytes = b"", exit_code: int = 0) -> None:
        self.calls: list[tuple[str, tuple[str, ...]]] = []
        self.output = (stdout, stderr, exit_code)

    def run(
        self, command: str, args: Sequence[str], *, cwd: str, cancel: object = None
    ) -> CommandResult:
        self.calls.append((command, tuple(args)))
        stdout, stderr, code = self.output
        return CommandResult(command, args, code, stdout, stderr)


def setup(tmp_path: Path, executor: Any = None, **limits: int) -> tuple[ToolRegistry, Any]:
    executor = executor or FakeExecutor()
    box = Sandbox(tmp_path, grants={"tool": ["*"], "execute": list(COMMAND_NAMES)})
    tools = read_only_command_tools(sandbox=box, executor=executor, **limits)
    return ToolRegistry(tools, sandbox=box), executor


def run(reg: ToolRegistry, tool: str, **arguments: Any):
    return reg.call(ToolCall(id="c1", name=tool, arguments=arguments))


ARGV = [
    ("grep", {"pattern": "x", "paths": ["a", "b"]}, ["-n", "--", "x", "a", "b"]),
    ("grep", {"pattern": "-e", "paths": ["a"], "recursive": True, "ignore_case": True,
              "fixed_strings": True}, ["-n", "-r", "-i", "-F", "--", "-e", "a"]),
    ("ls", {}, ["-1", "--", "."]),
    ("ls", {"path": "d", "all": True}, ["-1", "-a", "--", "d"]),
    ("cat", {"path": "-rf"}, ["--", "./-rf"]),
    ("find", {}, [".", "-maxdepth", "8", "-print"]),
    ("find", {"path": "d", "max_depth": 2, "type": "file", "name": "*.py"},
     ["d", "-maxdepth", "2", "-type", "f", "-name", "*.py", "-print"]),
    ("head", {"path": "a"}, ["-n", "20", "--", "a"]),
    ("tail", {"path": "a", "lines": 5}, ["-n", "5", "--", "a"]),
    ("wc", {"path": "a", "metric": "words"}, ["-w", "--", "a"]),
    ("sort", {"path": "a", "reverse": True, "numeric": True, "unique": True},
     ["-r", "-n", "-u", "--", "a"]),
    ("uniq", {"path": "a", "count": True, "ignore_case": True}, ["-c", "-i", "--", "a"]),
    ("cut", {"path": "a", "fields": "1,3-4", "delimiter": ","}, ["-d", ",", "-f", "1,3-4", "--", "a"]),
    ("stat", {"path": "a"}, ["--", "a"]),
    ("file", {"path": "a"}, ["--", "a"]),
    ("du", {}, ["-k", "-d", "1", "--", "."]),
    ("pwd", {}, []),
]  # fmt: skip


@pytest.mark.parametrize(("name", "arguments", "argv"), ARGV)
def test_exact_argv(tmp_path: Path, name: str, arguments: dict, argv: list[str]) -> None:
    reg, executor = setup(tmp_path)
    result = run(reg, name, **arguments)
    assert executor.calls == [(name, tuple(argv))]
    assert result.status == "success" and result.structured_content["args"] == argv


def test_all_fourteen_tools_exist(tmp_path: Path) -> None:
    reg, _ = setup(tmp_path)
    assert sorted(reg.names()) == sorted(COMMAND_NAMES) and len(reg) == 14


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("cat", {"path": "../x"}),
        ("cat", {"path": "/etc/passwd"}),
        ("cat", {"path": "/etc"}),
        ("cat", {"path": "C:\\x"}),
        ("cat", {"path": "a//b"}),
        ("cat", {"path": "a/"}),
        ("cat", {"path": ""}),
        ("cat", {"path": "a\nb"}),
        ("find", {"path": ".", "-delete": True}),
        ("find", {"path": ".", "exec": "rm"}),
        ("head", {"path": "a", "lines": "1;rm"}),
        ("head", {"path": "a", "lines": 0}),
        ("cut", {"path": "a", "fields": "1;rm"}),
        ("cut", {"path": "a", "fields": "1", "delimiter": "ab"}),
        ("grep", {"pattern": "x", "paths": []}),
        ("grep", {"pattern": "x", "paths": ["a"] * 17}),
        ("pwd", {"path": "."}),
        ("wc", {"path": "a", "metric": "chars"}),
    ],
)
def test_unsafe_arguments_rejected_before_anything_runs(
    tmp_path: Path, name: str, arguments: dict
) -> None:
    reg, executor = setup(tmp_path)
    with pytest.raises(ToolError) as exc:
        run(reg, name, **arguments)
    assert exc.value.code == "INVALID_ARGUMENTS"
    assert executor.calls == []


def test_output_is_bounded_utf8_safe(tmp_path: Path) -> None:
    text = "héllo wörld ünïcode\nline two\nline three\n".encode()
    reg, _ = setup(tmp_path, FakeExecutor(stdout=text), max_stdout_bytes=12)
    result = run(reg, "cat", path="a")
    assert result.structured_content["truncated"] is True
    assert result.content.encode() == text[:12] or len(result.content.encode()) < 12
    assert "\ufffd" not in result.content
    reg, _ = setup(tmp_path, FakeExecutor(stdout=text), max_entries=2)
    result = run(reg, "cat", path="a")
    assert result.content == "héllo wörld ünïcode\nline two\n"


def test_nonzero_exit_is_a_business_failure_run_once(tmp_path: Path) -> None:
    reg, executor = setup(tmp_path, FakeExecutor(stdout=b"", stderr=b"no match", exit_code=1))
    result = run(reg, "grep", pattern="zzz", paths=["a"])
    assert result.status == "failed" and result.error.code == "COMMAND_EXIT_NONZERO"
    assert result.structured_content["exit_code"] == 1 and len(executor.calls) == 1


def test_needs_tool_and_execute_grants(tmp_path: Path) -> None:
    executor = FakeExecutor()
    box = Sandbox(tmp_path, grants={"tool": ["cat"]}, executor=executor)
    reg = ToolRegistry(read_only_command_tools(sandbox=box), sandbox=box)
    with pytest.raises(PermissionDenied, match="execute"):
        run(reg, "cat", path="a")
    reg = ToolRegistry(read_only_command_tools(sandbox=box), sandbox=Sandbox())
    with pytest.raises(PermissionDenied, match="tool"):
        run(reg, "cat", path="a")
    assert executor.calls == []


@pytest.mark.parametrize(
    "limits",
    [{"max_entries": 10_001}, {"max_stdout_bytes": (1 << 20) + 1}, {"max_stderr_bytes": 0}],
)
def test_construction_limits(tmp_path: Path, limits: dict) -> None:
    with pytest.raises(ValueError):
        read_only_command_tools(sandbox=Sandbox(tmp_path), **limits)


def test_real_commands_read_literal_names(tmp_path: Path) -> None:
    (tmp_path / "$(uname)").write_text("literal\n", encoding="utf-8")
    (tmp_path / "-n").write_text("dash\n", encoding="utf-8")
    (tmp_path / "data.txt").write_text("b\na\nb\n", encoding="utf-8")
    reg, _ = setup(tmp_path, LocalExecutor(list(COMMAND_NAMES)))
    assert run(reg, "cat", path="$(uname)").content == "literal\n"
    assert run(reg, "cat", path="-n").content == "dash\n"
    assert run(reg, "sort", path="data.txt", unique=True).content == "a\nb\n"
    assert run(reg, "wc", path="data.txt").content.split()[0] == "3"
    assert run(reg, "pwd").content.strip() == str(tmp_path.resolve())
    missing = run(reg, "cat", path="missing.txt")
    assert missing.status == "failed" and str(tmp_path) not in missing.error.message


def test_executor_timeout_becomes_timeout_status(tmp_path: Path) -> None:
    class Slow(FakeExecutor):
        def run(self, command, args, *, cwd, cancel=None):
            raise ToolError("too slow", code="COMMAND_TIMEOUT")

    reg, _ = setup(tmp_path, Slow())
    result = run(reg, "cat", path="a")
    assert result.status == "timeout" and result.error.code == "COMMAND_TIMEOUT"
