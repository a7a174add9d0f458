"""The object a call acts on (issue 24, "lineage that means it"): a call whose id argument
names an object read earlier (``update_reservation_flights(reservation_id=...)`` after
``get_reservation_details`` of that reservation) takes a value equal to a field of *that*
object from it, over equal values other objects looked up happen to hold (the airline
results file's ``update_reservation_flights+cancel_reservation`` runs: every reservation of
the user was economy and paid with one card); a field of another object of the same shape that
only coincides, where the acted-on object holds another value, is never a ref."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import compile_behavior, validate_package
from jdsl.compiler.verify import verify

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


class _Agent(EpisodeBuilder):
    def call(self, tool: str, result: Any = None, **kwargs: Any) -> EpisodeBuilder:
        return super().call(tool, result, node_id="agent", node_type="react", **kwargs)


def _reservation(rid: str, cabin: str, pay: str) -> dict[str, Any]:
    return {"reservation_id": rid, "origin": "ATL", "destination": "PHL", "cabin": cabin,
            "payment_history": [{"payment_id": pay, "amount": 300}]}  # fmt: skip


def _run(
    i: int, *, target_last: bool, other_cabin: str = "economy", other_pay: str = "",
    target_cabin: str = "economy", new_cabin: str = "economy",
) -> dict[str, Any]:  # fmt: skip
    """User ``u<i>`` with three reservations; the second and third are read, the second is
    updated (read first or last), with the cabin and the card it holds."""
    ids = [f"R{i}X{k}Q" for k in range(3)]
    card = f"credit_card_{4000 + i}"
    user = {"user_id": f"u{i}", "reservations": ids, "payment_methods": {card: {"id": card}}}
    target = _reservation(ids[1], target_cabin, card)
    other = _reservation(ids[2], other_cabin, other_pay or card)
    b = _Agent(f"ep{i}", inputs={"user_id": f"u{i}"}, task_id=f"t{i}")
    b.call("get_user_details", user, store="user", user_id=f"u{i}")
    order = [("other", other), ("target", target)]
    for store, details in order if target_last else order[::-1]:
        b.call("get_reservation_details", details, store=store,
               reservation_id=details["reservation_id"])  # fmt: skip
    b.call("update_reservation_flights", {"ok": True}, reservation_id=ids[1], cabin=new_cabin,
           payment_id=card)  # fmt: skip
    return b.done(True)


def _refs(result: Any) -> dict[str, Any]:
    update = next(a for a in result.compiled.actions if a.tool == "update_reservation_flights")
    return {c.argument: c.spec for c in update.choices}


@pytest.mark.parametrize("target_last", [True, False])
def test_a_field_of_the_reservation_updated_wins(target_last: bool) -> None:
    result = compile_behavior([_run(i, target_last=target_last) for i in range(3)], name="upd")
    refs = _refs(result)
    assert refs["reservation_id"] == {"ref": "target.reservation_id"}, refs
    assert refs["cabin"] == {"ref": "target.cabin"}, refs
    assert str(refs["payment_id"].get("ref")).startswith("target.payment_history["), refs
    assert result.ok, result.report().text
    held = _run(7, target_last=target_last, other_cabin="business", other_pay="gift_card_9")
    (row,) = validate_package(result.package, [held]).rows
    assert row.served and row.matched, row.to_dict()


def test_a_coincidence_with_another_reservation_is_not_a_ref() -> None:
    """One run: the reservation updated was basic economy and moves to economy, the other
    reservation happens to be economy; the new cabin is the model's choice, not the other
    reservation's cabin."""
    run = _run(0, target_last=False, target_cabin="basic_economy")
    refs = _refs(compile_behavior([run], name="upd"))
    assert refs["reservation_id"] == {"ref": "target.reservation_id"}, refs
    assert "other" not in str(refs["cabin"]) and "other" not in str(refs["payment_id"]), refs


def test_payment_from_the_wrong_reservation_fails_verification() -> None:
    """Where the reservations differ, a package that takes the payment id from the other
    reservation makes another write: verification catches it."""
    runs = [_run(i, target_last=False, other_cabin="business", other_pay=f"gift_card_{i}")
            for i in range(3)]  # fmt: skip
    result = compile_behavior(runs, name="upd")
    assert result.ok, result.report().text
    right = str(_refs(result)["payment_id"]["ref"])
    assert right.startswith("target.payment_history["), right
    text = json.dumps(result.compiled.ir)  # the write and the guard that checks its value
    element = right.removesuffix(".payment_id")
    for wrong, kinds in (
        (element.replace("target.", "other."), {"model"}),  # no element of it holds the card
        ("other.payment_history[0]", {"write"}),  # the other reservation's card
    ):
        wrong_ir = json.loads(text.replace(element, wrong))
        if "$" not in wrong:  # nothing asks for the index any more
            wrong_ir = _without_predict(wrong_ir, "-> payment_index:")
        report = verify(dataclasses.replace(result.compiled, ir=wrong_ir), result.normalized)
        assert not report.ok and report.matched == 0, (wrong, report)
        assert {d.kind for d in report.divergences} == kinds, report.divergences


def _without_predict(node: Any, writes: str) -> Any:
    """``node`` without the predict leaves whose signature contains ``writes``."""
    if isinstance(node, list):
        return [_without_predict(n, writes) for n in node
                if not (isinstance(n, dict) and n.get("kind") == "predict"
                        and writes in str(n.get("signature")))]  # fmt: skip
    if isinstance(node, dict):
        return {k: _without_predict(v, writes) for k, v in node.items()}
    return node
