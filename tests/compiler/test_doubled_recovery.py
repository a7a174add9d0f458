"""The same runs given twice never serve fewer (fresh7 finding 0, family
``airline.update_reservation_flights+transfer_to_human_agents`` of the shipped airline file).

One run tried a payment the user named (a card of their profile: failed), looked the profile
up, and paid with the reservation's own payment instead; another run paid that way at once.
Given once, the failed try is one run's (a recovery with support 1, not compiled) and the
program serves both. Given twice, the "recovery" (the write fails -> look the user up) has two
supporting runs and was compiled at every support bar the compile retries, so the program's
first write had to be the failed one, whose payment no source of the program holds, and the
family served none. Recoveries, like paths, need the support bar the compile is at.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import normalize_all

sys.path.insert(0, str(Path(__file__).parent))
from events import AgentBuilder, compiled  # noqa: E402

RESERVATION = {
    "reservation_id": "1N99U6", "user_id": "james_7043", "cabin": "economy",
    "payment_history": [{"payment_id": "gift_card_56", "amount": 300}],
}  # fmt: skip
USER = {"user_id": "james_7043",
        "payment_methods": {"credit_card_56": {"id": "credit_card_56"},
                            "gift_card_56": {"id": "gift_card_56"},
                            "certificate_93": {"id": "certificate_93"}}}  # fmt: skip


def _run(name: str, *, tries_card: bool) -> dict[str, Any]:
    said = ["Change my flight, reservation 1N99U6.", "Use my credit card on file."]
    b = AgentBuilder(name, inputs={"reservation_id": "1N99U6", "conversation": said})
    b.call("get_reservation_details", RESERVATION, store="reservation", reservation_id="1N99U6")
    update = {"reservation_id": "1N99U6", "cabin": "economy"}
    if tries_card:
        b.call("update_reservation_flights", error="payment method not found",
               payment_id="credit_card_56", **update)  # fmt: skip
        b.call("get_user_details", USER, store="user", user_id="james_7043")
        b.call("update_reservation_flights", error="payment method not found",
               payment_id="certificate_93", **update)  # fmt: skip
    b.call("update_reservation_flights", {"ok": True}, store="updated",
           payment_id="gift_card_56", **update)  # fmt: skip
    b.call("transfer_to_human_agents", "transferred", store="transferred", summary="bag refund")
    return b.done(True)


def _twice(runs: list[Any]) -> list[Any]:
    return [*runs, *(dataclasses.replace(e, episode_id=f"{e.episode_id}_again") for e in runs)]


def test_a_recovery_given_twice_serves_as_once() -> None:
    once = normalize_all([_run("tried", tries_card=True), _run("direct", tries_card=False)])
    base = compiled(once, name="update").verification
    assert base.ok and base.matched == 2
    twice = compiled(_twice(once), name="update").verification
    assert twice.ok, twice
    assert twice.matched == 4
