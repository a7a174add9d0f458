"""What a package buys a small model: ``jdsl demo --model local:...``.

On the held-out retail cancel tasks (:func:`jdsl.demo.family.split_family`), the same model runs
two ways, task by task:

(a) **package**: the retail package compiled from the teacher's traces (the offline teacher,
    as ``jdsl demo`` without ``--model``), with the model answering only its residual decisions
    (which order, which reason);
(b) **react**: the model alone as a ``react`` agent with the family's tools (the five the
    package uses) and the same instructions (the teacher's system prompt and the text of its
    two decisions).

Each run is scored with tau-bench's own reward (:func:`jdsl.envs.tau_retail.reward`) on a fresh
environment; model calls, tokens (prompt + completion, as the server reports them) and wall
time are counted per run. :func:`compare_small_model` writes one JSON line per run to
``small_model_runs.jsonl`` as it goes and returns the two rows.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from jdsl.demo.family import identity_form, split_family, task_inputs, task_name
from jdsl.demo.retail_job import compile_retail, record_teacher
from jdsl.demo.teacher import GoldChoice, offline_teacher, teacher_tree
from jdsl.envs.tau_retail import RetailEnv, RetailTask, capability_tools, reward, tree_tools
from jdsl.ir.walk import walk
from jdsl.settings import Settings
from jdsl.tree import Root

__all__ = [
    "FAMILY_TOOLS",
    "ArmRow",
    "Counted",
    "compare_small_model",
    "react_agent",
    "run_small_model_demo",
    "table_text",
]

FAMILY_TOOLS = (
    "find_user_id_by_email",
    "find_user_id_by_name_zip",
    "get_user_details",
    "get_order_details",
    "cancel_pending_order",
)
"""The tools the compiled package calls (and so the react agent gets)."""
REACT_INPUTS = ("request", "email", "first_name", "last_name", "zip")


class Counted:
    """A model that counts its calls and the tokens the server reported."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.calls = 0
        self.tokens = 0

    @property
    def structured_outputs(self) -> bool:
        return getattr(self.model, "structured_outputs", False) is True

    def converse(self, system: str, messages: Any, tools: Any = (), model_id: Any = None,
                 **kw: Any) -> Any:  # fmt: skip
        self.calls += 1
        turn = self.model.converse(system, messages, tools, model_id, **kw)
        usage = getattr(turn, "usage", None)
        if usage is not None:
            self.tokens += (usage.input_tokens or 0) + (usage.output_tokens or 0)
        return turn


@dataclass(frozen=True)
class ArmRow:
    """One arm's totals over the tasks run."""

    arm: str
    tasks: int
    passed: int
    model_calls: int
    tokens: int
    wall_s: float

    @property
    def per_task(self) -> tuple[float, float, float]:
        n = max(1, self.tasks)
        return self.model_calls / n, self.tokens / n, self.wall_s / n


def react_agent() -> Root:
    """The model alone: one react leaf with the family's tools and the teacher's instructions."""
    from jdsl import dsl

    teacher = teacher_tree()
    decisions = [
        node.instructions for node in walk(teacher) if getattr(node, "kind", "") == "predict"
    ]
    instructions = (
        "Cancel the customer's order the request means. Identify the customer by email "
        "(find_user_id_by_email) or by name and zip code (find_user_id_by_name_zip), read their "
        "details and orders, and cancel the order with cancel_pending_order only if it is "
        "pending. The decisions it needs (as the package asks them): "
        + " ".join(d for d in decisions if d)
    )
    return dsl.root("retail_cancel_react", system=teacher.system).do(
        dsl.react(
            f"{', '.join(REACT_INPUTS)} -> answer",
            tools=list(FAMILY_TOOLS),
            instructions=instructions,
            max_steps=8,
            id="agent",
        )
    )


def compare_small_model(
    model_id: str,
    out: Path,
    *,
    limit: int | None = None,
    react_timeout_s: float = 300.0,
    echo: Callable[[str], None] | None = None,
    model: Any = None,
) -> tuple[ArmRow, ArmRow]:
    """Run arms (a) and (b) task by task on the held-out tasks; see the module docstring.

    Args:
        model_id: the model (e.g. ``local:smollm2-135m``), resolved once for both arms.
        out: folder for the teacher traces, the package and ``small_model_runs.jsonl``.
        limit: run only the first ``limit`` held-out tasks (None: all).
        react_timeout_s: the react agent's wall-time budget per task.
        echo: prints one line per run.
        model: a model object to use instead of resolving ``model_id`` (tests).
    """
    from jdsl.providers import resolve_model

    out.mkdir(parents=True, exist_ok=True)
    split = split_family()
    trace = out / "retail_teacher.jsonl"
    record_teacher(teacher_tree(), split.compile, trace, _offline, progress=False)
    _, package = compile_retail(trace, out / "retail_cancel.jdsl")
    model = model if model is not None else resolve_model(model_id)
    agent = react_agent()
    services = SimpleNamespace(
        settings=Settings().merged({"react": {"timeout_s": react_timeout_s}})
    )
    tasks = list(split.held_out)[:limit] if limit else list(split.held_out)
    runs: list[dict[str, Any]] = []
    log = out / "small_model_runs.jsonl"
    log.unlink(missing_ok=True)
    for task in tasks:
        for arm in ("package", "react"):
            run = _run_arm(arm, task, package, agent, model, services)
            runs.append(run)
            with log.open("a", encoding="utf-8") as f:
                f.write(json.dumps(run) + "\n")
            if echo is not None:
                echo(f"{run['task']:<10} {arm:<8} reward {run['reward']:.0f} "
                     f"calls {run['calls']} tokens {run['tokens']} {run['wall_s']:.1f}s "
                     f"{run['note'][:80]}")  # fmt: skip
    return _row("package", runs), _row("react", runs)


