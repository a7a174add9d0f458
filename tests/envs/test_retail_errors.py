"""Every failure text of TOOLS.md, each shown (by a database hash) to change nothing."""

from __future__ import annotations

from typing import Any

import pytest
from jdsl.envs.tau_retail import RetailEnv

Call = tuple[str, dict[str, Any]]

# order #W7602708: pending, one credit-card payment, owner juan_rossi_6696 (gift card balance 18)
# order #W6067464: delivered, paid by credit_card_4190576 (owner also has paypal_6213278)
# order #W7147989: pending, paid by gift_card_5917510; item 1120917161 is a Grill (product
#   6819683148, variant 5666020311 unavailable)
# order #W9318778: pending, paid by gift_card_7728021 (owner also has credit_card_7862034)
ITEMS = {
    "order_id": "#W7147989",
    "item_ids": ["1120917161"],
    "payment_method_id": "gift_card_5917510",
}
EXCHANGE = {
    "order_id": "#W6067464",
    "item_ids": ["9624127908"],
    "payment_method_id": "paypal_6213278",
}
ADDRESS = {
    "address1": "1 A St",
    "address2": "",
    "city": "X",
    "state": "NY",
    "country": "USA",
    "zip": "10001",
}

CASES: list[tuple[str, list[Call], Call, str]] = [
    (
        "email",
        [],
        ("find_user_id_by_email", {"email": "nobody@example.com"}),
        "Error: user not found",
    ),
    (
        "name_zip",
        [],
        ("find_user_id_by_name_zip", {"first_name": "Noah", "last_name": "Ito", "zip": "98178"}),
        "Error: user not found",
    ),
    ("user", [], ("get_user_details", {"user_id": "nobody_1"}), "Error: user not found"),
    ("order", [], ("get_order_details", {"order_id": "W6067464"}), "Error: order not found"),
    (
        "product",
        [],
        ("get_product_details", {"product_id": "9624127908"}),
        "Error: product not found",
    ),
    (
        "calc_chars",
        [],
        ("calculate", {"expression": "2 + x"}),
        "Error: invalid characters in expression",
    ),
    ("calc_eval", [], ("calculate", {"expression": "1 / 0"}), "Error: division by zero"),
    (
        "cancel_missing",
        [],
        ("cancel_pending_order", {"order_id": "#W0", "reason": "no longer needed"}),
        "Error: order not found",
    ),
    (
        "cancel_status",
        [],
        ("cancel_pending_order", {"order_id": "#W6067464", "reason": "no longer needed"}),
        "Error: non-pending order cannot be cancelled",
    ),
    (
        "cancel_reason",
        [],
        ("cancel_pending_order", {"order_id": "#W7602708", "reason": "changed my mind"}),
        "Error: invalid reason",
    ),
    (
        "address_status",
        [],
        ("modify_pending_order_address", {"order_id": "#W6067464", **ADDRESS}),
        "Error: non-pending order cannot be modified",
    ),
    (
        "user_address",
        [],
        ("modify_user_address", {"user_id": "nobody_1", **ADDRESS}),
        "Error: user not found",
    ),
    (
        "pay_status",
        [],
        (
            "modify_pending_order_payment",
            {"order_id": "#W6067464", "payment_method_id": "paypal_6213278"},
        ),
        "Error: non-pending order cannot be modified",
    ),
    (
        "pay_method",
        [],
        (
            "modify_pending_order_payment",
            {"order_id": "#W7602708", "payment_method_id": "paypal_1"},
        ),
        "Error: payment method not found",
    ),
    (
        "pay_one_payment",
        [
            (
                "modify_pending_order_payment",
                {"order_id": "#W9318778", "payment_method_id": "credit_card_7862034"},
            )
        ],
        (
            "modify_pending_order_payment",
            {"order_id": "#W9318778", "payment_method_id": "gift_card_7728021"},
        ),
        "Error: there should be exactly one payment for a pending order",
    ),
    (
        "pay_same",
        [],
        (
            "modify_pending_order_payment",
            {"order_id": "#W9318778", "payment_method_id": "gift_card_7728021"},
        ),
        "Error: the new payment method should be different from the current one",
    ),
    (
        "pay_gift",
        [],
        (
            "modify_pending_order_payment",
            {"order_id": "#W7602708", "payment_method_id": "gift_card_8893815"},
        ),
        "Error: insufficient gift card balance to pay for the order",
    ),
    (
        "items_status",
        [],
        ("modify_pending_order_items", {**EXCHANGE, "new_item_ids": ["4064702754"]}),
        "Error: non-pending order cannot be modified",
    ),
    (
        "items_count",
        [],
        (
            "modify_pending_order_items",
            {**ITEMS, "item_ids": ["1120917161", "1120917161"], "new_item_ids": ["5745575001"] * 2},
        ),
        "Error: 1120917161 not found",
    ),
    (
        "items_match",
        [],
        ("modify_pending_order_items", {**ITEMS, "new_item_ids": []}),
        "Error: the number of items to be exchanged should match",
    ),
    (
        "items_available",
        [],
        ("modify_pending_order_items", {**ITEMS, "new_item_ids": ["5666020311"]}),
        "Error: new item 5666020311 not found or available",
    ),
    (
        "items_method",
        [],
        (
            "modify_pending_order_items",
            {**ITEMS, "new_item_ids": ["5745575001"], "payment_method_id": "paypal_1"},
        ),
        "Error: payment method not found",
    ),
    (
        "items_gift",
        [],
        (
            "modify_pending_order_items",
            {
                "order_id": "#W6151519",
                "item_ids": ["7658724607", "9132333852", "4107812777"],
                "new_item_ids": ["9665000388", "4064702754", "9635758562"],
                "payment_method_id": "gift_card_5193172",
            },
        ),
        "Error: insufficient gift card balance to pay for the new item",
    ),
    (
        "exchange_status",
        [],
        ("exchange_delivered_order_items", {**ITEMS, "new_item_ids": ["5745575001"]}),
        "Error: non-delivered order cannot be exchanged",
    ),
    (
        "exchange_item",
        [],
        (
            "exchange_delivered_order_items",
            {**EXCHANGE, "item_ids": ["1"], "new_item_ids": ["4064702754"]},
        ),
        "Error: 1 not found",
    ),
    (
        "exchange_available",
        [],
        ("exchange_delivered_order_items", {**EXCHANGE, "new_item_ids": ["8142779083"]}),
        "Error: new item 8142779083 not found or available",
    ),
    (
        "exchange_gift",
        [],
        (
            "exchange_delivered_order_items",
            {
                "order_id": "#W4352605",
                "item_ids": ["2216662955"],
                "new_item_ids": ["6056040996"],
                "payment_method_id": "gift_card_1401311",
            },
        ),
        "Error: insufficient gift card balance to pay for the price difference",
    ),
    (
        "return_status",
        [],
        ("return_delivered_order_items", {**ITEMS}),
        "Error: non-delivered order cannot be returned",
    ),
    (
        "return_method",
        [],
        ("return_delivered_order_items", {**EXCHANGE, "payment_method_id": "gift_card_1"}),
        "Error: payment method not found",
    ),
    (
        "return_original",
        [],
        ("return_delivered_order_items", {**EXCHANGE}),
        "Error: payment method should be either the original payment method or a gift card",
    ),
    (
        "return_items",
        [],
        (
            "return_delivered_order_items",
            {
                **EXCHANGE,
                "item_ids": ["9624127908"] * 2,
                "payment_method_id": "credit_card_4190576",
            },
        ),
        "Error: some item not found",
    ),
    (
        "bad_argument_name",
        [],
        ("get_user_details", {"user": "x"}),
        "Error: get_user_details() got an unexpected keyword argument 'user'",
    ),
    (
        "missing_argument",
        [],
        ("cancel_pending_order", {"order_id": "#W7602708"}),
        "Error: cancel_pending_order() missing 1 required positional argument: 'reason'",
    ),
    (
        "bad_argument_type",
        [],
        (
            "return_delivered_order_items",
            {**EXCHANGE, "item_ids": 5, "payment_method_id": "credit_card_4190576"},
        ),
        "Error: 'int' object is not iterable",
    ),
    ("unknown_tool", [], ("refund_everything", {}), "Unknown action refund_everything"),
]


