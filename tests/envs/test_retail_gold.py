"""Replaying the benchmark's gold actions, and the benchmark's reward."""

from __future__ import annotations

import json
import time

import pytest
from jdsl.envs.data import load_json
from jdsl.envs.tau_retail import (
    RetailEnv,
    gold_replay,
    load_tasks,
    retail_snapshot,
    reward,
    reward_info,
)

# Gold actions that fail in the benchmark itself, by design of the task or of its data:
# the user first gives a wrong e-mail / zip / order id or an item id as a product id (test split),
# or the synthetic task pays with a gift card whose balance is too small (train split). Their
# failure is part of the gold trajectory (the gold replay database is computed with it).
EXPECTED_GOLD_ERRORS = {
    ("train", 24, 0): "insufficient gift card balance to pay for the order",
    ("train", 27, 0): "insufficient gift card balance to pay for the order",
    ("train", 81, 1): "insufficient gift card balance to pay for the new item",
    ("train", 148, 1): "insufficient gift card balance to pay for the order",
    ("train", 161, 0): "insufficient gift card balance to pay for the new item",
    ("train", 214, 0): "insufficient gift card balance to pay for the price difference",
    ("train", 229, 0): "insufficient gift card balance to pay for the new item",
    ("train", 252, 0): "insufficient gift card balance to pay for the price difference",
    ("train", 253, 0): "insufficient gift card balance to pay for the order",
    ("train", 288, 0): "insufficient gift card balance to pay for the price difference",
    ("train", 314, 3): "insufficient gift card balance to pay for the new item",
    ("train", 349, 0): "insufficient gift card balance to pay for the new item",
    ("train", 351, 2): "insufficient gift card balance to pay for the order",
    ("train", 351, 6): "insufficient gift card balance to pay for the new item",
    ("train", 369, 0): "insufficient gift card balance to pay for the order",
    ("train", 376, 1): "insufficient gift card balance to pay for the new item",
    ("train", 427, 0): "insufficient gift card balance to pay for the order",
    ("train", 431, 4): "insufficient gift card balance to pay for the order",
    ("train", 441, 0): "insufficient gift card balance to pay for the new item",
    ("train", 469, 0): "insufficient gift card balance to pay for the order",
    ("test", 2, 1): "product not found",
    ("test", 3, 1): "product not found",
    ("test", 4, 1): "product not found",
    ("test", 12, 4): "payment method should be either the original payment method or a gift card",
    ("test", 13, 4): "payment method should be either the original payment method or a gift card",
    ("test", 21, 5): "product not found",
    ("test", 21, 6): "product not found",
    ("test", 21, 8): "product not found",
    ("test", 35, 0): "user not found",
    ("test", 36, 0): "user not found",
    ("test", 37, 0): "user not found",
    ("test", 38, 0): "user not found",
    ("test", 39, 0): "user not found",
    ("test", 46, 1): "order not found",
    ("test", 46, 2): "order not found",
    ("test", 47, 1): "order not found",
    ("test", 47, 2): "order not found",
    ("test", 54, 0): "user not found",
    ("test", 55, 0): "user not found",
    ("test", 64, 6): "non-delivered order cannot be exchanged",
    ("test", 67, 0): "user not found",
    ("test", 67, 1): "user not found",
    ("test", 68, 0): "user not found",
    ("test", 106, 0): "insufficient gift card balance to pay for the price difference",
}


def test_every_gold_action_of_every_task_runs_as_the_benchmark_runs_it() -> None:
    started = time.perf_counter()
    errors, calls = {}, 0
    for task in load_tasks():
        env = RetailEnv()
        for index, action in enumerate(task.actions):
            result = env.step(action.name, action.arguments)
            calls += 1
            assert not result.startswith("Unknown action")
            if result.startswith("Error: "):
                errors[(task.split, task.task_id, index)] = result.removeprefix("Error: ")
    assert calls == 1375
    assert errors == EXPECTED_GOLD_ERRORS  # every other gold action (1,331) succeeds
    assert time.perf_counter() - started < 20


