"""The airline half of the demo: real gpt-4o trajectories imported and compiled per family.

The 54 successful gpt-4o episodes of ``tau_airline/episodes.json`` are imported
(:func:`jdsl.importers.import_tau_bench`) into a jdsl trace file, grouped by intent (the runs
that make the same writes form one family, whatever task they came from:
:mod:`jdsl.compiler.families`; ``group_families(..., by="task")`` groups per task) and each
family is compiled on its own. Per family the demo
reports the episodes, the exact dataflow refs the compiler found (tool arguments taken from an
earlier tool result; refs straight to a model output are counted apart), verification, the
residual decision burden, and **id-like constants**: action
arguments compiled to a literal that looks like an identifier (no whitespace, four or more
characters, letters and digits, e.g. a reservation id the user typed). Such a constant is
correct for the recorded task and wrong for any other: a package with one serves only that
customer, so the report flags it.

Verification executes each family's program on every successful episode; a read an episode
never made is answered, before its first write, from the shipped database every task starts
from (:func:`jdsl.envs.tau_airline.initial_reads`, the rule in :mod:`jdsl.compiler.lookups`).
An episode neither matched nor handed to the fallback fails the family's verification.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from jdsl.compiler import group_episodes
from jdsl.compiler.arguments import top_key
from jdsl.compiler.families import GroupBy
from jdsl.compiler.stream import normalize_stream
from jdsl.demo.retail_job import stderr_is_terminal
from jdsl.envs.data import data_path
from jdsl.envs.tau_airline import initial_reads
from jdsl.importers import import_tau_bench
from jdsl.ir.walk import labelled_children, walk_ir
from jdsl.trace import Episode, JsonlTraceSink, read_events

__all__ = [
    "FamilyRow",
    "compile_airline",
    "group_families",
    "id_like_constants",
    "ir_actions",
    "ir_refs",
    "ir_tool_text",
]

_ID_LIKE = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])[^\s]{4,}$")
"""Letters and digits mixed: ``amelia_rossi_1297``, ``1N99U6``."""


def _id_like(arg: str, value: str) -> bool:
    """Id-like by shape, or any one-word value of an ``*id`` argument (``MDCLVA``)."""
    return bool(_ID_LIKE.match(value)) or (arg.endswith("id") and " " not in value.strip())


@dataclass(frozen=True)
class FamilyRow:
    """One compiled airline family.

    Attributes:
        family: the intent (``airline.cancel_reservation``) or the task
            (``airline_<split>_<task id>``).
        episodes: how many episodes it has.
        tools: the compiled tool sequence (host names).
        lineage_refs: action arguments compiled to refs of earlier tool results
            (``tool.arg <- path``), in tree order.
        dataflow_refs: the compiler's ``exact_dataflow_refs`` metric (refs to tool results;
            equals ``len(lineage_refs)``).
        model_output_refs: action arguments that ref a model output straight (the metric
            ``residual_refs``).
        inputs: the package's run inputs.
        verification: ``passed`` / ``failed``.
        replay_coverage: replay checks passed / run (None when there were none: unverified).
        residual_decision_burden: model decisions / all decisions of the package.
        id_like_constants: ``tool.arg = "value"`` for id-like literals.
        problems: verification problems (empty when it passed).
        aligned: episodes that follow the compiled path(s).
        executed / matched / fallback: successful episodes the package was run on with their
            recorded results served back, how many it reproduced (same writes, arguments,
            order, outcome) and how many it handed to its fallback.
    """

    family: str
    episodes: int
    tools: tuple[str, ...]
    lineage_refs: tuple[str, ...]
    dataflow_refs: int
    model_output_refs: int
    inputs: tuple[str, ...]
    verification: str
    replay_coverage: float | None
    residual_decision_burden: float
    id_like_constants: tuple[str, ...]
    problems: tuple[str, ...] = ()
    aligned: int = 0
    executed: int = 0
    matched: int = 0
    fallback: int = 0


def ir_actions(ir: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The action nodes of an IR document or node dict, in pre-order."""
    node = ir["root"] if "root" in ir and "kind" not in ir else ir
    return (found for found in walk_ir(node) if found.get("kind") == "action")


def id_like_constants(
    ir: Mapping[str, Any], run_inputs: Sequence[Mapping[str, Any]] = ()
) -> list[str]:
    """``tool.arg = "value"`` for every action argument compiled to an id-like string literal.

    Args:
        ir: a Behavior IR document or node.
        run_inputs: the run inputs of the compiled episodes; a constant that equals the same
            run input in every one of them is marked ``(= run input KEY)``: it could have been
            that input.
    """
    found = []
    for action in ir_actions(ir):
        for arg, spec in sorted((action.get("args") or {}).items()):
            value = spec.get("const") if isinstance(spec, Mapping) else None
            if isinstance(value, str) and _id_like(arg, value):
                found.append(f'{action["tool"]}.{arg} = "{value}"' + _input_note(value, run_inputs))
    return found


def _input_note(value: str, run_inputs: Sequence[Mapping[str, Any]]) -> str:
    keys = [{k for k, v in inputs.items() if v == value} for inputs in run_inputs]
    shared = sorted(set.intersection(*keys)) if keys else []
    return f" (= run input {shared[0]})" if shared else ""


