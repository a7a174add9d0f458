"""The retail write tools, written from ``tau_retail/TOOLS.md`` (tau-bench v1 behaviour).

Each runs inside one :class:`~jdsl.envs.tau_retail.store.RetailState` transaction: it reads with
``db.read``, runs every check of TOOLS.md in its order (the first failing one raises
:class:`~jdsl.envs.tau_retail.reads.RetailFailure`), then edits through ``db.edit`` and returns
the changed record's JSON text. Payment methods count as gift cards by ``source == "gift_card"``
for balance checks and by ``"gift_card" in id`` for refunds, as the benchmark does.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from jdsl.envs.tau_retail.reads import RetailFailure, tool_table
from jdsl.envs.tau_retail.store import RetailState

__all__ = ["CANCEL_REASONS", "WRITE_TOOLS"]

CANCEL_REASONS = ("no longer needed", "ordered by mistake")


# -- checks -------------------------------------------------------------------------------------


def _order(db: RetailState, order_id: str) -> Any:
    if not db.has("orders", order_id):
        raise RetailFailure("order not found")
    return db.read("orders", order_id)


def _require_status(order: Any, status: str, verb: str) -> None:
    if order["status"] != status:
        raise RetailFailure(f"non-{status} order cannot be {verb}")


def _owner_method(db: RetailState, order: Any, payment_method_id: str) -> Any:
    methods = db.read("users", order["user_id"])["payment_methods"]
    if payment_method_id not in methods:
        raise RetailFailure("payment method not found")
    return methods[payment_method_id]


def _check_multiplicity(order: Any, item_ids: Sequence[str], message: str | None) -> None:
    """Each id may occur in ``item_ids`` at most as often as among the order's items."""
    have = [item["item_id"] for item in order["items"]]
    for item_id in item_ids:
        if item_ids.count(item_id) > have.count(item_id):
            raise RetailFailure(message or f"{item_id} not found")


def _new_variants(
    db: RetailState, order: Any, item_ids: Sequence[str], new_item_ids: Sequence[str]
) -> tuple[list[Any], float]:
    """The variant each pair exchanges to, and the summed price difference (not rounded)."""
    if len(item_ids) != len(new_item_ids):
        raise RetailFailure("the number of items to be exchanged should match")
    variants, diff = [], 0.0
    for item_id, new_item_id in zip(item_ids, new_item_ids, strict=True):
        item = next(item for item in order["items"] if item["item_id"] == item_id)
        variant = db.read("products", item["product_id"])["variants"].get(new_item_id)
        if variant is None or not variant["available"]:
            raise RetailFailure(f"new item {new_item_id} not found or available")
        variants.append(variant)
        diff += variant["price"] - item["price"]
    return variants, diff


def _address(*parts: str) -> dict[str, str]:
    """An address record from the address tools' six arguments, in their order."""
    return dict(zip(_ADDRESS_FIELDS, parts, strict=True))


_ADDRESS_FIELDS = ("address1", "address2", "city", "state", "country", "zip")


def _adjust_gift_card(db: RetailState, user_id: str, method_id: str, delta: float) -> None:
    method = db.edit("users", user_id)["payment_methods"][method_id]
    method["balance"] = round(method["balance"] + delta, 2)


# -- write tools ---------------------------------------------------------------------------------


def cancel_pending_order(db: RetailState, order_id: str, reason: str) -> str:
    order = _order(db, order_id)
    _require_status(order, "pending", "cancelled")
    if reason not in CANCEL_REASONS:
        raise RetailFailure("invalid reason")
    order = db.edit("orders", order_id)
    refunds = [
        {
            "transaction_type": "refund",
            "amount": p["amount"],
            "payment_method_id": p["payment_method_id"],
        }
        for p in order["payment_history"]
    ]
    for refund in refunds:
        if "gift_card" in refund["payment_method_id"]:
            _adjust_gift_card(db, order["user_id"], refund["payment_method_id"], refund["amount"])
    order["payment_history"].extend(refunds)
    order["status"] = "cancelled"
    order["cancel_reason"] = reason
    return db.text("orders", order_id)


def modify_pending_order_address(
    db: RetailState,
    order_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,
) -> str:
    _require_status(_order(db, order_id), "pending", "modified")
    db.edit("orders", order_id)["address"] = _address(address1, address2, city, state, country, zip)
    return db.text("orders", order_id)


def modify_user_address(
    db: RetailState,
    user_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,
) -> str:
    if not db.has("users", user_id):
        raise RetailFailure("user not found")
    db.edit("users", user_id)["address"] = _address(address1, address2, city, state, country, zip)
    return db.text("users", user_id)


