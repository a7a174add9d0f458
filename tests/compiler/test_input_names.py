"""Run inputs and decisions say what they hold: two cancel calls whose reservation ids no
lineage explains are ``reservation_id`` and ``reservation_id_2``, never named after the step
positions of one run (``cancel_reservation_8_reservation_id``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402

_POSITIONAL = re.compile(r"_\d+_")


def _two_cancels(i: int) -> dict[str, Any]:
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}"}, task_id=f"t{i}")
    b.call("get_user_details", {"name": f"user {i}"}, store="user", node_id="agent",
           node_type="react", user_id=f"u{i}")  # fmt: skip
    for k in range(2):
        b.call("cancel_reservation", {"ok": True}, node_id="agent", node_type="react",
               reservation_id=f"R{i}K{k}Q")  # fmt: skip
    return b.done(True)


def test_two_unexplained_ids_of_one_argument_are_numbered_not_positioned() -> None:
    result = compile_behavior([_two_cancels(i) for i in range(3)], name="cancel")
    cancels = [a for a in result.compiled.actions if a.tool == "cancel_reservation"]
    names = [str(c.source) for a in cancels for c in a.choices]
    assert names == ["reservation_id", "reservation_id_2"]
    assert not any(_POSITIONAL.search(n) for n in names)