@pytest.mark.parametrize(
    ("setup", "call", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_failing_call_returns_the_benchmark_text_and_changes_nothing(
    setup: list[Call], call: Call, expected: str
) -> None:
    env = RetailEnv()
    for name, arguments in setup:
        assert not env.step(name, arguments).startswith("Error")
    before = env.db_hash()
    assert env.step(*call) == expected
    assert env.db_hash() == before
    assert env.history[-1].failed


def test_the_database_hash_sees_a_change() -> None:
    env = RetailEnv()
    before = env.db_hash()
    env.step("cancel_pending_order", {"order_id": "#W7602708", "reason": "no longer needed"})
    assert env.db_hash() != before


def test_an_exception_midway_through_a_write_leaves_no_partial_edit() -> None:
    env = RetailEnv()
    # a gift card refund of an order whose owner lost that gift card: the edit of the order is
    # already made when the user look-up fails, and the transaction must drop it
    with env.db.transaction():
        env.db.edit("users", "ethan_sanchez_7289")["payment_methods"].clear()
    before = env.db_hash()
    result = env.step(
        "cancel_pending_order", {"order_id": "#W7147989", "reason": "no longer needed"}
    )
    assert result == "Error: 'gift_card_5917510'"
    assert env.db.read("orders", "#W7147989")["status"] == "pending"
    assert env.db_hash() == before
