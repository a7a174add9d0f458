"""Teachers over the real tau-bench retail environment (``jdsl.envs.tau_retail``), shared by
the tests of the program shapes staticize compiles (two branch points, recovery mixes, loops).

Each teacher is behavior text run with :func:`jdsl.envs.tau_retail.tree_tools` bound to a
fresh :class:`~jdsl.envs.tau_retail.RetailEnv` per episode; :func:`users` picks users of the
shipped database by what the teachers need (a pending order or not, how many orders).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from jdsl.envs.tau_retail import RetailEnv, tree_tools
from jdsl.text import parse_behavior
from jdsl.trace import ListTraceSink, segment_episodes
from jdsl.tree import Root

TWO_POINTS = """\
root handle
  seq
    sel
      seq
        guard exists(email)
        act find_user_id_by_email(email=email) -> user_id
      act find_user_id_by_name_zip(first_name=first_name, last_name=last_name, zip=zip) -> user_id
    act get_user_details(user_id=user_id) -> user
    act get_order_details(order_id=order_id) -> order
    sel
      seq
        guard order.status == "pending"
        act cancel_pending_order(order_id=order.order_id, reason="no longer needed") -> receipt
      act transfer_to_human_agents(summary=request) -> ticket
"""


def users(
    db: dict[str, Any], *, min_orders: int = 1, max_orders: int = 99
) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(user id, record)`` of the database ``db``, in id order, with that many orders."""
    for user_id in sorted(db["users"]):
        record = db["users"][user_id]
        if min_orders <= len(record["orders"]) <= max_orders:
            yield user_id, record


def identity(record: dict[str, Any], by: str) -> dict[str, str]:
    """The run inputs that name the user: ``email``, or ``first_name``/``last_name``/``zip``."""
    if by == "email":
        return {"email": record["email"]}
    name = record["name"]
    return {"first_name": name["first_name"], "last_name": name["last_name"],
            "zip": record["address"]["zip"]}  # fmt: skip


def two_point_inputs(skip: int, count: int) -> list[dict[str, Any]]:
    """Inputs for the two-branch-point teacher: every 4 in a row cover email/name x
    pending/not pending; ``skip`` users of each kind are passed over (fresh users for tests)."""
    db = RetailEnv().database()
    pending, other = [], []
    for _, record in users(db):
        first = record["orders"][0]
        (pending if db["orders"][first]["status"] == "pending" else other).append((record, first))
    found = []
    for k in range(count):
        record, order_id = (pending if k % 2 == 0 else other)[skip + k // 2]
        by = "email" if (k // 2) % 2 == 0 else "name"
        found.append({**identity(record, by), "order_id": order_id,
                      "request": f"please cancel order {order_id}"})  # fmt: skip
    return found


def run(tree: Root, inputs: dict[str, Any], **kw: Any) -> tuple[Any, RetailEnv]:
    """Run ``tree`` once on a fresh environment; returns ``(context, env)``."""
    env = RetailEnv()
    tools = {t.name: t for t in tree_tools(env)}
    ctx = tree.run(tools=tools, **inputs, **kw)
    return ctx, env


def episodes(text: str, inputs: list[dict[str, Any]], prefix: str = "ep", **kw: Any) -> list[Any]:
    """Traced episodes of the teacher ``text`` run once per inputs."""
    sink = ListTraceSink()
    tree = parse_behavior(text)
    for n, given in enumerate(inputs):
        run(tree, given, trace_sink=sink, episode_id=f"{prefix}{n}", **kw)
    return segment_episodes(sink.events)


def writes(env: RetailEnv) -> list[tuple[str, dict[str, Any]]]:
    """The write calls an episode made (what tau-bench's reward sees), in order."""
    from jdsl.envs.tau_retail.writes import WRITE_TOOLS

    terminal = {"transfer_to_human_agents"}
    return [(s.name, dict(s.arguments)) for s in env.history
            if s.name in WRITE_TOOLS or s.name in terminal]  # fmt: skip


def same_behavior(teacher: Root, package: Root, inputs: dict[str, Any],
                  **kw: Any) -> tuple[bool, str]:  # fmt: skip
    """Whether ``package`` makes the teacher's writes and leaves the same database."""
    (t_ctx, t_env), (p_ctx, p_env) = run(teacher, inputs, **kw), run(package, inputs, **kw)
    same = (writes(t_env), t_env.db_hash(), t_ctx.status) == (
        writes(p_env), p_env.db_hash(), p_ctx.status)  # fmt: skip
    return same, f"teacher {writes(t_env)} {t_ctx.status}; package {writes(p_env)} {p_ctx.status}"


Check = Callable[[Root, Root, dict[str, Any]], tuple[bool, str]]


RECOVER = """\
root find
  seq
    sel
      act find_user_id_by_email(email=email) -> user_id on_error=fail
      act find_user_id_by_name_zip(first_name=first_name, last_name=last_name, zip=zip) -> user_id
    act get_user_details(user_id=user_id) -> user
    act get_order_details(order_id=order_id) -> order
    guard order.status == "pending"
    act cancel_pending_order(order_id=order.order_id, reason="no longer needed") -> receipt
"""


def recovery_inputs(skip: int, count: int, failing: set[int]) -> list[dict[str, Any]]:
    """Inputs for :data:`RECOVER`: users with a pending first order, every identity given; the
    runs numbered in ``failing`` give an email no user has (the email lookup fails first)."""
    db = RetailEnv().database()
    found = []
    for _, record in users(db):
        first = record["orders"][0]
        if db["orders"][first]["status"] == "pending":
            found.append((record, first))
    picked = []
    for k, (record, order_id) in enumerate(found[skip : skip + count]):
        email = f"nobody{k}.{record['email']}" if k in failing else record["email"]
        picked.append({**identity(record, "name"), "email": email, "order_id": order_id,
                       "request": f"cancel {order_id}"})  # fmt: skip
    return picked


LOOP = """\
root orders
  seq
    act find_user_id_by_email(email=email) -> user_id
    act get_user_details(user_id=user_id) -> user
    for_each order_id in user.orders
      act get_order_details(order_id=order_id) -> order
    act transfer_to_human_agents(summary=request) -> ticket
"""


def loop_inputs(counts: Sequence[int], skip: int = 0) -> list[dict[str, Any]]:
    """Inputs for :data:`LOOP`: per count, a user with that many orders (``skip`` passed over)."""
    db = RetailEnv().database()
    by_count: dict[int, list[dict[str, Any]]] = {}
    for _, record in users(db):
        by_count.setdefault(len(record["orders"]), []).append(record)
    seen: dict[int, int] = {}
    found = []
    for n in counts:
        k = seen[n] = seen.get(n, -1) + 1
        record = by_count[n][skip + k]
        found.append({"email": record["email"], "request": f"check my {n} orders"})
    return found
