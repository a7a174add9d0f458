"""The small retail fixture (docs/design.md appendix B): a fake world and its four tools.

World ``i`` has customer ``U{i}`` with email ``c{i}@x.com`` and two orders: ``#W{i}0``
(shipped) and ``#W{i}1`` (pending). Tests, the demo and the notebooks share it.

Example:
    >>> world = RetailWorld.numbered(3)
    >>> tools = world.tools()
    >>> [t.name for t in tools]
    ['lookup', 'list_orders', 'get_order', 'cancel']
    >>> tools[0]("c3@x.com")["id"]
    'U3'
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from jdsl import dsl
from jdsl.interaction.tools import Tool, tool
from jdsl.tree import Root

__all__ = ["RetailWorld", "retail_fixture_tools", "retail_teacher"]


@dataclass
class RetailWorld:
    """One customer and their orders; the tools read and change this instance only.

    Attributes:
        customer_id: e.g. ``"U1"``.
        email: the customer's email.
        orders: ``[{"id", "status", "items"}]``.
        cancelled: ``[(order_id, reason)]`` in the order cancels happened.
    """

    customer_id: str
    email: str
    orders: list[dict[str, Any]]
    cancelled: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def numbered(
        cls, i: int | str, *, statuses: tuple[str, str] = ("shipped", "pending")
    ) -> RetailWorld:
        """World ``i``: customer ``U{i}``, email ``c{i}@x.com``, orders ``#W{i}0``/``#W{i}1``.

        Args:
            i: the world number (any value not used in recorded episodes makes an unseen world).
            statuses: the statuses of order 0 and order 1.
        """
        orders = [
            {"id": f"#W{i}{n}", "status": status, "items": [{"sku": f"SKU-{i}{n}", "qty": 1}]}
            for n, status in enumerate(statuses)
        ]
        return cls(customer_id=f"U{i}", email=f"c{i}@x.com", orders=orders)

    def lookup(self, email: str) -> dict[str, Any]:
        """Find a customer by email.

        Args:
            email: the customer's email address.

        Raises:
            KeyError: no customer has this email.
        """
        if email.strip().lower() != self.email.lower():
            raise KeyError(f"no customer with email {email!r}")
        return {"id": self.customer_id, "email": self.email}

    def list_orders(self, customer_id: str) -> list[dict[str, Any]]:
        """List a customer's orders (id, status, items), oldest first.

        Args:
            customer_id: the customer's id, e.g. "U1".

        Raises:
            KeyError: an unknown customer id.
        """
        if customer_id != self.customer_id:
            raise KeyError(f"no customer with id {customer_id!r}")
        return copy.deepcopy(self.orders)

    def get_order(self, order_id: str) -> dict[str, Any]:
        """Get one order by id.

        Args:
            order_id: the order id, e.g. "#W11".

        Raises:
            KeyError: an unknown order id.
        """
        for order in self.orders:
            if order["id"] == order_id:
                return copy.deepcopy(order)
        raise KeyError(f"no order with id {order_id!r}")

    def cancel(self, order_id: str, reason: str) -> dict[str, Any]:
        """Cancel a pending order.

        Args:
            order_id: the order to cancel.
            reason: why the customer cancels.

        Raises:
            KeyError: an unknown order id.
            ValueError: the order is not pending.
        """
        order = next((o for o in self.orders if o["id"] == order_id), None)
        if order is None:
            raise KeyError(f"no order with id {order_id!r}")
        if order["status"] != "pending":
            raise ValueError(f"order {order_id} is {order['status']}, only pending orders cancel")
        order["status"] = "cancelled"
        self.cancelled.append((order_id, reason))
        return {"order_id": order_id, "status": "cancelled", "reason": reason}

    def tools(self) -> list[Tool]:
        """The four tools, bound to this world: lookup, list_orders, get_order, cancel."""
        return [tool(self.lookup), tool(self.list_orders), tool(self.get_order), tool(self.cancel)]


def retail_fixture_tools(world: RetailWorld | int | str = 1) -> list[Tool]:
    """The four retail tools over ``world`` (a :class:`RetailWorld` or a world number)."""
    if not isinstance(world, RetailWorld):
        world = RetailWorld.numbered(world)
    return world.tools()


def retail_teacher(**options: Any) -> Root:
    """The appendix B teacher over these tools, by name: ``lookup`` the customer by ``email``,
    ``list_orders``, predict ``selected_index`` from ``request`` and the orders
    (``resolve_target``), ``get_order`` that one (into ``order``). ``options`` go to
    :func:`jdsl.dsl.root` (``system``, ``model``, ...); the root is named ``cancel``."""
    return dsl.root("cancel", **options).do(
        dsl.seq(
            dsl.store(dsl.act("lookup", email=dsl.ref("email")), "customer"),
            dsl.store(dsl.act("list_orders", customer_id=dsl.ref("customer.id")), "orders"),
            dsl.predict("request, orders -> selected_index: int", id="resolve_target"),
            dsl.store(
                dsl.act("get_order", order_id=dsl.ref("orders[$selected_index].id")), "order"
            ),
        )
    )