def modify_pending_order_payment(db: RetailState, order_id: str, payment_method_id: str) -> str:
    order = _order(db, order_id)
    _require_status(order, "pending", "modified")
    method = _owner_method(db, order, payment_method_id)
    history = order["payment_history"]
    if len(history) != 1 or history[0]["transaction_type"] != "payment":
        raise RetailFailure("there should be exactly one payment for a pending order")
    old_id, amount = history[0]["payment_method_id"], history[0]["amount"]
    if old_id == payment_method_id:
        raise RetailFailure("the new payment method should be different from the current one")
    if method["source"] == "gift_card" and method["balance"] < amount:
        raise RetailFailure("insufficient gift card balance to pay for the order")
    db.edit("orders", order_id)["payment_history"].extend(
        [
            {
                "transaction_type": "payment",
                "amount": amount,
                "payment_method_id": payment_method_id,
            },
            {"transaction_type": "refund", "amount": amount, "payment_method_id": old_id},
        ]
    )
    if method["source"] == "gift_card":
        _adjust_gift_card(db, order["user_id"], payment_method_id, -amount)
    if "gift_card" in old_id:
        _adjust_gift_card(db, order["user_id"], old_id, amount)
    return db.text("orders", order_id)


def _priced_swap(
    db: RetailState,
    order_id: str,
    item_ids: list[str],
    new_item_ids: list[str],
    payment_method_id: str,
    *,
    status: str,
    verb: str,
    pays_for: str,
    rounded: bool,
) -> tuple[list[Any], float, Any]:
    """The checks shared by modifying and exchanging items: the order is in ``status``, the
    items are its own, the new ones exist; ``(variants, price difference, payment method)``.

    Raises:
        RetailFailure: a check failed, or a gift card cannot pay the difference.
    """
    order = _order(db, order_id)
    _require_status(order, status, verb)
    _check_multiplicity(order, item_ids, None)
    variants, diff = _new_variants(db, order, item_ids, new_item_ids)
    if rounded:
        diff = round(diff, 2)
    method = _owner_method(db, order, payment_method_id)
    if method["source"] == "gift_card" and method["balance"] < diff:
        raise RetailFailure(f"insufficient gift card balance to pay for {pays_for}")
    return variants, diff, method


def modify_pending_order_items(
    db: RetailState,
    order_id: str,
    item_ids: list[str],
    new_item_ids: list[str],
    payment_method_id: str,
) -> str:
    variants, diff, method = _priced_swap(
        db, order_id, item_ids, new_item_ids, payment_method_id,
        status="pending", verb="modified", pays_for="the new item", rounded=False,
    )  # fmt: skip
    order = db.edit("orders", order_id)
    order["payment_history"].append(
        {
            "transaction_type": "payment" if diff > 0 else "refund",
            "amount": abs(diff),
            "payment_method_id": payment_method_id,
        }
    )
    if method["source"] == "gift_card":
        _adjust_gift_card(db, order["user_id"], payment_method_id, -diff)
    for item_id, variant in zip(item_ids, variants, strict=True):
        item = next(item for item in order["items"] if item["item_id"] == item_id)
        item["item_id"] = variant["item_id"]
        item["price"] = variant["price"]
        item["options"] = copy.deepcopy(variant["options"])
    order["status"] = "pending (item modified)"
    return db.text("orders", order_id)


def exchange_delivered_order_items(
    db: RetailState,
    order_id: str,
    item_ids: list[str],
    new_item_ids: list[str],
    payment_method_id: str,
) -> str:
    _, diff, _ = _priced_swap(
        db, order_id, item_ids, new_item_ids, payment_method_id,
        status="delivered", verb="exchanged", pays_for="the price difference", rounded=True,
    )  # fmt: skip
    order = db.edit("orders", order_id)
    order["status"] = "exchange requested"
    order["exchange_items"] = sorted(item_ids)
    order["exchange_new_items"] = sorted(new_item_ids)
    order["exchange_payment_method_id"] = payment_method_id
    order["exchange_price_difference"] = diff
    return db.text("orders", order_id)


def return_delivered_order_items(
    db: RetailState, order_id: str, item_ids: list[str], payment_method_id: str
) -> str:
    order = _order(db, order_id)
    _require_status(order, "delivered", "returned")
    _owner_method(db, order, payment_method_id)
    original = order["payment_history"][0]["payment_method_id"]
    if "gift_card" not in payment_method_id and payment_method_id != original:
        raise RetailFailure(
            "payment method should be either the original payment method or a gift card"
        )
    _check_multiplicity(order, item_ids, "some item not found")
    order = db.edit("orders", order_id)
    order["status"] = "return requested"
    order["return_items"] = sorted(item_ids)
    order["return_payment_method_id"] = payment_method_id
    return db.text("orders", order_id)


WRITE_TOOLS = tool_table(
    cancel_pending_order,
    exchange_delivered_order_items,
    modify_pending_order_address,
    modify_pending_order_items,
    modify_pending_order_payment,
    modify_user_address,
    return_delivered_order_items,
)
