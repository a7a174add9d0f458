"""The retail half of the demo: teacher traces -> compiled package -> held-out tasks scored.

1. :func:`record_teacher`: the teacher behavior runs on every compile task, each on a fresh
   :class:`RetailEnv`, traced to one JSONL file; the tau-bench reward of each run is appended to
   its episode as an ``environment.reward`` event (so the compiler knows which runs succeeded).
2. :func:`compile_retail`: those episodes compile (:func:`jdsl.compiler.compile_behavior`) with
   the retail tools mapped to logical capability ids ``retail.<tool>``; the package is exported
   as a ``.jdsl`` file and loaded back (digests and IR checked).
3. :func:`serve_held_out`: the reloaded package is bound to a fresh environment per held-out
   task and run with a model answering its residual signatures; each run is scored with the
   benchmark's reward. A task lacking run inputs the package needs
   (:meth:`jdsl.package.BehaviorPackage.missing_inputs`: every required input, and for each
   compiled branch all inputs of at least one alternative) is not run: it is listed as
   unserved, with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from jdsl.compiler.report import inputs_text as format_inputs
from jdsl.demo.family import FAMILY, identity_form, task_inputs, task_name
from jdsl.envs.tau_retail import (
    CAPABILITY_PREFIX,
    RetailEnv,
    RetailReward,
    RetailTask,
    capability_tools,
    retail_tool_schemas,
    reward,
    reward_info,
    tree_tools,
)
from jdsl.errors import PackageError
from jdsl.trace import EventKind, JsonlTraceSink, TraceEvent, TraceSink, read_events
from jdsl.tree import Root

__all__ = [
    "LOGICAL_PREFIX",
    "ModelFor",
    "TaskOutcome",
    "canonical_names",
    "compile_retail",
    "input_alternatives",
    "inputs_text",
    "package_inputs",
    "record_teacher",
    "serve_held_out",
    "tool_effects",
]

LOGICAL_PREFIX = CAPABILITY_PREFIX
CAPTURE_ID = "demo_retail"
ModelFor = Callable[[RetailTask], Any]
"""Gives the model that answers a task's residual signatures (offline teacher or a provider)."""


@dataclass(frozen=True)
class TaskOutcome:
    """One task's run: ``served`` False means it was not run (``note`` says why).

    Attributes:
        task: ``<split>/<task id>``.
        identity: how the simulated user identifies (``email``, ``name+zip``, ``none``).
        served: whether the task was run at all.
        status: the run's status (``success`` / ``failure`` / ``error``), None when not served.
        reward: the tau-bench reward (0.0 when not served).
        note: why it was not served, or how a served run went wrong ("" when it passed).
    """

    task: str
    identity: str
    served: bool
    status: str | None
    reward: float
    note: str = ""


def canonical_names() -> dict[str, str]:
    """Host tool name -> logical capability id (``cancel_pending_order`` -> ``retail.cancel_pending_order``)."""
    return {entry["name"]: LOGICAL_PREFIX + entry["name"] for entry in retail_tool_schemas()}


def tool_effects() -> dict[str, dict[str, bool]]:
    """Logical id -> effects from ``tools.schema.json``'s ``kind``: write tools are destructive."""
    effects = {}
    for entry in retail_tool_schemas():
        write = entry["kind"] in ("write", "terminal")
        effects[LOGICAL_PREFIX + entry["name"]] = {
            "read_only": not write,
            "destructive": write,
            "idempotent": not write,
        }
    return effects


def _run_note(ctx: Any) -> str:
    if ctx.error is not None:
        return f"{type(ctx.error).__name__}: {ctx.error}"
    return "" if ctx.status.value == "success" else f"the tree ended in {ctx.status.value}"


def _score_note(scored: RetailReward) -> str:
    if not scored.database_matches:
        return "the run succeeded but the database differs from the gold replay (a wrong decision)"
    return "the run succeeded but a required output was not said"


def _emit_reward(sink: TraceSink, episode_id: str, value: float, task: RetailTask) -> None:
    sink.emit(
        TraceEvent(
            kind=EventKind.ENVIRONMENT_REWARD,
            capture_id=CAPTURE_ID,
            episode_id=episode_id,
            actor="environment",
            payload={"reward": value, "task": task_name(task), "benchmark": "tau-bench retail"},
        )
    )


def record_teacher(
    tree: Root,
    tasks: Sequence[RetailTask],
    trace_path: Path,
    model_for: ModelFor,
    *,
    progress: bool = True,
) -> list[TaskOutcome]:
    """Run the teacher on each task (fresh environment each), traced to ``trace_path``.

    The file is replaced. Each episode is named ``retail_<split>_<task id>`` and ends with the
    run's reward. Returns one :class:`TaskOutcome` per task, in order.
    """
    trace_path.unlink(missing_ok=True)
    sink = JsonlTraceSink(trace_path, resume=False)
    outcomes = []
    for task in _bar(tasks, "teacher runs", progress):
        env, inputs = RetailEnv(), task_inputs(task)
        episode_id = f"retail_{task.split}_{task.task_id}"
        ctx = tree.run(
            model=model_for(task),
            tools=tree_tools(env),
            trace_sink=sink,
            capture_id=CAPTURE_ID,
            episode_id=episode_id,
            raise_errors=False,
            **inputs,
        )
        value = reward(env, task)
        _emit_reward(sink, episode_id, value, task)
        outcomes.append(
            TaskOutcome(
                task_name(task),
                identity_form(inputs),
                True,
                ctx.status.value,
                value,
                _run_note(ctx),
            )
        )
    return outcomes


