"""Reads a recording lacks are answered from the state every run starts from (a lookup by id
in the domain's initial database), before the run's first write only; writes are still
compared with the recorded ones, so a package that does a wrong write is still caught."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import ReplayTools, execute, normalize_all
from jdsl.compiler.lookups import initial_lookups
from jdsl.compiler.replay import CallDivergence
from jdsl.expr import MISSING

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402

USERS = {"u1": {"user_id": "u1", "card": "c1"}, "u2": {"user_id": "u2", "card": "c2"}}
READS = initial_lookups({"get_user": ("user_id", USERS)})


def _episode() -> Any:
    """The run never looked the user up: the card came from the conversation."""
    b = EpisodeBuilder("e", inputs={"user_id": "u1"})
    b.call("charge", "ok", store="out", card="c1")
    return normalize_all([b.done(True)])[0]


def _flow(user: dict[str, Any]) -> dict[str, Any]:
    get = {"kind": "action", "id": "get", "tool": "get_user", "args": {"user_id": user},
           "store": "user"}  # fmt: skip
    charge = {"kind": "action", "id": "charge", "tool": "charge",
              "args": {"card": {"ref": "user.card"}}, "store": "out"}  # fmt: skip
    return {"format": "jdsl.behavior.v1", "root": {"kind": "root", "name": "t", "child": {
        "kind": "sequence", "id": "flow", "children": [get, charge]}}}  # fmt: skip


def test_lookups_answer_a_known_key_and_nothing_else() -> None:
    assert READS("get_user", {"user_id": "u2"}) == USERS["u2"]
    assert READS("get_user", {"user_id": "u9"}) is MISSING  # not in the table: unknown
    assert READS("get_user", {"user_id": "u1", "extra": 1}) is MISSING  # other arguments
    assert READS("get_order", {"order_id": "o1"}) is MISSING  # another tool


def test_a_read_the_record_lacks_is_answered_before_the_first_write_only() -> None:
    replay = ReplayTools(_episode(), tools=["get_user", "charge"], reads=READS)
    assert replay.tools["get_user"](user_id="u1") == USERS["u1"]
    replay.tools["charge"](card="c1")
    with pytest.raises(CallDivergence, match="a read the episode never made") as raised:
        replay.tools["get_user"](user_id="u1")  # after a write the initial state may be stale
    assert raised.value.divergence.kind == "read"
    without = ReplayTools(_episode(), tools=["get_user", "charge"])
    with pytest.raises(CallDivergence, match="a read the episode never made"):
        without.tools["get_user"](user_id="u1")


def test_an_answered_read_makes_the_run_replayable_and_a_wrong_write_is_still_caught() -> None:
    episode = _episode()
    assert execute(_flow({"ref": "user_id"}), episode).outcome == "unreplayable"
    assert execute(_flow({"ref": "user_id"}), episode, reads=READS).matched
    wrong = execute(_flow({"const": "u2"}), episode, reads=READS)  # a frozen id: another user
    assert wrong.outcome == "diverged" and wrong.divergence is not None
    assert wrong.divergence.kind == "write" and "card='c2'" in str(wrong.divergence.actual)
