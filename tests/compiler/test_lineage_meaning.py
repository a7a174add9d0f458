"""Lineage that means it (issue 24): among the exact sources of an argument, a field of the
object the call acts on wins (the payment id of the reservation being updated, not of the first
reservation looked up that happened to hold an equal value), then the most recent one; a path
that freezes a value as a dict key (``user.payment_methods.gift_card_8887175.id``) is never a
ref (docs/design.md §6)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _run(i: int, *, same_payment: bool, card: int = 9000) -> dict[str, Any]:
    ids = [f"R{i}A{k}Z" for k in range(3)]
    pay = f"gift_card_{card + i}"
    other = pay if same_payment else f"credit_card_{7000 + i}"
    b = EpisodeBuilder(f"ep{i}", inputs={"user_id": f"u{i}"}, task_id=f"t{i}")
    user = {"reservations": ids, "payment_methods": {pay: {"id": pay}, other: {"id": other}}}
    b.call("get_user", user, store="user", node_id="agent", node_type="react", user_id=f"u{i}")
    for store, rid, paid in (("first", ids[2], other), ("target", ids[0], pay)):
        details = {"reservation_id": rid, "payment_history": [{"payment_id": paid}]}
        b.call("get_reservation", details, store=store, node_id="agent", node_type="react",
               reservation_id=rid)  # fmt: skip
    b.call("update_reservation", {"ok": True}, node_id="agent", node_type="react",
           reservation_id=ids[0], payment_id=pay)  # fmt: skip
    return b.done(True)


def _refs(result: Any) -> dict[str, str]:
    update = next(a for a in result.compiled.actions if a.tool == "update_reservation")
    return {c.argument: str(c.spec.get("ref")) for c in update.choices}


def test_the_payment_comes_from_the_reservation_being_updated() -> None:
    runs = [_run(i, same_payment=True) for i in range(3)]
    result = compile_behavior(runs, name="update")
    refs = _refs(result)
    assert refs["reservation_id"] == "target.reservation_id"
    assert refs["payment_id"].startswith("target.payment_history["), refs
    assert result.ok, result.report().text


def test_a_dict_key_holding_the_value_is_not_a_ref() -> None:
    runs = [_run(i, same_payment=False, card=9000 - i) for i in range(2)]  # one card id
    refs = _refs(compile_behavior(runs, name="update"))
    assert "gift_card" not in refs["payment_id"] and "payment_methods" not in refs["payment_id"]


def test_the_recorded_lineage_names_the_acted_on_record() -> None:
    """The best source a normalized step records (``arg_lineage``: what ``show --diff`` prints,
    what unused reads and loops follow) is the ranked one, not the first equal value: the
    payment id of the reservation updated, read after another reservation holding the same id
    (tau_airline_test_2_2, X7BYG1 paid like JG7FMM)."""
    from jdsl.compiler.normalize import normalize_episode

    step = normalize_episode(_run(0, same_payment=True)).steps[-1]
    assert step.arg_lineage["reservation_id"] == "target.reservation_id"
    assert step.arg_lineage["payment_id"].startswith("target.payment_history["), step.arg_lineage


def test_a_coincidence_is_no_recorded_lineage() -> None:
    """A field of another object whose counterpart in the acted-on object holds another value
    (the new cabin equal to another reservation's) is no recorded source."""
    from jdsl.compiler.normalize import normalize_episode

    b = EpisodeBuilder("ep", inputs={"user_id": "u"}, task_id="t")
    for store, rid, cabin in (("other", "R1A", "economy"), ("target", "R2B", "business")):
        b.call("get_reservation", {"reservation_id": rid, "cabin": cabin}, store=store,
               node_id="agent", node_type="react", reservation_id=rid)  # fmt: skip
    b.call("update_reservation", {"ok": True}, node_id="agent", node_type="react",
           reservation_id="R2B", cabin="economy")  # fmt: skip
    step = normalize_episode(b.done(True)).steps[-1]
    assert "cabin" not in step.arg_lineage, step.arg_lineage


def test_each_iteration_reads_its_own_records_payment() -> None:
    """Updates over every reservation, two paid with one card (the loop of tau_airline_test_2_2):
    each update's recorded payment source is its own reservation's record, the later one too."""
    from jdsl.compiler.normalize import normalize_episode

    paid = {"R1A": "credit_card_1", "R2B": "gift_card_2", "R3C": "credit_card_1"}
    b = EpisodeBuilder("ep", inputs={"user_id": "u"}, task_id="t")
    for n, (rid, card) in enumerate(paid.items()):
        details = {"reservation_id": rid, "payment_history": [{"payment_id": card}]}
        b.call("get_reservation", details, store=f"res{n}", node_id="agent", node_type="react",
               reservation_id=rid)  # fmt: skip
    for rid, card in paid.items():
        b.call("update_reservation", {"ok": True}, node_id="agent", node_type="react",
               reservation_id=rid, payment_id=card)  # fmt: skip
    updates = normalize_episode(b.done(True)).steps[3:]
    assert [s.arg_lineage["payment_id"] for s in updates] == [
        f"res{n}.payment_history[0].payment_id" for n in range(3)
    ]
