"""The tau-bench domains jdsl ships (airline, retail): their tools and tasks, and which
domain a results-file run belongs to (by the tools it calls)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from jdsl.envs.data import DataNotFoundError, load_json
from jdsl.importers.common import ImportFormatError
from jdsl.importers.conversation import AssistantTurn
from jdsl.importers.tau_results import ParsedRun

__all__ = ["DOMAINS", "check_domain", "detect_domain", "domain_tools", "task_splits", "tool_names"]

DOMAINS = ("airline", "retail")
"""The tau-bench domains whose tools and tasks jdsl ships."""


def domain_tools(domain: str) -> list[dict[str, Any]]:
    """The domain's shipped tool schemas (``tools.schema.json``); [] for a domain not shipped."""
    try:
        tools: list[dict[str, Any]] = load_json(f"tau_{domain}", "tools.schema.json")
    except DataNotFoundError:
        return []
    return tools


@lru_cache(maxsize=4)
def tool_names(domain: str) -> frozenset[str]:
    """The names of the domain's shipped tools."""
    return frozenset(str(t["name"]) for t in domain_tools(domain))


@lru_cache(maxsize=4)
def task_splits(domain: str) -> dict[tuple[str, str], str]:
    """``{(task id, instruction): split}`` of the domain's shipped tasks."""
    try:
        tasks = load_json(f"tau_{domain}", "tasks.json")
    except DataNotFoundError:
        return {}
    return {(str(t["task_id"]), str(t["instruction"])): str(t["split"]) for t in tasks}


def detect_domain(run: ParsedRun) -> str | None:
    """The shipped domain whose tools the run calls (all of them), else the one its system
    prompt names first, else None."""
    called = {c.name for t in run.turns if isinstance(t, AssistantTurn) for c in t.calls}
    fits = [d for d in DOMAINS if called and called <= tool_names(d)]
    if len(fits) == 1:
        return fits[0]
    heading = run.system[:200].lower()
    named = [d for d in DOMAINS if d in heading]
    return named[0] if named else None


def check_domain(run: ParsedRun, domain: str | None, path: Path, index: int) -> None:
    """Raise ImportFormatError (naming the run, its calls' domain and the fix) when ``--domain``
    names a domain whose tools the run's calls are not, and another domain's they are."""
    called = {c.name for t in run.turns if isinstance(t, AssistantTurn) for c in t.calls}
    if domain is None or not called or called <= tool_names(domain):
        return
    fits = [d for d in DOMAINS if called <= tool_names(d)]
    if fits:
        raise ImportFormatError(
            f"its calls are {fits[0]} tools ({', '.join(sorted(called)[:3])}), not {domain} "
            f"ones: drop --domain {domain} (the calls tell the domain) or pass --domain "
            f"{fits[0]}", path=path, where=f"run {index + 1} (task {run.task_id})",
        )  # fmt: skip