def ir_refs(ir: Mapping[str, Any]) -> list[str]:
    """``tool.arg <- path`` for every action argument that refs an earlier action's result.

    The same count as the compiler's ``exact_dataflow_refs`` metric: the path's top-level key
    is the store of an earlier action (pre-order); refs to run inputs or straight to a model
    output are not listed.
    """
    refs, stores = [], set()
    for action in ir_actions(ir):
        for arg, spec in sorted((action.get("args") or {}).items()):
            path = spec.get("ref") if isinstance(spec, Mapping) else None
            if isinstance(path, str) and top_key(path) in stores:
                refs.append(f"{action['tool']}.{arg} <- {path}")
        if action.get("store"):
            stores.add(action["store"])
    return refs


def _tool_parts(node: Mapping[str, Any], prefix: str) -> list[str]:
    if node.get("kind") == "action":
        return [str(node["tool"]).removeprefix(prefix)]
    children = [child for _, child in labelled_children(node)]
    if node.get("kind") != "selector":
        return [part for child in children for part in _tool_parts(child, prefix)]
    alternatives = [" -> ".join(_tool_parts(child, prefix)) or "-" for child in children]
    if all(alt == "-" for alt in alternatives):
        return []
    return [alternatives[0]] if len(alternatives) == 1 else ["(" + " | ".join(alternatives) + ")"]


def ir_tool_text(ir: Mapping[str, Any], prefix: str = "") -> str:
    """The tools an IR calls, in order, a selector's alternatives as ``(a | b)``.

    Args:
        ir: a Behavior IR document or node.
        prefix: left off every tool name (e.g. ``"retail."``).

    Example:
        >>> ir_tool_text({"kind": "sequence", "children": [
        ...     {"kind": "selector", "children": [
        ...         {"kind": "action", "tool": "x.a"}, {"kind": "action", "tool": "x.b"}]},
        ...     {"kind": "action", "tool": "x.c"}]}, "x.")
        '(a | b) -> c'
    """
    node = ir["root"] if "root" in ir and "kind" not in ir else ir
    return " -> ".join(_tool_parts(node, prefix))


def group_families(episodes: list[Episode], by: GroupBy = "intent") -> dict[str, list[Episode]]:
    """Episodes grouped by intent (:func:`jdsl.compiler.group_episodes`) or, ``by="task"``, by
    ``task_family`` (from ``episode.started``); families sorted by name."""
    if by == "intent":
        raw = {e.episode_id: e for e in episodes}
        return {key: [raw[n.episode_id] for n in members]
                for key, members in group_episodes(list(normalize_stream(episodes)), by)}  # fmt: skip
    families: dict[str, list[Episode]] = {}
    for episode in episodes:
        family = str(episode.started.get("task_family") or episode.episode_id)
        families.setdefault(family, []).append(episode)
    return dict(sorted(families.items()))


def _row(family: str, episodes: list[Episode], result: Any) -> FamilyRow:
    ir = result.package.ir
    report = result.report()
    metrics = report["metrics"]
    verification = report["verification"]
    return FamilyRow(
        family=family,
        episodes=len(episodes),
        tools=tuple(action["tool"] for action in ir_actions(ir)),
        lineage_refs=tuple(ir_refs(ir)),
        dataflow_refs=int(metrics["exact_dataflow_refs"]),
        model_output_refs=int(metrics["residual_refs"]),
        inputs=tuple(sorted(report["inputs"])),
        verification=str(verification["status"]),
        replay_coverage=verification["replay_coverage"],
        residual_decision_burden=float(metrics["residual_decision_burden"]),
        id_like_constants=tuple(id_like_constants(ir, [e.inputs for e in episodes])),
        problems=tuple(str(p) for p in verification["problems"]),
        aligned=int(report["aligned_episodes"]),
        executed=int(verification["executed"]),
        matched=int(verification["matched"]),
        fallback=int(verification.get("fallback", 0)),
    )


def compile_airline(
    trace_path: Path, *, min_episodes: int = 1, progress: bool = True
) -> list[FamilyRow]:
    """Import the gpt-4o airline episodes to ``trace_path`` and compile every family.

    Args:
        trace_path: the jdsl trace file to write (replaced).
        min_episodes: skip families with fewer episodes (they are still counted by the caller).
        progress: show a tqdm bar.

    Returns:
        One :class:`FamilyRow` per compiled family, most episodes first, then by name.
    """
    from jdsl.compiler import compile_behavior

    trace_path.unlink(missing_ok=True)
    source = data_path("tau_airline", "episodes.json")
    import_tau_bench(str(source), sink=JsonlTraceSink(trace_path, resume=False))
    families = group_families(read_events(trace_path).episodes)
    rows = []
    chosen = {f: eps for f, eps in families.items() if len(eps) >= min_episodes}
    reads = initial_reads()  # a read a run never made, before its first write: the shipped db
    for family, episodes in tqdm(
        chosen.items(),
        desc="airline families",
        unit="family",
        disable=not progress,
        leave=not stderr_is_terminal(),  # in a log, end the bar's line (see retail_job._bar)
    ):
        result = compile_behavior(episodes, name=family, task_family=family, reads=reads)
        rows.append(_row(family, episodes, result))
    return sorted(rows, key=lambda row: (-row.episodes, row.family))
