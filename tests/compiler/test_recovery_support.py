"""A recovery's calls are held to the family's other runs like every one-run source (issue 24,
"lineage that means it"; :mod:`jdsl.compiler.support`): the one run that failed a search and
searched the partner instead passed ``cabin`` equal to the cabin of an older reservation it had
looked up; the runs whose search worked passed the same cabin where that reservation's differs,
so the recovering call does not take the cabin from it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import normalize_all
from jdsl.compiler.lookups import initial_lookups
from jdsl.compiler.names import error_class
from jdsl.ir import from_ir
from jdsl.tree import Status

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder, compiled  # noqa: E402

USERS = {u: {"user_id": u, "name": f"User {u}"} for u in ("u1", "u2", "u3", "u4")}
RESERVATIONS = {
    rid: {"reservation_id": rid, "origin": "ATL", "destination": "PHL", "cabin": cabin}
    for rid, cabin in (
        ("R0", "economy"),
        ("R4", "business"),
        ("R8", "business"),
        ("R9", "basic"),
    )  # fmt: skip
}
READS = initial_lookups({"get_user_details": ("user_id", USERS),
                         "get_reservation_details": ("reservation_id", RESERVATIONS)})  # fmt: skip
DOWN = "search service unavailable"
CONTRACTS = {f"RECOVERY search_flights !{error_class(DOWN)} -> search_partner_flights": ["ops"]}
"""The operators' word that the partner search recovers the search (one run shows it)."""
FLIGHT = {"origin": "ATL", "destination": "PHL", "cabin": "economy"}


def _run(name: str, user: str, rid: str, *, search_fails: bool) -> dict[str, Any]:
    found = {"flight_number": f"HAT{user[1:]}"}
    b = EpisodeBuilder(name, inputs={"user_id": user, "reservation_id": rid, "cabin": "economy"})
    b.call("get_user_details", USERS[user], store="user", user_id=user)
    b.call("get_reservation_details", RESERVATIONS[rid], store="other", reservation_id=rid)
    if search_fails:
        b.call("search_flights", error=DOWN, store="flight", **FLIGHT)
        b.call("search_partner_flights", found, store="flight", **FLIGHT)
    else:
        b.call("search_flights", found, store="flight", **FLIGHT)
    b.call("book_reservation", {"ok": True}, store="booked", user_id=user,
           flight_number=found["flight_number"], **FLIGHT)  # fmt: skip
    return b.done(True)


def _compiled() -> Any:
    runs = normalize_all([_run("ok1", "u2", "R4", search_fails=False),
                          _run("ok2", "u3", "R8", search_fails=False),
                          _run("ok3", "u4", "R9", search_fails=False),
                          _run("down", "u1", "R0", search_fails=True)])  # fmt: skip
    result = compiled(runs, name="book", reads=READS, contracts=CONTRACTS, fallback=False)
    return result


def _tools(calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """A fresh world where the search is down; the user's older reservation is business."""

    def tool(name: str, result: Any) -> Any:
        def call(**kwargs: Any) -> Any:
            calls.append((name, kwargs))
            if name == "search_flights":
                raise ConnectionError(DOWN)
            return result(**kwargs) if callable(result) else result

        return call

    return {
        "get_user_details": tool("get_user_details", USERS["u2"]),
        "get_reservation_details": tool("get_reservation_details", RESERVATIONS["R4"]),
        "search_flights": tool("search_flights", None),
        "search_partner_flights": tool("search_partner_flights", {"flight_number": "HAT7"}),
        "book_reservation": tool("book_reservation", {"ok": True}),
    }


def test_a_coincidence_in_the_one_recovering_run_is_not_a_ref() -> None:
    result = _compiled()
    text = str(result.compiled.ir)
    assert "'ref': 'other.cabin'" not in text, text


def test_on_a_fresh_input_the_package_never_searches_the_old_reservation_s_cabin() -> None:
    """The teacher searches economy whatever the older reservation's cabin (business here)."""
    package = from_ir(_compiled().ir)
    calls: list[tuple[str, dict[str, Any]]] = []
    ctx = package.run(tools=_tools(calls), user_id="u2", reservation_id="R4", cabin="economy")
    searched = [kw.get("cabin") for name, kw in calls if name == "search_partner_flights"]
    assert "business" not in searched, calls
    if ctx.status is Status.SUCCESS:
        assert searched == ["economy"], calls