def test_the_expected_gold_errors_are_true_of_the_shipped_data() -> None:
    users, orders = (
        load_json("tau_retail", "db", "users.json"),
        load_json("tau_retail", "db", "orders.json"),
    )
    products = load_json("tau_retail", "db", "products.json")
    tasks = {(t.split, t.task_id): t for t in load_tasks()}
    for (split, task_id, index), message in EXPECTED_GOLD_ERRORS.items():
        args = tasks[(split, task_id)].actions[index].arguments
        if message == "product not found":
            assert args["product_id"] not in products
        elif message == "order not found":
            assert args["order_id"] not in orders
        elif message == "user not found":
            emails = {u["email"].lower() for u in users.values()}
            zips = {(u["name"]["first_name"], u["address"]["zip"]) for u in users.values()}
            assert args.get("email", "").lower() not in emails
            assert (args.get("first_name"), args.get("zip")) not in zips
        elif message.startswith("insufficient gift card balance"):
            owner = users[orders[args["order_id"]]["user_id"]]
            assert owner["payment_methods"][args["payment_method_id"]]["source"] == "gift_card"


def test_gold_replays_leave_the_shared_snapshot_untouched() -> None:
    before = {name: dict(table) for name, table in retail_snapshot().tables.items()}
    for task in load_tasks("dev"):
        gold_replay(task)
    assert {name: dict(table) for name, table in retail_snapshot().tables.items()} == before


def test_each_episode_starts_from_the_shipped_database() -> None:
    env = RetailEnv()
    fresh = env.db_hash()
    env.step("cancel_pending_order", {"order_id": "#W7602708", "reason": "no longer needed"})
    assert RetailEnv().db_hash() == fresh
    env.reset()
    assert env.db_hash() == fresh and env.history == [] and not env.done
    raw = {n: load_json("tau_retail", "db", f"{n}.json") for n in ("users", "orders", "products")}
    assert env.database() == raw


def test_the_gold_replay_earns_reward_one_on_every_task() -> None:
    for task in load_tasks():
        env = gold_replay(task)
        for output in task.outputs:
            env.respond(f"The answer is {output}.")
        assert reward(env, task) == 1.0, (task.split, task.task_id)


def _output_task():
    return next(t for t in load_tasks() if len(t.outputs) >= 2)


def test_reward_is_zero_when_a_required_output_is_not_said() -> None:
    task = _output_task()
    env = gold_replay(task)
    env.respond(f"It is {task.outputs[0]}.")
    info = reward_info(env, task)
    assert info.reward == 0.0 and info.database_matches
    assert info.outputs == {task.outputs[0]: True, **{o: False for o in task.outputs[1:]}}


def test_reward_matches_outputs_ignoring_case_and_commas_in_the_reply() -> None:
    task = next(
        t
        for t in load_tasks()
        if any(o.replace(".", "").isdigit() and float(o) >= 1000 for o in t.outputs)
    )
    env = gold_replay(task)
    big = next(o for o in task.outputs if o.replace(".", "").isdigit() and float(o) >= 1000)
    whole, _, cents = big.partition(".")
    env.respond(
        " ".join(task.outputs)
        .upper()
        .replace(big, f"{int(whole):,}" + (f".{cents}" if cents else ""))
    )
    assert reward(env, task) == 1.0


def test_reward_is_zero_when_the_database_differs() -> None:
    task = load_tasks("train")[0]  # a return of #W6067464
    env = RetailEnv()
    assert reward(env, task) == 0.0  # nothing done
    env.step(
        "return_delivered_order_items",
        {
            "order_id": "#W6067464",
            "item_ids": ["9624127908"],
            "payment_method_id": "credit_card_4190576",
        },
    )
    assert reward_info(env, task).database_matches is False  # one item instead of two
    env.step("get_user_details", {"user_id": task.user_id})
    assert reward(gold_replay(task, env), task) == 1.0


def test_reward_accepts_a_tasks_json_row() -> None:
    row = load_json("tau_retail", "tasks.json")[0]
    env = RetailEnv()
    env.step(row["actions"][0]["name"], row["actions"][0]["arguments"])
    assert reward(env, row) == 1.0


def test_load_tasks_by_split_and_unknown_split() -> None:
    assert [len(load_tasks(s)) for s in ("train", "test", "dev")] == [500, 115, 20]
    with pytest.raises(Exception, match="unknown retail split 'valid'"):
        load_tasks("valid")  # type: ignore[arg-type]
    assert json.dumps(load_tasks("dev")[0].model_dump())  # tasks are plain JSON data
