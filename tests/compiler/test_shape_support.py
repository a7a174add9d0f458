"""Where two ways meet again is decided with the family's other runs too (issue 24, "lineage
that means it"; :mod:`jdsl.compiler.support`): the one run that found the user by email looked
up an older reservation whose cabin happens to equal the cabin it booked; the run that found the
user by name booked the same cabin where its older reservation's differs. The booking after the
two lookups reads alike in both ways (the user's cabin), so the ways meet before it and the
lookups are selected by the inputs the run has, not by a route a model is asked."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import normalize_all
from jdsl.compiler.lookups import initial_lookups

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder, compiled, nodes  # noqa: E402

USERS = {u: {"user_id": u, "name": f"User {u}", "email": f"{u}@example.com"} for u in ("u1", "u2")}
RESERVATIONS = {
    rid: {"reservation_id": rid, "origin": "ATL", "destination": "PHL", "cabin": cabin}
    for rid, cabin in (("R0", "economy"), ("R4", "business"))
}
READS = initial_lookups({"get_user_details": ("user_id", USERS),
                         "get_reservation_details": ("reservation_id", RESERVATIONS)})  # fmt: skip


def _run(name: str, user: str, rid: str, *, by: str) -> dict[str, Any]:
    b = EpisodeBuilder(name, inputs={"reservation_id": rid, by: USERS[user][by]})
    if by == "email":
        b.call("find_user_by_email", user, store="user_id", email=USERS[user]["email"])
    else:
        b.call("find_user_by_name", {"user_id": user}, store="found", name=USERS[user]["name"])
        b.call("check_user", user, store="user_id", user_id=user)
    b.call("get_user_details", USERS[user], store="user", user_id=user)
    b.call("get_reservation_details", RESERVATIONS[rid], store="other", reservation_id=rid)
    b.call("book_reservation", {"ok": True}, store="booked", user_id=user, origin="ATL",
           destination="PHL", cabin="economy")  # fmt: skip
    return b.done(True)


def _compiled() -> Any:
    runs = normalize_all([_run("by_email", "u1", "R0", by="email"),
                          _run("by_name", "u2", "R4", by="name")])  # fmt: skip
    result = compiled(runs, name="book", reads=READS, fallback=False, min_support=1)
    return result


def test_the_ways_meet_before_a_call_a_one_run_coincidence_alone_told_apart() -> None:
    result = _compiled()
    books = nodes(result.ir, tool="book_reservation")
    assert len(books) == 1, books  # one booking after the ways meet
    assert books[0]["args"]["cabin"] != {"ref": "other.cabin"}
    assert not nodes(result.ir, kind="predict")  # no route a model is asked
    assert (result.verification.executed, result.verification.matched) == (2, 2)
