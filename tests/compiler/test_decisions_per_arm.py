"""The recorded answer of an argument a model chose is found per path: each alternative of a
selector counts a tool's calls from where the selector starts (airline transfer_to_human_agents:
the ``summary`` and ``reservation_index`` of a second or third alternative had no answer)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import normalize_episode
from jdsl.compiler.decisions import run_inputs

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _arm(route: str, summary_key: str) -> dict[str, Any]:
    return {"kind": "sequence", "id": f"arm_{route}", "children": [
        {"kind": "check", "id": f"when_{route}", "key": "route", "equals": route},
        {"kind": "action", "id": f"transfer_{route}", "tool": "transfer",
         "args": {"summary": {"ref": summary_key}}},
    ]}  # fmt: skip


TREE = {"kind": "root", "name": "t", "child": {"kind": "sequence", "id": "s", "children": [
    {"kind": "action", "id": "look", "tool": "lookup", "args": {"q": {"ref": "q"}}},
    {"kind": "selector", "id": "branch", "children": [_arm("a", "summary_a"),
                                                       _arm("b", "summary_b")]},
]}}  # fmt: skip


def test_each_alternative_finds_the_recorded_argument_of_its_own_call() -> None:
    b = EpisodeBuilder("ep", inputs={"q": "x"})
    b.call("lookup", {"ok": True}, store="found", q="x")
    b.call("transfer", "done", node_id="agent", node_type="react", summary="user wants a refund")
    inputs = run_inputs(TREE, normalize_episode(b.done(True)))
    assert inputs["summary_a"] == inputs["summary_b"] == "user wants a refund"
