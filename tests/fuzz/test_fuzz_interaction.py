"""Fuzz targets: the read-only command tools on a workspace with links out (no secret from
outside ever comes back), and the redactor (no secret survives, in a key or a value)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from budget import FUZZ
from hypothesis import given
from hypothesis import strategies as st
from jdsl.errors import JdslError
from jdsl.interaction import (
    COMMAND_NAMES,
    LocalExecutor,
    Sandbox,
    ToolRegistry,
    read_only_command_tools,
)
from jdsl.providers.messages import ToolCall
from jdsl.trace import Redactor
from strategies import json_values

OUTSIDE_SECRET = "outside-secret-7d2e"


@pytest.fixture(scope="module")
def registry() -> Iterator[ToolRegistry]:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "outside").mkdir()
        (base / "outside" / "passwd").write_text(OUTSIDE_SECRET + "\n", encoding="utf-8")
        ws = base / "ws"
        (ws / "docs" / "deep").mkdir(parents=True)
        (ws / "docs" / "a.txt").write_text("alpha,1\nbeta,2\nalpha,1\n", encoding="utf-8")
        (ws / "-n").write_text("dash\n", encoding="utf-8")
        os.symlink(base / "outside", ws / "etc")
        os.symlink(base / "outside" / "passwd", ws / "docs" / "deep" / "pw")
        os.symlink("../../../outside", ws / "docs" / "deep" / "up")
        os.mkfifo(ws / "pipe")
        box = Sandbox(ws, grants={"tool": ["*"], "execute": list(COMMAND_NAMES)})
        executor = LocalExecutor(list(COMMAND_NAMES), timeout_s=5)
        yield ToolRegistry(read_only_command_tools(sandbox=box, executor=executor), sandbox=box)


PATHS = ["etc", "etc/passwd", "docs", "docs/a.txt", "docs/deep/pw", "docs/deep/up",
         "docs/deep/up/passwd", "docs/../etc", ".", "-n", "$(uname)", "pipe", "a\0b", "/etc",
         "docs//a.txt", "x" * 2000, "..", "docs/deep"]  # fmt: skip
values = st.one_of(
    st.sampled_from(PATHS),
    st.lists(st.sampled_from(PATHS), max_size=3),
    st.booleans(),
    st.integers(-5, 40),
    st.text(max_size=8),
    st.none(),
)
keys = st.sampled_from(["path", "paths", "pattern", "recursive", "lines", "fields", "delimiter",
                        "max_depth", "type", "name", "metric", "all", "unique", "count", "x"])  # fmt: skip


arguments = st.one_of(
    st.dictionaries(keys, values, max_size=4),
    st.fixed_dictionaries({"path": st.sampled_from(PATHS)}),  # well formed: the command runs
    st.fixed_dictionaries({
        "pattern": st.sampled_from(["root", "alpha", OUTSIDE_SECRET[:7], "."]),
        "paths": st.lists(st.sampled_from(PATHS), min_size=1, max_size=3),
        "recursive": st.booleans(),
    }),
)  # fmt: skip


@FUZZ
@given(st.sampled_from(COMMAND_NAMES), arguments)
def test_command_tools_never_read_outside_the_workspace(registry, name, arguments) -> None:
    try:
        result = registry.call(ToolCall(id="c1", name=name, arguments=arguments))
    except JdslError:
        return
    assert OUTSIDE_SECRET not in str(result.model_dump())


SECRETS = ["sk-proj-" + "k" * 32, "ghp_" + "g" * 36, "AKIAIOSFODNN7EXAMPLE", "AIza" + "z" * 35,
           "xoxb-1234567890-abcdef", "sk-ant-api03-" + "a" * 30,
           "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX2hlcmU"]  # fmt: skip


def _plant(value: object, secret: str, where: int) -> object:
    """``value`` with ``secret`` planted as a dict key, a value or inside a string."""
    wrappers = (
        lambda v: {secret: v},
        lambda v: {"data": [v, secret]},
        lambda v: {"note": f"the key is {secret}.", "v": v},
        lambda v: [{"nested": {secret + "-suffix": v}}],
    )
    return wrappers[where % len(wrappers)](value)


@FUZZ
@given(json_values, st.sampled_from(SECRETS), st.integers(0, 3))
def test_no_secret_survives_redaction(value, secret, where) -> None:
    out = Redactor().redact(_plant(value, secret, where))
    assert not any(secret in text for text in _strings(out))


def _strings(value: object) -> Iterator[str]:
    """Every string in ``value``, dict keys included (no repr: ints may be too long to print)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
