"""Issue #17: command tools and the sandbox stay in the workspace through links, and bad
file targets (missing, a directory, a FIFO) are typed errors, never a hang."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from jdsl.errors import PermissionDenied, ToolError
from jdsl.interaction import (
    COMMAND_NAMES,
    LocalExecutor,
    Sandbox,
    ToolRegistry,
    read_only_command_tools,
)
from jdsl.providers.messages import ToolCall

SECRET = "host-secret-4f1c"


@pytest.fixture
def linked(tmp_path: Path) -> tuple[ToolRegistry, Path]:
    """A workspace with links to a folder and a file outside it, and one link inside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text(f"root:{SECRET}\n", encoding="utf-8")
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "a.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    os.symlink(outside, ws / "etc")
    os.symlink(outside / "passwd", ws / "pw.txt")
    os.symlink(ws / "docs" / "a.txt", ws / "inside.txt")
    box = Sandbox(ws, grants={"tool": ["*"], "execute": list(COMMAND_NAMES)})
    tools = read_only_command_tools(sandbox=box, executor=LocalExecutor(list(COMMAND_NAMES)))
    return ToolRegistry(tools, sandbox=box), ws


def _call(reg: ToolRegistry, name: str, **arguments):
    return reg.call(ToolCall(id="c1", name=name, arguments=arguments))


FILE_TOOLS = [
    ("cat", {}), ("head", {}), ("tail", {}), ("sort", {}), ("uniq", {}), ("wc", {}),
    ("cut", {"fields": "1", "delimiter": ":"}), ("stat", {}), ("file", {}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "extra"), FILE_TOOLS)
@pytest.mark.parametrize("path", ["etc/passwd", "pw.txt"])
def test_file_tools_refuse_links_out_of_the_workspace(linked, name, extra, path):
    reg, _ = linked
    with pytest.raises(PermissionDenied, match="leaves the workspace"):
        _call(reg, name, path=path, **extra)


@pytest.mark.parametrize(("name", "arguments"), [
    ("ls", {"path": "etc"}), ("find", {"path": "etc"}), ("du", {"path": "etc"}),
    ("grep", {"pattern": "root", "paths": ["etc"], "recursive": True}),
    ("grep", {"pattern": "root", "paths": ["pw.txt"]}),
])  # fmt: skip
def test_directory_tools_refuse_links_out_of_the_workspace(linked, name, arguments):
    reg, _ = linked
    with pytest.raises(PermissionDenied, match="leaves the workspace"):
        _call(reg, name, **arguments)


def test_recursive_grep_does_not_follow_links_it_meets(linked):
    reg, _ = linked
    result = _call(reg, "grep", pattern="root", paths=["."], recursive=True)
    assert SECRET not in (result.content or "") + str(result.structured_content)
    found = _call(reg, "grep", pattern="alpha", paths=["."], recursive=True)
    assert "docs/a.txt" in found.content


def test_ls_of_the_workspace_lists_links_without_following_them(linked):
    reg, _ = linked
    listed = _call(reg, "ls", path=".")
    assert "etc" in listed.content and "passwd" not in listed.content


def test_a_link_inside_the_workspace_still_works_through_its_real_path(linked):
    reg, _ = linked
    result = _call(reg, "cat", path="inside.txt")
    assert result.content == "alpha\nbeta\n"
    assert result.structured_content["args"] == ["--", "docs/a.txt"]


def test_read_text_missing_directory_and_fifo_are_typed(tmp_path):
    (tmp_path / "d").mkdir()
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9")
    box = Sandbox(tmp_path, grants={"file.read": ["*"], "file.write": ["*"]})
    with pytest.raises(ToolError) as missing:
        box.read_text("nope.txt")
    assert missing.value.code == "FILE_NOT_FOUND"
    with pytest.raises(ToolError) as folder:
        box.read_text("d")
    assert folder.value.code == "IS_A_DIRECTORY"
    with pytest.raises(ToolError) as latin:
        box.read_text("latin1.txt")
    assert latin.value.code == "NOT_UTF8"
    with pytest.raises(PermissionDenied, match="not a regular file"):
        box.read_text("pipe")  # returns at once: a FIFO is never opened
    with pytest.raises(PermissionDenied, match="not a regular file"):
        box.write_text("pipe", "x")
    with pytest.raises(PermissionDenied, match="not a regular file"):
        box.write_text("d", "x")
