"""Fixtures for the flow tests (helpers live in flows_helpers.py, importable from here)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from flows_helpers import registered  # noqa: E402
from jdsl.interaction import Sandbox, ToolRegistry, ToolResult  # noqa: E402


@pytest.fixture
def log() -> list:
    return []


@pytest.fixture
def tools(log: list) -> ToolRegistry:
    echo = registered("echo", lambda a: ToolResult(content=f"echo {a.get('x')}"), log)
    fail = registered("fail", lambda a: ToolResult.failure("NOT_FOUND", "no such thing"), log)
    slow = registered(
        "slow", lambda a: ToolResult.failure("SLOW", "took too long", status="timeout"), log
    )

    def crash(a: dict) -> ToolResult:
        raise RuntimeError("boom in /srv/app/x.py")

    return ToolRegistry(
        [echo, fail, slow, registered("crash", crash, log)], sandbox=Sandbox(grants={"tool": ["*"]})
    )
