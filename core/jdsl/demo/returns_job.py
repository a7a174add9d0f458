"""The retail return family: list arguments compiled to a list path with a residual selection.

jdsl ships no recorded retail trajectories, so :func:`scripted_return_runs` makes them, honestly
labelled: the agent is **scripted** (not a language model) and follows each task's gold actions
(``find_user_id_by_name_zip`` -> ``get_order_details`` -> ``return_delivered_order_items``);
every tool result is the real string of jdsl's tau-bench retail environment over the benchmark's
real database and every reward is the benchmark's reward of the run. The tasks are the first
``count`` train tasks whose gold actions are exactly one ``return_delivered_order_items`` and
whose user identifies by name and zip; the user's messages are written from the instruction
(what that user would type). Runs alternate between tau-bench's ``tool-calling`` and ``react``
shapes. :func:`compile_returns` imports them, compiles the family (``item_ids`` becomes
``get_order_details_out.items[$item_indexes].item_id``) and validates on the last run held out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_normalized, holdout_split, validate_package
from jdsl.compiler.stream import normalize_stream
from jdsl.envs.tau_retail import RetailEnv, RetailTask, load_tasks, reward
from jdsl.importers import import_tau_bench
from jdsl.importers.tau_results import as_action_traj

__all__ = ["ReturnFigures", "compile_returns", "scripted_return_runs"]

_TASK = re.compile(
    r"Your name is (\w+) (\w+) and your zip code is (\d{5})\..*Return (#W\d+) via (\w+): (.*)$"
)
_RETURN = "return_delivered_order_items"


def _call(n: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": f"call_{n}", "type": "function", "function": function}]}  # fmt: skip


def _run(task: RetailTask) -> dict[str, Any]:
    """One scripted tool-calling run of ``task`` on a fresh environment."""
    match = _TASK.search(task.instruction)
    assert match is not None  # chosen by _TASK in scripted_return_runs
    first, last, zip_code, order_id, payment, items = match.groups()
    env = RetailEnv()
    wanted = items.strip().rstrip(";").replace(";", " and")
    traj: list[dict[str, Any]] = [
        {"role": "system", "content": "# Retail agent policy (tau_retail/wiki.md)"},
        {"role": "user", "content": f"Hi, I'm {first} {last}, zip code {zip_code}. I want to "
         f"return the {wanted} from order {order_id}."},
    ]  # fmt: skip
    calls = [
        ("find_user_id_by_name_zip", {"first_name": first, "last_name": last, "zip": zip_code}),
        ("get_order_details", {"order_id": order_id}),
        (_RETURN, dict(task.actions[0].arguments)),
    ]
    for n, (name, arguments) in enumerate(calls):
        if name == _RETURN:
            traj.append({"role": "assistant", "content": "Shall I return those items? Which "
                         "payment method should get the refund?"})  # fmt: skip
            traj.append({"role": "user", "content": f"Yes, please. Refund to {payment}."})
        traj.append(_call(n, name, arguments))
        traj.append({"role": "tool", "tool_call_id": f"call_{n}", "name": name,
                     "content": env.step(name, arguments)})  # fmt: skip
    env.respond("Your return has been requested.")
    traj.append({"role": "assistant", "content": "Your return has been requested."})
    info = {"user_id": task.user_id, "instruction": task.instruction, "outputs": [],
            "actions": [{"name": a.name, "kwargs": dict(a.arguments)} for a in task.actions]}  # fmt: skip
    return {"task_id": task.task_id, "reward": reward(env, task), "info": {"task": info},
            "traj": traj, "trial": 0}  # fmt: skip


def scripted_return_runs(count: int = 8) -> list[dict[str, Any]]:
    """tau-bench results-file rows of ``count`` scripted return runs (module docstring)."""
    tasks = [
        t for t in load_tasks("train")
        if [a.name for a in t.actions] == [_RETURN] and _TASK.search(t.instruction)
    ][:count]  # fmt: skip
    runs = [_run(task) for task in tasks]
    for k, run in enumerate(runs):
        if k % 2:
            run["traj"] = as_action_traj(run["traj"], react=True)
    return runs


@dataclass(frozen=True)
class ReturnFigures:
    """What :func:`compile_returns` found."""

    runs: int
    item_ids: str
    selection: str
    verification: str
    executed: int
    matched: int
    held_out: str
    elements: tuple[int, int]

    def lines(self) -> list[str]:
        return [
            f"Retail returns ({self.runs} runs of a scripted agent on real tau-bench return tasks "
            "and the real retail environment; last run held out):",
            f"  item_ids = {self.item_ids}",
            f'  selected by: predict "{self.selection}"',
            f"  verification {self.verification} (executed {self.executed}, matched "
            f"{self.matched}); held out: {self.held_out}",
            f"  item_ids elements with an exact source: {self.elements[0]}/{self.elements[1]}",
        ]


def compile_returns(work: Path, count: int = 8) -> ReturnFigures:
    """Write the scripted runs to ``work/retail_returns.json``, import, compile, validate."""
    path = work / "retail_returns.json"
    path.write_text(json.dumps(scripted_return_runs(count)), encoding="utf-8")
    episodes = list(normalize_stream(import_tau_bench(path).episodes))
    kept, held = holdout_split(episodes, 1)
    result = compile_normalized(kept, name="retail_returns")
    spec = next(
        c.spec for a in result.compiled.actions for c in a.choices if c.argument == "item_ids"
    )
    selection = next((str(r.node["signature"]) for r in result.compiled.residuals
                      if any(o.endswith("indexes") for o in r.outputs)), "-")  # fmt: skip
    steps = [s for e in episodes for s in e.ok_steps() if "item_ids" in s.element_sources]
    traced = sum(bool(p) for s in steps for p in s.element_sources["item_ids"])
    total = sum(len(s.arguments["item_ids"]) for s in steps)
    return ReturnFigures(
        runs=len(episodes), item_ids=f"ref {spec['ref']}" if "ref" in spec else f"const {spec}",
        selection=selection, verification=result.verification.status,
        executed=result.verification.executed, matched=result.verification.matched,
        held_out=validate_package(result.package, held).summary(), elements=(traced, total),
    )  # fmt: skip
