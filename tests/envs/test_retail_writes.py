"""One real task per write tool: the database changes it makes, derived by hand from TOOLS.md.

Each test replays the task's gold actions on a fresh episode and checks that exactly the records
named here changed, in exactly the fields named here (values worked out from the shipped data).
"""

from __future__ import annotations

from typing import Any

import pytest
from jdsl.envs.tau_retail import RetailEnv, gold_replay, load_tasks

FRESH = RetailEnv()


def _task(split: str, task_id: int) -> Any:
    return next(t for t in load_tasks(split) if t.task_id == task_id)


def _changes(env: RetailEnv, table: str, key: str) -> dict[str, Any]:
    """The fields of record ``key`` whose value differs from the shipped database."""
    before, after = FRESH.db.read(table, key), env.db.read(table, key)
    return {f: after.get(f) for f in before.keys() | after.keys() if before.get(f) != after.get(f)}


def _only_changed(env: RetailEnv, **expected: list[str]) -> None:
    changed = {t: ids for t, ids in env.db.changed_ids().items() if ids}
    assert changed == expected


def test_cancel_refunds_a_gift_card_payment_at_once() -> None:  # train 13, first action
    env = RetailEnv()
    env.step("cancel_pending_order", {"order_id": "#W7109609", "reason": "ordered by mistake"})
    _only_changed(env, orders=["#W7109609"], users=["emma_kovacs_5477"])
    refund = {
        "transaction_type": "refund",
        "amount": 1027.76,
        "payment_method_id": "gift_card_9246707",
    }
    assert _changes(env, "orders", "#W7109609") == {
        "status": "cancelled",
        "cancel_reason": "ordered by mistake",
        "payment_history": [{**refund, "transaction_type": "payment"}, refund],
    }
    card = env.db.read("users", "emma_kovacs_5477")["payment_methods"]["gift_card_9246707"]
    assert card["balance"] == 1123.76  # 96 + 1027.76
    assert list(env.db.read("orders", "#W7109609"))[-1] == "cancel_reason"  # appended last


def test_modify_pending_order_address_replaces_the_address_in_field_order() -> None:  # train 26
    env = RetailEnv()
    env.step(**_gold_call("train", 26, 0))
    address = {
        "address1": "411 Park Avenue",
        "address2": "Suite 987",
        "city": "Phoenix",
        "state": "AZ",
        "country": "USA",
        "zip": "85060",
    }
    assert _changes(env, "orders", "#W3386832") == {"address": address}
    assert list(env.db.read("orders", "#W3386832")["address"]) == list(address)
    _only_changed(env, orders=["#W3386832"])


def test_modify_user_address_replaces_the_users_address() -> None:  # test 33, last action
    env = RetailEnv()
    env.step(**_gold_call("test", 33, 5))
    assert _changes(env, "users", "noah_patel_6952") == {
        "address": {
            "address1": "517 Lakeview Drive",
            "address2": "Suite 183",
            "city": "Seattle",
            "state": "WA",
            "country": "USA",
            "zip": "98195",
        }
    }
    _only_changed(env, users=["noah_patel_6952"])


def test_modify_payment_away_from_a_gift_card_refunds_it() -> None:  # train 7, first action
    env = RetailEnv()
    env.step(
        "modify_pending_order_payment",
        {"order_id": "#W9318778", "payment_method_id": "credit_card_7862034"},
    )
    assert _changes(env, "orders", "#W9318778") == {
        "payment_history": [
            {
                "transaction_type": "payment",
                "amount": 3585.54,
                "payment_method_id": "gift_card_7728021",
            },
            {
                "transaction_type": "payment",
                "amount": 3585.54,
                "payment_method_id": "credit_card_7862034",
            },
            {
                "transaction_type": "refund",
                "amount": 3585.54,
                "payment_method_id": "gift_card_7728021",
            },
        ]
    }
    user_id = env.db.read("orders", "#W9318778")["user_id"]
    assert (
        env.db.read("users", user_id)["payment_methods"]["gift_card_7728021"]["balance"] == 3653.54
    )
    _only_changed(env, orders=["#W9318778"], users=[user_id])


def test_modify_items_charges_the_difference_to_a_gift_card() -> None:  # train 19, only action
    env = gold_replay(_task("train", 19))
    changes = _changes(env, "orders", "#W7147989")
    assert changes["status"] == "pending (item modified)"
    payment = changes["payment_history"][-1]
    assert (
        payment["transaction_type"] == "payment"
        and payment["payment_method_id"] == "gift_card_5917510"
    )
    assert payment["amount"] == pytest.approx(33.26)  # 986.65 - 953.39, not rounded
    grill = next(
        i for i in env.db.read("orders", "#W7147989")["items"] if i["product_id"] == "6819683148"
    )
    assert grill == {
        "name": "Grill",
        "product_id": "6819683148",
        "item_id": "5745575001",
        "price": 986.65,
        "options": {"type": "electric", "size": "portable", "features": "rotisserie"},
    }
    card = env.db.read("users", "ethan_sanchez_7289")["payment_methods"]["gift_card_5917510"]
    assert card["balance"] == 39.74  # 73 - 33.26
    _only_changed(env, orders=["#W7147989"], users=["ethan_sanchez_7289"])


def test_exchange_records_the_request_and_no_payment() -> None:  # train 6, only action
    env = gold_replay(_task("train", 6))
    assert _changes(env, "orders", "#W1504875") == {
        "status": "exchange requested",
        "exchange_items": ["9421195098"],
        "exchange_new_items": ["9799386954"],
        "exchange_payment_method_id": "paypal_6262583",
        "exchange_price_difference": -3.78,  # round(28.59 - 32.37, 2)
    }
    _only_changed(env, orders=["#W1504875"])


def test_return_records_sorted_items_and_the_method() -> None:  # train 0, only action
    env = gold_replay(_task("train", 0))
    assert _changes(env, "orders", "#W6067464") == {
        "status": "return requested",
        "return_items": ["8917609800", "9624127908"],
        "return_payment_method_id": "credit_card_4190576",
    }
    _only_changed(env, orders=["#W6067464"])


def test_a_write_returns_the_changed_record_as_json_text() -> None:
    env = RetailEnv()
    text = env.step(
        "return_delivered_order_items",
        {
            "order_id": "#W6067464",
            "item_ids": ["9624127908"],
            "payment_method_id": "credit_card_4190576",
        },
    )
    assert text == env.step("get_order_details", {"order_id": "#W6067464"})
    assert text.endswith(
        '"return_items": ["9624127908"], "return_payment_method_id": "credit_card_4190576"}'
    )


def _gold_call(split: str, task_id: int, index: int) -> dict[str, Any]:
    action = _task(split, task_id).actions[index]
    return {"name": action.name, "arguments": action.arguments}
