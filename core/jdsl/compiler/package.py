"""Package assembly: a verified compiled behavior -> :class:`jdsl.package.BehaviorPackage`.

Files (docs/design.md appendix B §8): ``manifest.json`` (name, version, required capabilities,
source, verification, metrics, digests; ``source.inputs`` are the run inputs every path needs,
``source.optional_inputs`` those only some branch alternatives read, ``source.input_alternatives``
per branch the inputs each alternative reads beyond the required ones, ``source.branches`` each
branch with its alternatives' support, ``source.stated_inputs`` the inputs the user states
(``{input: {tool, argument}}``), ``source.constants`` every constant with its support,
``source.reading`` how the compile read its runs: :mod:`jdsl.compiler.reading`),
``behavior.json``, ``tools.json``
(capability contracts with effects; shell-like capabilities are destructive and not idempotent
unless ``effects`` says otherwise), ``signatures/<id>.json``, ``provenance.json``,
``tests/replay.jsonl`` (per run: its checks and its verdict, ``outcome``: matched / fallback /
unreplayable / diverged, what ``jdsl package validate`` says of it too) /
``tests/guards.jsonl`` / ``tests/signatures.jsonl``,
``evidence/summary.json`` and a ``README.md``. Nothing depends on the clock or hash seeds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from jdsl.compiler.compiled import CompiledBehavior
from jdsl.compiler.consolidate import Candidate
from jdsl.compiler.families import recorded_domain
from jdsl.compiler.metrics import package_metrics
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.reading import Reading
from jdsl.compiler.residualize import infer_type
from jdsl.compiler.store import heads
from jdsl.compiler.verify import VerificationReport
from jdsl.package import BehaviorPackage, ToolContract, ToolEffects, default_effects

__all__ = ["COMPILER_ID", "build_package"]

COMPILER_ID = "jdsl-compiler"
_JSON_TYPES = {
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "str": "string",
    "dict": "object",
}


def build_package(
    compiled: CompiledBehavior,
    report: VerificationReport,
    candidates: Sequence[Candidate],
    episodes: Sequence[NormEpisode],
    *,
    task_family: str = "",
    effects: Mapping[str, ToolEffects | Mapping[str, Any]] | None = None,
    version: str = "0.1.0",
    reading: Reading | None = None,
    fallback_only: str = "",
) -> BehaviorPackage:
    """Assemble the package files of a compiled (and verified) behavior (``reading``: how the
    compile read its runs, :mod:`jdsl.compiler.reading`, kept as ``source.reading``;
    ``fallback_only``: why the package only hands runs to its fallback, kept as the manifest's
    ``fallback_only`` and said in its README, :mod:`jdsl.compiler.fallback_only`)."""
    metrics = package_metrics(compiled.ir)
    used = {cid for p in compiled.provenance for cid in p.candidates}
    manifest = {
        "name": compiled.name,
        "version": version,
        "task_family": task_family,
        "model_id": None,
        "runtime": {"jdsl": ">=0.1"},
        "required_capabilities": list(compiled.required_capabilities),
        "required_predicates": sorted(
            {g.node["predicate"] for g in compiled.guards if g.node["kind"] == "guard_call"}
        ),
        "source": {
            "compiler": COMPILER_ID,
            "inputs": list(compiled.required_inputs),
            "optional_inputs": sorted(set(compiled.inputs) - set(compiled.required_inputs)),
            "input_alternatives": compiled.input_alternatives(),
            "compiler_model": compiled.compiler_model,
            **_domain(episodes),
            "episode_count": len(episodes),
            "successful_episodes": sum(1 for h in heads(episodes) if h.success),
            "aligned_episodes": len(compiled.aligned),
            "skeleton": list(compiled.skeleton),
            "branches": [b.to_dict() for b in compiled.branches],
            "stated_inputs": _stated_inputs(compiled),
            "constants": _constants(compiled),
            **({"reading": reading.to_dict()} if reading is not None else {}),
        },
        "verification": report.to_dict(),
        "metrics": metrics.to_dict(),
        **({"fallback_only": fallback_only} if fallback_only else {}),
    }
    return BehaviorPackage.assemble(
        manifest,
        behavior=compiled.ir,
        tools=_contracts(compiled, effects or {}),
        signatures=[r.signature for r in compiled.residuals],
        json_files={
            "provenance.json": {
                "nodes": [p.to_dict() for p in compiled.provenance],
                "candidates": [c.to_dict() for c in candidates if c.candidate_id in used],
            },
            "evidence/summary.json": _summary(compiled, candidates, episodes, metrics.to_dict()),
        },
        jsonl_files=_tests(compiled, report, episodes),
        text_files={"README.md": _readme(compiled, report, task_family, fallback_only)},
    )


def _domain(episodes: Sequence[NormEpisode]) -> dict[str, str]:
    """``{"domain": d}`` when every run compiled from names domain ``d``
    (:func:`~jdsl.compiler.families.recorded_domain`): ``jdsl package validate`` refuses runs
    of another domain by it, whatever the tools are called."""
    domains = {recorded_domain(e) for e in episodes}
    return {"domain": domains.pop()} if len(domains) == 1 and "" not in domains else {}


def _stated_inputs(compiled: CompiledBehavior) -> dict[str, dict[str, str]]:
    """``{input: {"tool", "argument"}}`` for run inputs the user states in their messages (a
    host takes them from what the user said; held-out validation looks for them there)."""
    return {
        str(c.source): {"tool": a.tool, "argument": c.argument}
        for a in compiled.actions
        for c in a.choices
        if c.how == "input" and c.stated
    }


def _constants(compiled: CompiledBehavior) -> list[dict[str, Any]]:
    """Every constant argument with its support (identical observations / aligned episodes,
    and the different users and tasks those runs span)."""
    return [
        {"node_id": a.node_id, "tool": a.tool, "argument": c.argument, "value": c.spec["const"],
         "support": c.support, "episodes": len(c.values), "users": c.spans[0],
         "tasks": c.spans[1]}
        for a in compiled.actions
        for c in a.choices
        if c.how == "const"
    ]  # fmt: skip


def _contracts(
    compiled: CompiledBehavior, effects: Mapping[str, ToolEffects | Mapping[str, Any]]
) -> list[ToolContract]:
    observed: dict[str, dict[str, list[Any]]] = {}
    for action in compiled.actions:
        args = observed.setdefault(action.tool, {})
        for choice in action.choices:
            args.setdefault(choice.argument, []).extend(choice.values)
    contracts = []
    for cap in compiled.required_capabilities:
        given = effects.get(cap)
        args = observed.get(cap, {})
        schema: dict[str, Any] = {"type": "object"}
        if args:
            schema["properties"] = {
                a: {"type": _JSON_TYPES.get(infer_type(v), "array")}
                for a, v in sorted(args.items())
            }
            schema["required"] = sorted(args)
        contracts.append(
            ToolContract(
                cap,
                input_schema=schema,
                effects=ToolEffects.of(given) if given is not None else default_effects(cap),
            )
        )
    return contracts


def _summary(
    compiled: CompiledBehavior,
    candidates: Sequence[Candidate],
    episodes: Sequence[NormEpisode],
    metrics: dict[str, Any],
) -> dict[str, Any]:
    return {
        "episode_count": len(episodes),
        "successful": sum(1 for h in heads(episodes) if h.success),
        "aligned": len(compiled.aligned),
        "candidates": len(candidates),
        "candidates_by_grade": dict(sorted(Counter(c.grade for c in candidates).items())),
        "candidates_by_type": dict(sorted(Counter(c.type for c in candidates).items())),
        "candidates_by_status": dict(sorted(Counter(c.status for c in candidates).items())),
        "nodes_by_grade": dict(
            sorted(Counter(p.evidence_grade for p in compiled.provenance).items())
        ),
        "branches": [b.to_dict() for b in compiled.branches],
        "residual_decision_burden": metrics["residual_decision_burden"],
        "deterministic_coverage": metrics["deterministic_coverage"],
        "notes": list(compiled.notes),
    }


def _tests(
    compiled: CompiledBehavior, report: VerificationReport, episodes: Sequence[NormEpisode]
) -> dict[str, list[dict[str, Any]]]:
    by_episode: dict[str, list[bool]] = {}
    by_node: dict[str, list[bool]] = {}
    for check in report.checks:
        by_episode.setdefault(check.episode_id, []).append(check.passed)
        by_node.setdefault(check.node_id, []).append(check.passed)
    aligned = set(compiled.aligned)
    executed = {x.episode_id: x for x in report.executions}
    replay = [
        {
            "episode": e.episode_id,
            "success": e.success,
            "aligned": e.episode_id in aligned,
            "source_digest": e.source_digest,
            "checks": len(by_episode.get(e.episode_id, [])),
            "passed": sum(by_episode.get(e.episode_id, [])),
            "executed": e.episode_id in executed,
            "matched": e.episode_id in executed and executed[e.episode_id].matched,
            "outcome": executed[e.episode_id].outcome if e.episode_id in executed else None,
            "divergence": _divergence(executed.get(e.episode_id)),
        }
        for e in heads(episodes)
    ]
    guards = [
        {
            "node_id": g.node_id,
            "position": g.position,
            "origin": g.origin,
            "node": g.node,
            "checks": len(by_node.get(g.node_id, [])),
            "passed": sum(by_node.get(g.node_id, [])),
        }
        for g in compiled.guards
    ]
    signatures = [
        {"id": r.signature["id"], "signature": r.signature["signature"],
         "recorded_outputs": r.signature["recorded_outputs"]}
        for r in compiled.residuals
    ]  # fmt: skip
    return {
        "tests/replay.jsonl": replay,
        "tests/guards.jsonl": guards,
        "tests/signatures.jsonl": signatures,
    }


def _divergence(execution: Any) -> dict[str, Any] | None:
    divergence = getattr(execution, "divergence", None)
    return None if divergence is None else dict(divergence.to_dict())


def _readme(
    compiled: CompiledBehavior, report: VerificationReport, task_family: str, fallback_only: str
) -> str:
    lines = [
        f"# {compiled.name}",
        "",
        f"Compiled by {COMPILER_ID} from {len(compiled.aligned)} aligned episode(s).",
        f"Task family: {task_family or '-'}",
        f"Verification: {report.status} (replay {report.replay_passed}/{report.replay_checks};"
        f" executed {report.executed} episode(s), {report.matched} matched,"
        f" {report.fallbacks} handed to the fallback, {report.unreplayable} unreplayable)",
        *([f"Fallback only: {fallback_only}"] if fallback_only else []),
        f"Run inputs: {', '.join(compiled.required_inputs) or '-'}",
        *(f"Branch: {b.text()}" for b in compiled.branches),
        f"Capabilities: {', '.join(compiled.required_capabilities) or '-'}",
        f"Model decisions: {len(compiled.residuals)}",
        "",
        "This package holds restricted Behavior IR, typed signatures and capability contracts;",
        "it contains no code. Bind host tools to the capabilities to run it.",
        "",
    ]
    return "\n".join(lines)
