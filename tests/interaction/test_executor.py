from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from jdsl.errors import PermissionDenied, ToolError
from jdsl.interaction import CancelToken, LocalExecutor


def _no_children_left() -> bool:
    # every child we started has been reaped: waitpid finds none
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_arguments_are_literal(tmp_path: Path) -> None:
    (tmp_path / "$(uname)").write_text("not executed", encoding="utf-8")
    result = LocalExecutor(["cat"]).run("cat", ["--", "$(uname)"], cwd=str(tmp_path))
    assert result.stdout == b"not executed" and result.exit_code == 0


def test_environment_is_minimal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "s3cret")
    result = LocalExecutor(["env"], env={"LANG": "C"}).run("env", [], cwd=str(tmp_path))
    lines = sorted(result.stdout.decode().splitlines())
    assert lines == ["LANG=C", "PATH=/usr/bin:/bin"]


def test_nonzero_exit_is_returned(tmp_path: Path) -> None:
    result = LocalExecutor(["sh"]).run("sh", ["-c", "exit 7"], cwd=str(tmp_path))
    assert result.exit_code == 7


def test_command_allowlist_and_relative_paths(tmp_path: Path) -> None:
    with pytest.raises(PermissionDenied):
        LocalExecutor(["ls"]).run("cat", [], cwd=str(tmp_path))
    with pytest.raises(ValueError, match="bare executable"):
        LocalExecutor(["./x"])
    with pytest.raises(ToolError) as exc:
        LocalExecutor(["no-such-command-jdsl"]).run("no-such-command-jdsl", [], cwd=str(tmp_path))
    assert exc.value.code == "COMMAND_NOT_FOUND"


def test_output_overflow_kills_and_reaps(tmp_path: Path) -> None:
    executor = LocalExecutor(["yes"], max_output_bytes=10_000, timeout_s=5)
    with pytest.raises(ToolError) as exc:
        executor.run("yes", [], cwd=str(tmp_path))
    assert exc.value.code == "OUTPUT_LIMIT"
    assert _no_children_left()


def test_timeout_kills_and_reaps(tmp_path: Path) -> None:
    start = time.monotonic()
    with pytest.raises(ToolError) as exc:
        LocalExecutor(["sleep"], timeout_s=0.3).run("sleep", ["10"], cwd=str(tmp_path))
    assert exc.value.code == "COMMAND_TIMEOUT" and time.monotonic() - start < 3
    assert _no_children_left()


def test_cancel_kills_and_reaps(tmp_path: Path) -> None:
    token = CancelToken()
    threading.Timer(0.2, token.cancel).start()
    with pytest.raises(ToolError) as exc:
        LocalExecutor(["sleep"], timeout_s=10).run("sleep", ["10"], cwd=str(tmp_path), cancel=token)
    assert exc.value.code == "CANCELLED"
    assert _no_children_left()


def test_pre_cancelled_runs_nothing(tmp_path: Path) -> None:
    token = CancelToken()
    token.cancel()
    with pytest.raises(ToolError):
        LocalExecutor(["touch"]).run("touch", ["made"], cwd=str(tmp_path), cancel=token)
    assert not (tmp_path / "made").exists()