def compile_retail(trace_path: Path, package_path: Path) -> tuple[Any, Any]:
    """Compile the teacher episodes in ``trace_path``, export ``package_path`` and reload it.

    Returns:
        ``(compile_result, loaded_package)``: the :class:`jdsl.compiler.CompileResult` and the
        package as :func:`jdsl.package.load_package` read it back from disk.
    """
    from jdsl.compiler import compile_behavior
    from jdsl.package import export_jdsl, load_package

    episodes = read_events(trace_path).episodes
    result = compile_behavior(
        episodes,
        name="retail_cancel",
        task_family=FAMILY,
        canonical=canonical_names(),
        effects=tool_effects(),
    )
    return result, load_package(export_jdsl(result.package, package_path))


def package_inputs(package: Any) -> list[str]:
    """The run inputs every path of the package needs (``manifest.json``: ``source.inputs``).

    Inputs only some branch alternative reads are not listed (see :func:`input_alternatives`).

    Raises:
        PackageError: the manifest declares no run inputs at all (not even an empty list).
    """
    manifest = package.manifest
    for holder in (manifest.get("source") or {}, manifest):
        if "inputs" in holder:
            return sorted(holder["inputs"])
    raise PackageError(f"package {package.name!r} declares no run inputs in its manifest")


def input_alternatives(package: Any) -> list[list[list[str]]]:
    """Per compiled branch, the run inputs each alternative reads (``source.input_alternatives``).

    Example: ``[[["email"], ["first_name", "last_name", "zip"]]]`` (one branch, two
    alternatives); empty when the package has no branch that reads run inputs.
    """
    return [
        [list(alt) for alt in branch]
        for branch in (package.manifest.get("source") or {}).get("input_alternatives") or ()
    ]


def inputs_text(package: Any) -> str:
    """The run inputs a host must give: ``request; one of: email | first_name, last_name, zip``."""
    return format_inputs(package_inputs(package), input_alternatives(package), empty="none")


_IDENTITY = {
    "email": "identifies by email",
    "name+zip": "identifies by name and zip code",
    "none": "states no single email or zip code",
}


def _unserved_note(missing: Sequence[str], identity: str) -> str:
    """Why a task is not run, from ``BehaviorPackage.missing_inputs`` (``one of: a | b, c``)."""
    reasons = [
        f"no identity the package can use: needs one of {item.removeprefix('one of: ')}"
        if item.startswith("one of: ")
        else f"missing run input {item}"
        for item in missing
    ]
    return "; ".join(reasons) + f" (the user {_IDENTITY[identity]})"


def _logical_tools(env: RetailEnv) -> dict[str, Any]:
    return capability_tools(env)


def serve_held_out(
    package: Any,
    tasks: Iterable[RetailTask],
    model_for: ModelFor,
    *,
    progress: bool = True,
) -> list[TaskOutcome]:
    """Run the package on each task it can serve (fresh environment each) and score it.

    A task the package cannot serve (``package.missing_inputs(inputs)`` not empty: a required
    input missing, or no alternative of a branch whose inputs are all given) is not run; its
    outcome says what is missing and how the user identifies. Runs do not raise: an error is
    recorded in the outcome's ``note``.
    """
    outcomes = []
    for task in _bar(list(tasks), "held-out runs", progress):
        inputs = task_inputs(task)
        identity = identity_form(inputs)
        missing = package.missing_inputs(inputs)
        if missing:
            outcomes.append(
                TaskOutcome(
                    task_name(task), identity, False, None, 0.0, _unserved_note(missing, identity)
                )
            )
            continue
        env = RetailEnv()
        root = package.as_root(_logical_tools(env))
        ctx = root.run(model=model_for(task), raise_errors=False, **inputs)
        scored = reward_info(env, task)
        note = "" if scored.reward == 1.0 else _run_note(ctx) or _score_note(scored)
        outcomes.append(
            TaskOutcome(task_name(task), identity, True, ctx.status.value, scored.reward, note)
        )
    return outcomes


def _bar(items: Sequence[Any], label: str, enabled: bool) -> Any:
    """A progress bar on stderr; in a log (stderr not a terminal) it ends its line, so the
    report's headings that follow on stdout start on a line of their own."""
    return tqdm(items, desc=label, unit="task", disable=not enabled, leave=not stderr_is_terminal())


def stderr_is_terminal() -> bool:
    import sys

    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())
