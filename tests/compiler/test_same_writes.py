"""Runs that make the same writes but look things up differently are one family of paths
(issue 24, "reads are free"): where every path is too thin to branch alone (one run each) but
the writes they share have the support, the program follows each path behind a route decision
where they part, and that decision may answer that none fits, handing the run to the fallback
(a run that makes other writes). The shapes are those of the airline results file's
``update_reservation_flights`` family (one run starts from the user and picks a reservation,
one from the reservation the user names, a third downgrades every reservation) and of its
``update_reservation_flights+cancel_reservation`` and task-24 families."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_normalized, normalize_all, validate_package
from jdsl.compiler.consolidate import consolidate
from jdsl.compiler.decisions import OTHER_ROUTE
from jdsl.compiler.fallback import attach_fallback, compiled_program
from jdsl.compiler.lookups import initial_lookups
from jdsl.compiler.staticize import staticize
from jdsl.compiler.verify import verify

sys.path.insert(0, str(Path(__file__).parent))
from events import AgentBuilder, EpisodeBuilder, compiled, nodes  # noqa: E402

USERS = {
    "u1": {"user_id": "u1", "reservations": ["R0", "R1"]},
    "u2": {"user_id": "u2", "reservations": ["R4", "R5"]},
    "u3": {"user_id": "u3", "reservations": ["R8", "R9"]},
}


def _reservation(rid: str, user: str, cabin: str, dates: list[str], pay: str) -> dict[str, Any]:
    flights = [{"flight_number": f"HX{rid[1:]}{k}", "date": d, "origin": "ATL",
                "destination": "PHL", "price": 100} for k, d in enumerate(dates)]  # fmt: skip
    return {"reservation_id": rid, "user_id": user, "origin": "ATL", "destination": "PHL",
            "cabin": cabin, "flights": flights,
            "payment_history": [{"payment_id": pay, "amount": 100 * len(dates)}]}  # fmt: skip


RESERVATIONS = {
    "R0": _reservation("R0", "u1", "economy", ["2024-05-17"], "card_10"),
    "R1": _reservation("R1", "u1", "business", ["2024-05-20"], "card_11"),
    "R4": _reservation("R4", "u2", "business", ["2024-05-18"], "gift_24"),
    "R5": _reservation("R5", "u2", "economy", ["2024-05-19", "2024-05-27"], "gift_25"),
    "R8": _reservation("R8", "u3", "business", ["2024-05-21"], "card_38"),
    "R9": _reservation("R9", "u3", "business", ["2024-05-22", "2024-05-23"], "card_39"),
}
READS = initial_lookups({"get_user_details": ("user_id", USERS),
                         "get_reservation_details": ("reservation_id", RESERVATIONS)})  # fmt: skip


def _found(date: str, *numbers: str) -> list[dict[str, Any]]:
    return [{"flight_number": n, "date": date, "origin": "ATL", "destination": "PHL",
             "prices": {"economy": 120}} for n in numbers]  # fmt: skip


def _legs(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"flight_number": n, "date": d} for n, d in pairs]


def _by_user() -> dict[str, Any]:
    """From the user: their second reservation, new one-stop flights on a date they say."""
    b = AgentBuilder("by_user", inputs={"user_id": "u1"})
    b.emit("user.message", {"content": "I am u1. Move my trip to 2024-05-24, in economy."})
    b.call("get_user_details", USERS["u1"], store="user", user_id="u1")
    b.call("get_reservation_details", RESERVATIONS["R1"], store="res", reservation_id="R1")
    b.call("search_onestop_flight", _found("2024-05-24", "HX70", "HX71"), store="found",
           origin="ATL", destination="PHL", date="2024-05-24")  # fmt: skip
    b.call("update_reservation_flights", {"ok": True}, store="upd", reservation_id="R1",
           cabin="economy", flights=_legs(("HX70", "2024-05-24"), ("HX71", "2024-05-24")),
           payment_id="card_11")  # fmt: skip
    return b.done(True)


def _by_reservation() -> dict[str, Any]:
    """From the reservation the user names: a direct flight on its first leg's date, the
    second leg kept."""
    b = AgentBuilder("by_reservation", inputs={"user_id": "u2"})
    b.emit("user.message", {"content": "My reservation is R5; change the first flight."})
    b.call("get_reservation_details", RESERVATIONS["R5"], store="res", reservation_id="R5")
    b.call("search_direct_flight", _found("2024-05-19", "HX90"), store="found",
           origin="ATL", destination="PHL", date="2024-05-19")  # fmt: skip
    b.call("update_reservation_flights", {"ok": True}, store="upd", reservation_id="R5",
           cabin="economy", flights=_legs(("HX90", "2024-05-19"), ("HX51", "2024-05-27")),
           payment_id="gift_25")  # fmt: skip
    return b.done(True)


def _downgrade_all() -> dict[str, Any]:
    """Every reservation of the user to economy, flights unchanged: two writes."""
    b = AgentBuilder("downgrade_all", inputs={"user_id": "u3"})
    b.emit("user.message", {"content": "I am u3: downgrade all my flights to economy."})
    b.call("get_user_details", USERS["u3"], store="user", user_id="u3")
    for rid in ("R8", "R9"):
        b.call("get_reservation_details", RESERVATIONS[rid], store=f"res_{rid}",
               reservation_id=rid)  # fmt: skip
    for rid in ("R8", "R9"):
        legs = [(f["flight_number"], f["date"]) for f in RESERVATIONS[rid]["flights"]]
        b.call("update_reservation_flights", {"ok": True}, store=f"upd_{rid}", reservation_id=rid,
               cabin="economy", flights=_legs(*legs),
               payment_id=RESERVATIONS[rid]["payment_history"][0]["payment_id"])  # fmt: skip
    return b.done(True)


def _updates(ir: dict[str, Any]) -> list[dict[str, Any]]:
    return nodes(ir, tool="update_reservation_flights")


def test_thin_paths_with_the_same_write_are_served_and_the_other_run_falls_back() -> None:
    runs = normalize_all([_by_user(), _by_reservation(), _downgrade_all()])
    result = compiled(runs, name="update_flights", reads=READS)
    v = result.verification
    assert (v.executed, v.matched, v.fallbacks, v.unreplayable) == (3, 2, 1, 0)
    (other,) = [e for e in v.executions if e.fallback is not None]
    assert other.episode_id == "downgrade_all" and other.fallback.writes_done == 0
    program = compiled_program(result.ir)
    routes = [
        n for n in nodes(program, kind="predict") if f'"{OTHER_ROUTE}"' in str(n["signature"])
    ]
    assert len(routes) == 1, result.report().text  # where the paths part: pick one, or none
    # each path's update: the reservation acted on is a ref, the new flights a model choice
    for action in _updates(program):
        assert action["args"]["reservation_id"] == {"ref": "res.reservation_id"}
        flights = action["args"]["flights"]
        assert set(flights) == {"ref"} and "[" not in flights["ref"], flights


def test_a_wrong_flights_argument_is_caught() -> None:
    runs = normalize_all([_by_user(), _by_reservation(), _downgrade_all()])
    result = compile_normalized(runs, name="update_flights", reads=READS)
    assert result.ok
    chosen = {a["args"]["flights"]["ref"] for a in _updates(result.compiled.ir)}
    assert chosen == {"flights"}  # the model's choice, on each path (one name: no run has both)
    # the flights the reservation had instead of the new ones the model chose (the choices
    # left out: the package makes the write with the old flights)
    text = json.dumps(_without_predicts(result.compiled.ir, chosen))
    for key in chosen:  # in the write and in the guard that checks its values exist
        text = text.replace(json.dumps({"ref": key}), json.dumps({"ref": "res.flights"}))
        text = text.replace(json.dumps({"exists": key}), json.dumps({"exists": "res.flights"}))
        text = text.replace(f", {key}, ", ", ")  # a later predict reads it too
    wrong_ir = json.loads(text)
    report = verify(dataclasses.replace(result.compiled, ir=wrong_ir), result.normalized,
                    reads=READS)  # fmt: skip
    assert not report.ok
    assert {e.episode_id for e in report.unaccounted} == {"by_user", "by_reservation"}
    assert {d.kind for d in report.divergences} == {"write"}  # a different write, not unknown


def _without_predicts(node: Any, outputs: set[str]) -> Any:
    """``node`` without the predict leaves that write one of ``outputs``."""
    if isinstance(node, list):
        return [_without_predicts(n, outputs) for n in node
                if not (isinstance(n, dict) and n.get("kind") == "predict"
                        and str(n.get("signature")).split(" -> ")[-1].split(":")[0] in outputs)]  # fmt: skip
    if isinstance(node, dict):
        return {k: _without_predicts(v, outputs) for k, v in node.items()}
    return node


def _cancel_runs() -> list[dict[str, Any]]:
    """Update one named reservation, then cancel both named ones: one run looks another
    reservation of the user up first and cancels the two one after the other, the other looks
    it up between the cancels (the airline file's update_reservation_flights+cancel_reservation
    runs part the same way)."""
    runs = []
    for k, between in enumerate((False, True)):
        b = EpisodeBuilder(f"cancel_{k}", inputs={"user_id": "u2"})
        b.emit("user.message", {"content": "Cancel R4 and R5; first move R4 to economy."})
        b.call("get_reservation_details", RESERVATIONS["R4"], store="res", reservation_id="R4")
        b.call("get_reservation_details", RESERVATIONS["R5"], store="res_2", reservation_id="R5")
        b.call("get_user_details", USERS["u2"], store="user", user_id="u2")
        if not between:
            b.call("get_reservation_details", RESERVATIONS["R0"], store="res_3",
                   reservation_id="R0")  # fmt: skip
        legs = [(f["flight_number"], f["date"]) for f in RESERVATIONS["R4"]["flights"]]
        b.call("update_reservation_flights", {"ok": True}, store="upd", reservation_id="R4",
               cabin="economy", flights=_legs(*legs), payment_id="gift_24")  # fmt: skip
        b.call("cancel_reservation", {"ok": True}, store="c1", reservation_id="R4")
        if between:
            b.call("get_reservation_details", RESERVATIONS["R0"], store="res_3",
                   reservation_id="R0")  # fmt: skip
        b.call("cancel_reservation", {"ok": True}, store="c2", reservation_id="R5")
        runs.append(b.done(True))
    return runs


def test_thin_paths_parting_between_two_cancels_serve_both_runs() -> None:
    runs = normalize_all(_cancel_runs())
    result = compiled(runs, name="cancel", reads=READS)
    v = result.verification
    assert (v.executed, v.matched, v.fallbacks) == (2, 2, 0), result.report().text
    # the paths as routed alternatives (what the airline runs compile to): they meet again at
    # the last cancel, a loop whose selection is not the one the second path made before it
    routed = attach_fallback(staticize(runs, consolidate(runs), name="cancel",
                                       same_writes=True), runs)  # fmt: skip
    selections = [n["items"] for n in nodes(routed.ir, kind="for_each")]
    assert len(selections) == len(set(selections)) == 2, selections
    report = verify(routed, runs, reads=READS)
    assert (report.ok, report.matched) == (True, 2), report.problems


def _mixed_task() -> list[dict[str, Any]]:
    """Airline task 24's shape: two runs only look things up (from the user, or from the
    reservation the user names; one calculates once, the other twice), the third transfers."""
    one = AgentBuilder("from_user", inputs={"user_id": "u2"})
    one.emit("user.message", {"content": "I am u2, about reservation R5: what would 2+3 cost?"})
    one.call("get_user_details", USERS["u2"], store="user", user_id="u2")
    one.call("get_reservation_details", RESERVATIONS["R5"], store="res", reservation_id="R5")
    one.call("calculate", 5, store="sum", expression="2 + 3")
    two = AgentBuilder("from_reservation", inputs={"user_id": "u2"})
    two.emit("user.message", {"content": "About reservation R5: what would 2+3 and 5-1 cost?"})
    two.call("get_reservation_details", RESERVATIONS["R5"], store="res", reservation_id="R5")
    two.call("calculate", 5, store="sum", expression="2 + 3")
    two.call("calculate", 4, store="sum_2", expression="5 - 1")
    three = AgentBuilder("transfer", inputs={"user_id": "u2"})
    three.emit("user.message", {"content": "About reservation R5: I want a human."})
    three.call("get_reservation_details", RESERVATIONS["R5"], store="res", reservation_id="R5")
    three.call("transfer_to_human_agents", "ok", store="t", summary="wants a human")
    return [one.done(True), two.done(True), three.done(True)]


def test_a_task_mixing_intents_serves_the_runs_that_share_their_writes() -> None:
    result = compiled(normalize_all(_mixed_task()), name="task_24", reads=READS)
    v = result.verification
    assert (v.executed, v.matched, v.fallbacks, v.unreplayable) == (3, 2, 1, 0)
    (handed,) = [e.episode_id for e in v.executions if e.fallback is not None]
    assert handed == "transfer"


def _held_out(name: str, search: str | None) -> dict[str, Any]:
    """A new run of the update: from the user, then the flights searched ``search`` way."""
    b = AgentBuilder(name, inputs={"user_id": "u2"})
    b.emit("user.message", {"content": "I am u2. Change the first flight of R5."})
    b.call("get_user_details", USERS["u2"], store="user", user_id="u2")
    b.call("get_reservation_details", RESERVATIONS["R5"], store="res", reservation_id="R5")
    if search is not None:
        b.call(search, _found("2024-05-19", "HX91"), store="found",
               origin="ATL", destination="PHL", date="2024-05-19")  # fmt: skip
    b.call("update_reservation_flights", {"ok": True}, store="upd", reservation_id="R5",
           cabin="economy", flights=_legs(("HX91", "2024-05-19"), ("HX51", "2024-05-27")),
           payment_id="gift_25")  # fmt: skip
    return b.done(True)


def test_a_new_run_is_served_along_a_path_it_fits_and_else_handed_over() -> None:
    """A held-out run takes the compiled path whose calls it makes in order (extra reads
    allowed: it looked the user up first, then searched as the second path does); a run that
    searched neither way fits no path: the route answers ``other`` and the fallback takes it,
    instead of a path whose reads its record cannot answer (unreplayable)."""
    runs = normalize_all([_by_user(), _by_reservation(), _downgrade_all()])
    result = compile_normalized(runs, name="update_flights", reads=READS)
    held = normalize_all([_held_out("direct", "search_direct_flight"), _held_out("none", None)])
    report = validate_package(result.package, held, reads=READS)
    assert {r.episode_id: r.outcome for r in report.rows} == {
        "direct": "matched", "none": "fallback"
    }  # fmt: skip
