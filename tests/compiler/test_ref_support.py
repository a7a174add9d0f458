"""A source decided from one run must hold in every run of the family (issue 24, "lineage
that means it"): a path compiled from a single run (routed paths that make the same writes,
:mod:`jdsl.compiler.staticize`) takes an argument from a field of an unrelated object only when
the other runs of the family that make the same call (same tool, at the same step of the same
writes) do not contradict it; a value the user stated, seen in one run, is the stated input
rather than a field that happens to equal it."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import normalize_all, validate_package
from jdsl.compiler.branches import read_only_of
from jdsl.compiler.lookups import initial_lookups
from jdsl.compiler.support import SameCalls, contradicted
from jdsl.compiler.verify import verify

sys.path.insert(0, str(Path(__file__).parent))
from events import AgentBuilder, compiled, nodes  # noqa: E402

USERS = {u: {"user_id": u, "name": f"User {u}"} for u in ("u1", "u2", "u3")}
RESERVATIONS = {
    rid: {"reservation_id": rid, "origin": "ATL", "destination": "PHL", "cabin": cabin}
    for rid, cabin in (("R0", "economy"), ("R4", "business"), ("R8", "business"))
}
READS = initial_lookups({"get_user_details": ("user_id", USERS),
                         "get_reservation_details": ("reservation_id", RESERVATIONS)})  # fmt: skip


def _by_user(name: str, user: str, rid: str, said: str = "") -> dict[str, Any]:
    """From the user, then an older reservation of theirs; books economy (``said``: what the
    user's message adds)."""
    b = AgentBuilder(name, inputs={"user_id": user})
    b.emit("user.message", {"content": f"I am {user}. Book me ATL to PHL again.{said}"})
    b.call("get_user_details", USERS[user], store="user", user_id=user)
    b.call("get_reservation_details", RESERVATIONS[rid], store="other", reservation_id=rid)
    b.call("book_reservation", {"ok": True}, store="booked", user_id=user, origin="ATL",
           destination="PHL", cabin="economy")  # fmt: skip
    return b.done(True)


def _by_reservation() -> dict[str, Any]:
    """From the reservation the user names (business); books economy."""
    b = AgentBuilder("by_reservation", inputs={"user_id": "u2"})
    b.emit("user.message", {"content": "My reservation is R4; book ATL to PHL again."})
    b.call("get_reservation_details", RESERVATIONS["R4"], store="other", reservation_id="R4")
    b.call("book_reservation", {"ok": True}, store="booked", user_id="u2", origin="ATL",
           destination="PHL", cabin="economy")  # fmt: skip
    return b.done(True)


def _cabins(ir: dict[str, Any]) -> list[Any]:
    return [n["args"]["cabin"] for n in nodes(ir, tool="book_reservation")]


def test_a_coincidence_in_the_only_run_of_a_path_is_not_a_ref() -> None:
    """The path from the user has one run, whose other reservation happens to be economy;
    the run from the reservation makes the same booking with ``other.cabin`` business."""
    runs = normalize_all([_by_user("by_user", "u1", "R0"), _by_reservation()])
    result = compiled(runs, name="book", reads=READS)
    cabins = _cabins(result.compiled.ir)
    assert cabins and {"ref": "other.cabin"} not in cabins, cabins
    assert (result.verification.executed, result.verification.matched) == (2, 2)


def test_the_coincidental_ref_fails_verification_where_it_differs() -> None:
    runs = normalize_all([_by_user("by_user", "u1", "R0"), _by_reservation()])
    result = compiled(runs, name="book", reads=READS)
    held = normalize_all([_by_user("held", "u3", "R8")])  # the user's path; other: business
    assert [r.outcome for r in validate_package(result.package, held, reads=READS).rows] == [
        "matched"
    ]
    text = json.dumps(result.compiled.ir)
    for spec in _cabins(result.compiled.ir):  # forced to the coincidental source
        text = text.replace(json.dumps(spec), json.dumps({"ref": "other.cabin"}))
    wrong = dataclasses.replace(result.compiled, ir=json.loads(text))
    report = verify(wrong, runs + held, reads=READS)
    assert not report.ok
    assert {e.episode_id for e in report.unaccounted} >= {"by_reservation", "held"}


def test_a_stated_value_seen_in_one_run_is_the_stated_input() -> None:
    """The user said "economy"; the other reservation is economy too, in the path's only run
    and nowhere contradicted: the user's word, not the field."""
    runs = normalize_all([_by_user("by_user", "u1", "R0", " In economy."), _by_reservation()])
    result = compiled(runs, name="book", reads=READS)
    by_user = next(a for a in result.compiled.actions if a.tool == "book_reservation"
                   and "by_user" in a.at)  # fmt: skip
    cabin = next(c for c in by_user.choices if c.argument == "cabin")
    assert (cabin.how, cabin.stated) == ("input", True), cabin


def test_the_same_call_is_the_same_tool_after_the_same_writes() -> None:
    """The booking of the run from the reservation is the same call as the user's run's
    booking; a run that also cancels makes other writes, and its booking is not compared."""
    also = AgentBuilder("also_cancels", inputs={"user_id": "u3"})
    also.call("get_reservation_details", RESERVATIONS["R8"], store="other", reservation_id="R8")
    also.call("book_reservation", {"ok": True}, store="booked", user_id="u3", origin="ATL",
              destination="PHL", cabin="economy")  # fmt: skip
    also.call("cancel_reservation", {"ok": True}, store="c", reservation_id="R8")
    runs = normalize_all([_by_user("by_user", "u1", "R0"), _by_reservation(), also.done(True)])
    same = SameCalls(runs, read_only_of(None))
    found = same("by_user", 2, ["by_user"])
    assert [s.arguments["user_id"] for s in found] == ["u2"]
    assert contradicted("other.cabin", "cabin", found)
    assert not contradicted("other.origin", "origin", found)
    assert same("by_user", 0, []) == []  # no other run looks the user up first
