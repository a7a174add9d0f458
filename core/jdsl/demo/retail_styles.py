"""tau-bench retail results files written by scripted agents of several styles.

jdsl ships one real results file (gpt-4o airline, ``tool-calling``). To measure whether the
compiler generalizes to runs of *other* agents, :func:`style_runs` writes results-file rows (the
shape of tau-bench's ``run.py`` output: ``{task_id, reward, info: {task}, traj, trial}``) of a
**scripted** agent (not a language model) on jdsl's tau-bench retail environment: every tool
result is the real string of :class:`~jdsl.envs.tau_retail.RetailEnv` over the benchmark's real
database, every reward is the benchmark's (:func:`~jdsl.envs.tau_retail.reward`: the database
equals the gold actions' database), every task is a real retail train task with its gold
``actions``, and the user's messages are written from those actions (what that user would type).

A :class:`Style` sets what varies between models: the strategy (``tool-calling``, ``act``,
``react``: :func:`jdsl.importers.tau_results.as_action_traj`), the identity lookup (by email, by
name + zip, or what the task's instruction gives), how orders are found (the order id the user
states, or ``get_user_details`` then ``get_order_details`` over ``user.orders`` stopping at the
right one or reading them all, when the user describes the items instead), extra reads
(``list_all_product_types``, ``get_product_details``, a second ``get_user_details``), a
``think`` call, the order of keyword arguments, a failed first write (``Error: order not found``
for an id without ``#``, or ``Error: payment method not found``) recovered on the next call, the
share of runs that fail (reward 0: the agent writes with a wrong argument, the other cancel
reason or another item, or hands over to a human) and 1 or 2 runs per task. Everything is drawn
from one ``random.Random`` seeded by the style's name, so a corpus is the same on every machine.
:data:`STYLES` holds four such corpora; :mod:`jdsl.demo.styles_job` measures them.

``python -m jdsl.demo.retail_styles STYLE -o FILE.json`` writes one style's results file, for
``jdsl import tau-bench FILE.json -o TRACES.jsonl`` (``--help``: the styles).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from jdsl.envs.tau_retail import RetailEnv, RetailTask, load_tasks, reward
from jdsl.importers.tau_results import Strategy, as_action_traj

__all__ = ["FAMILIES", "STYLES", "Style", "retail_style_tasks", "style_runs"]

FAMILIES = (
    "cancel_pending_order",
    "return_delivered_order_items",
    "exchange_delivered_order_items",
    "modify_pending_order_items",
)
"""The write tools whose tasks the corpora cover (tasks whose gold actions are one or two calls
of one of them: two calls are the same intent over two orders)."""

_PAYING = ("return_delivered_order_items", "exchange_delivered_order_items",
           "modify_pending_order_items")  # fmt: skip
_SYSTEM = "# Retail agent policy\nYou are a customer service agent of an online retail store."


@dataclass(frozen=True)
class Style:
    """How one scripted agent behaves (module docstring). Shares are per run."""

    name: str
    strategy: Strategy
    identity: Literal["email", "name_zip", "instruction"]
    orders: Literal["stated", "scan_until", "scan_all", "mixed"]
    extra_reads: float = 0.0
    think: float = 0.0
    reversed_args: bool = False
    recover: float = 0.0
    fail: float = 0.0
    second_run: float = 0.5
    tasks_per_family: int = 6


STYLES: Mapping[str, Style] = {
    s.name: s
    for s in (
        Style("direct", "tool-calling", "email", "stated"),
        Style("thorough", "react", "name_zip", "scan_all", extra_reads=0.6, think=0.5,
              recover=0.2, fail=0.1),
        Style("terse", "act", "instruction", "mixed", reversed_args=True, fail=0.2,
              second_run=0.3),
        Style("small", "act", "instruction", "scan_until", extra_reads=0.4, think=0.2,
              recover=0.3, fail=0.3, second_run=0.7),
    )
}  # fmt: skip
"""The shipped styles: ``direct`` (gpt-4o-like: email, the stated order, nothing extra),
``thorough`` (react: name + zip, reads every order, looks up more, thinks, recovers),
``terse`` (act: the instruction's identity, stated or scanned orders, reversed argument order,
one run in five fails) and ``small`` (a small model: scans, extra reads, many recoveries and
failures, often two runs per task)."""


def retail_style_tasks(per_family: int) -> list[RetailTask]:
    """The first ``per_family`` train tasks of each family of :data:`FAMILIES`, in file order."""
    chosen: list[RetailTask] = []
    train = load_tasks("train")
    for family in FAMILIES:
        found = [t for t in train
                 if {a.name for a in t.actions} == {family} and len(t.actions) <= 2
                 and not t.outputs]  # fmt: skip
        chosen.extend(found[:per_family])
    return sorted(chosen, key=lambda t: t.task_id)


class _Run:
    """One scripted run being written: the traj in tool-calling shape and the environment."""

    def __init__(self, task: RetailTask, style: Style, rng: random.Random) -> None:
        self.task, self.style, self.rng = task, style, rng
        self.env = RetailEnv()
        self.traj: list[dict[str, Any]] = [{"role": "system", "content": _SYSTEM}]
        self.calls = 0
        self.user = self.env.db.read("users", task.user_id)

    def say(self, role: str, content: str) -> None:
        self.traj.append({"role": role, "content": content})
        if role == "assistant":
            self.env.respond(content)

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        if self.style.reversed_args:
            arguments = dict(reversed(list(arguments.items())))
        call_id = f"call_{self.calls}"
        self.calls += 1
        function = {"name": name, "arguments": json.dumps(arguments)}
        self.traj.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function", "function": function}]})  # fmt: skip
        result = self.env.step(name, arguments)
        self.traj.append({"role": "tool", "tool_call_id": call_id, "name": name,
                          "content": result})  # fmt: skip
        return result

    def chance(self, share: float) -> bool:
        return self.rng.random() < share


def _items_text(order: Mapping[str, Any], item_ids: Sequence[str]) -> str:
    by_id = {i["item_id"]: i for i in order["items"]}
    return " and ".join(
        f"the {by_id[i]['name'].lower()} ({', '.join(by_id[i]['options'].values())})"
        for i in item_ids
    )


def _request(run: _Run, action: Any, stated: bool) -> str:
    """What the user asks for one gold action (the order named by id when ``stated``)."""
    args, db = action.arguments, run.env.db
    order = db.read("orders", args["order_id"])
    where = f"order {args['order_id']}" if stated else "one of my orders"
    if action.name == "cancel_pending_order":
        what = _items_text(order, [i["item_id"] for i in order["items"]][:1])
        text = f"I want to cancel {where} (the one with {what}) because it was {args['reason']}."
        return text.replace("because it was no longer needed", "because it is no longer needed")
    items = _items_text(order, args["item_ids"])
    pay = f" Please use {args['payment_method_id']}."
    if action.name == "return_delivered_order_items":
        return f"I'd like to return {items} from {where}.{pay}"
    new = " and ".join(
        ", ".join(v["options"].values())
        for p in db.ids("products") for k, v in db.read("products", p)["variants"].items()
        if k in args["new_item_ids"]
    )  # fmt: skip
    verb = "exchange" if action.name.startswith("exchange") else "change"
    return f"I want to {verb} {items} in {where} for the {new} version.{pay}"


def _identify(run: _Run) -> str:
    style, user = run.style, run.user
    by_email = style.identity == "email" or (
        style.identity == "instruction" and "email" in run.task.instruction
    )
    name = user["name"]
    if by_email:
        run.say("user", f"My email is {user['email']}.")
        return run.call("find_user_id_by_email", {"email": user["email"]})
    run.say("user", f"I'm {name['first_name']} {name['last_name']}, zip code "
                    f"{user['address']['zip']}.")  # fmt: skip
    return run.call("find_user_id_by_name_zip", {"first_name": name["first_name"],
                    "last_name": name["last_name"], "zip": user["address"]["zip"]})  # fmt: skip


def _find_order(run: _Run, order_id: str, how: str, user_id: str) -> None:
    """Read the order the action is on: the stated one, or ``user.orders`` in order."""
    if how == "stated":
        run.call("get_order_details", {"order_id": order_id})
        return
    orders = json.loads(run.call("get_user_details", {"user_id": user_id}))["orders"]
    for other in orders:
        run.call("get_order_details", {"order_id": other})
        if other == order_id and how == "scan_until":
            break


def _extra_reads(run: _Run, action: Any, user_id: str) -> None:
    if not run.chance(run.style.extra_reads):
        return
    run.call("list_all_product_types", {})
    if run.chance(0.5):
        run.call("get_user_details", {"user_id": user_id})


def _product_reads(run: _Run, action: Any) -> None:
    """Exchanges and modifications read the product of each item (for its new variant)."""
    if action.name not in ("exchange_delivered_order_items", "modify_pending_order_items"):
        if not run.chance(run.style.extra_reads / 2):
            return
    order = run.env.db.read("orders", action.arguments["order_id"])
    by_id = {i["item_id"]: i["product_id"] for i in order["items"]}
    wanted = action.arguments.get("item_ids") or list(by_id)[:1]
    for product_id in dict.fromkeys(by_id[i] for i in wanted):
        run.call("get_product_details", {"product_id": product_id})


def _wrong(run: _Run, action: Any) -> dict[str, Any] | None:
    """Arguments that succeed but are not the gold ones (a failing run), or None."""
    args = dict(action.arguments)
    if action.name == "cancel_pending_order":
        args["reason"] = next(r for r in ("no longer needed", "ordered by mistake")
                              if r != args["reason"])  # fmt: skip
        return args
    order = run.env.db.read("orders", args["order_id"])
    others = [i["item_id"] for i in order["items"] if i["item_id"] not in args["item_ids"]]
    if action.name == "return_delivered_order_items" and others:
        args["item_ids"] = others[:1]
        return args
    return None


def _write(run: _Run, action: Any, failing: bool) -> None:
    args = dict(action.arguments)
    if run.chance(run.style.recover):
        if action.name in _PAYING and run.chance(0.5):
            method = "credit_card" if "credit" not in args["payment_method_id"] else "paypal"
            run.call(action.name, {**args, "payment_method_id": method})
            run.say("assistant", "That payment method was not found. Which one should I use?")
            run.say("user", f"Sorry, it is {args['payment_method_id']}.")
        else:
            run.call(action.name, {**args, "order_id": args["order_id"].lstrip("#")})
    if failing:
        wrong = _wrong(run, action)
        if wrong is None:
            run.call("transfer_to_human_agents", {"summary": "The user needs help."})
            return
        args = wrong
    run.call(action.name, args)


def _one_run(task: RetailTask, style: Style, rng: random.Random, trial: int) -> dict[str, Any]:
    run = _Run(task, style, rng)
    failing = run.chance(style.fail)
    how = style.orders
    if how == "mixed":
        how = rng.choice(("stated", "scan_until"))
    requests = [_request(run, a, how == "stated") for a in task.actions]
    run.say("user", "Hi! " + " Also, ".join(requests))
    run.say("assistant", "I can help with that. Please give me your email, or your name and zip "
                         "code, so I can find your account.")  # fmt: skip
    user_id = _identify(run)
    if how == "stated" and run.chance(0.5 + style.extra_reads / 2):
        run.call("get_user_details", {"user_id": user_id})
    for action in task.actions:
        _find_order(run, action.arguments["order_id"], how, user_id)
        _extra_reads(run, action, user_id)
        _product_reads(run, action)
        if run.chance(style.think):
            run.call("think", {"thought": f"The user wants {action.name.replace('_', ' ')}."})
        asked = _request(run, action, True).replace("I want", "you want").replace("I'd", "you'd")
        run.say("assistant", f"To confirm: {asked.replace(' my ', ' your ')} Shall I proceed?")
        run.say("user", "Yes, please.")
        _write(run, action, failing)
        if run.env.done:
            break
    run.say("assistant", "Done. Is there anything else I can help you with?")
    run.say("user", "No, thanks. ###STOP###")
    info = {"user_id": task.user_id, "instruction": task.instruction, "outputs": [],
            "actions": [{"name": a.name, "kwargs": dict(a.arguments)} for a in task.actions]}  # fmt: skip
    traj = run.traj
    if style.strategy != "tool-calling":
        traj = as_action_traj(traj, react=style.strategy == "react")
    return {"task_id": task.task_id, "reward": reward(run.env, task),
            "info": {"task": info, "source": "user"}, "traj": traj, "trial": trial}  # fmt: skip


def style_runs(
    style: Style | str, *, tasks_per_family: int | None = None, trials: int | None = None
) -> list[dict[str, Any]]:
    """The results-file rows of ``style`` (a :class:`Style` or a name in :data:`STYLES`) over
    :func:`retail_style_tasks`: one run per task, a second with the style's ``second_run``
    share (in trial order, as ``run.py`` writes), all drawn from ``random.Random(style.name)``.
    With ``trials``, every task is run that many times instead (``run.py --num-trials``)."""
    style = STYLES[style] if isinstance(style, str) else style
    rng = random.Random(style.name)
    per_family = tasks_per_family or style.tasks_per_family
    tasks = retail_style_tasks(per_family)
    if trials is None:
        rounds = [tasks, [t for t in tasks if rng.random() < style.second_run]]
    else:
        rounds = [tasks] * trials
    return [  # in the order tau-bench's run.py writes them: every task of trial 0, then trial 1
        _one_run(task, style, rng, trial) for trial, chosen in enumerate(rounds) for task in chosen
    ]


def main(argv: Sequence[str]) -> None:
    """``python -m jdsl.demo.retail_styles STYLE [-o FILE.json]``: write the style's results
    file (default ``STYLE-retail.json``); an unknown style is a usage error (exit 2)."""
    parser = argparse.ArgumentParser(
        prog="python -m jdsl.demo.retail_styles",
        description="Write a tau-bench retail results file of a scripted agent (not a "
        "language model) of one style, for `jdsl import tau-bench`.",
    )
    parser.add_argument("style", metavar="STYLE", help=f"one of {', '.join(STYLES)}")
    parser.add_argument(
        "-o", "--out", metavar="FILE.json", help="where to write it (default STYLE-retail.json)"
    )
    args = parser.parse_args(argv)
    if args.style not in STYLES:
        parser.error(f"no style {args.style!r}: pass one of {', '.join(STYLES)}")
    out = Path(args.out or f"{args.style}-retail.json")
    if not out.parent.is_dir():
        parser.error(f"no directory {str(out.parent)!r} for -o {out}: pass a path in one")
    rows = style_runs(args.style)
    out.write_text(json.dumps(rows), encoding="utf-8")
    print(f"{out}: {len(rows)} {args.style} runs; import them with: "
          f"jdsl import tau-bench {out} -o TRACES.jsonl")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
