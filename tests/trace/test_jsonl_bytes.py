"""The JSONL sink writes the same bytes for the same run, whatever its internals: a golden file
digest of a run with a fixed clock and fixed random id prefixes (tools that fail and succeed,
blackboard writes, a redacted secret, a value moved to the blob store, parent links)."""

from __future__ import annotations

import hashlib
import itertools
import os
import time
from typing import Any

import pytest
from jdsl import Status, tree
from jdsl.trace import JsonlTraceSink, read_events, verify_chain


def lookup(email: str) -> dict[str, Any]:
    """Find a customer."""
    return {
        "id": "U1",
        "email": email,
        "api_key": "sk-live-0123456789abcdef",
        "notes": "n" * 70_000,
    }


def failing() -> Status:
    """Fails."""
    return Status.FAILURE


def broken() -> None:
    """Raises."""
    raise RuntimeError("backend down")


def _tree() -> tree.Root:
    child = tree.Sequence(
        children=[
            tree.Action(tool="lookup", args={"email": {"ref": "email"}}, store="customer"),
            tree.Check(key="customer.id", equals="U1"),
            tree.Selector(
                children=[tree.Action(tool="broken", args={}), tree.Action(tool="lookup", args={})]
            ),
        ]
    )
    return tree.Root(name="golden", child=child)


GOLDEN = "7b9c6b568e903ab7c7ad2e48585b8d2b8d7a87f48ecbbd7cf4c533fa62469673"  # written by 070898e


def _write(path: Any, monkeypatch: pytest.MonkeyPatch) -> bytes:
    clock = itertools.count(1_700_000_000_000_000_000, 700_000)  # 0.7 ms an event
    randoms = itertools.count(1)
    monkeypatch.setattr(time, "time_ns", lambda: next(clock))
    monkeypatch.setattr(os, "urandom", lambda n: next(randoms).to_bytes(n, "big"))
    root = _tree()
    with JsonlTraceSink(path) as sink:  # the second run ends with the error its tool raised
        for episode, second in (("ep_1", failing), ("ep_2", broken)):
            tools = {"lookup": lookup, "broken": second}
            root.run(
                trace_sink=sink, tools=tools, episode_id=episode, raise_errors=False, email="a@x"
            )
    monkeypatch.undo()
    return path.read_bytes()


def test_a_run_writes_the_same_bytes(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _write(tmp_path / "t.jsonl", monkeypatch)
    assert verify_chain(read_events(tmp_path / "t.jsonl")) == []
    assert b"sk-live" not in data and b'"blob_refs":["' in data
    assert hashlib.sha256(data).hexdigest() == GOLDEN