def _offline(task: RetailTask) -> Any:
    return offline_teacher(GoldChoice.of(task))


def _run_arm(
    arm: str, task: RetailTask, package: Any, agent: Root, model: Any, services: Any
) -> dict[str, Any]:
    inputs = task_inputs(task)
    env = RetailEnv()
    counted = Counted(model)
    started = time.perf_counter()
    note = ""
    if arm == "package":
        missing = package.missing_inputs(inputs)
        if missing:
            note = "not served: " + "; ".join(missing)
        else:
            ctx = package.as_root(capability_tools(env)).run(
                model=counted, raise_errors=False, **inputs
            )
            note = _note(ctx)
    else:
        tools = [t for t in tree_tools(env) if t.name in FAMILY_TOOLS]
        given: dict[str, Any] = {k: inputs.get(k) for k in REACT_INPUTS}
        ctx = agent.run(model=counted, tools=tools, services=services, raise_errors=False,
                        **given)  # fmt: skip
        note = _note(ctx)
    return {
        "task": task_name(task),
        "identity": identity_form(inputs),
        "arm": arm,
        "reward": reward(env, task),
        "calls": counted.calls,
        "tokens": counted.tokens,
        "wall_s": round(time.perf_counter() - started, 3),
        "note": note,
    }


def _note(ctx: Any) -> str:
    if ctx.error is not None:
        return f"{type(ctx.error).__name__}: {ctx.error}"
    if ctx.failure is not None:
        return str(ctx.failure)
    return ctx.status.value


def _row(arm: str, runs: Sequence[dict[str, Any]]) -> ArmRow:
    mine = [r for r in runs if r["arm"] == arm]
    return ArmRow(
        arm,
        len(mine),
        sum(1 for r in mine if r["reward"] == 1.0),
        sum(r["calls"] for r in mine),
        sum(r["tokens"] for r in mine),
        round(sum(r["wall_s"] for r in mine), 1),
    )


def table_text(model_id: str, rows: Sequence[ArmRow]) -> str:
    """The two rows side by side, per task where it says so."""
    head = (f"{'arm (' + model_id + ')':<44} {'tasks':>5} {'reward 1.0':>10} "
            f"{'calls/task':>10} {'tokens/task':>11} {'s/task':>7} {'wall s':>8}")  # fmt: skip
    lines = [head]
    names = {
        "package": "(a) compiled package + model's residual calls",
        "react": "(b) the model alone as a react agent",
    }
    for row in rows:
        calls, tokens, seconds = row.per_task
        lines.append(
            f"{names[row.arm]:<44} {row.tasks:>5} {row.passed:>10} {calls:>10.2f} "
            f"{tokens:>11.0f} {seconds:>7.1f} {row.wall_s:>8.1f}"
        )
    return "\n".join(lines)


def rows_json(rows: Sequence[ArmRow]) -> list[dict[str, Any]]:
    """The rows as plain dicts (for a JSON summary)."""
    return [asdict(row) for row in rows]


def run_small_model_demo(
    model_id: str,
    out: Path,
    *,
    limit: int | None = None,
    echo: Callable[[str], None] | None = None,
    per_run: bool = True,
) -> tuple[ArmRow, ArmRow]:
    """``jdsl demo --model local:...``: :func:`compare_small_model`, then the table printed
    and written to ``out/small_model.txt`` (and the rows to ``out/small_model.json``)."""
    started = time.perf_counter()
    rows = compare_small_model(model_id, out, limit=limit, echo=echo if per_run else None)
    text = table_text(model_id, rows)
    text += f"\ntotal wall time {time.perf_counter() - started:.0f} s"
    (out / "small_model.txt").write_text(text + "\n", encoding="utf-8")
    (out / "small_model.json").write_text(json.dumps(rows_json(rows), indent=2), encoding="utf-8")
    print_ = echo or (lambda _: None)
    print_(text)
    return rows
