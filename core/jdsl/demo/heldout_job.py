"""The held-out half of the airline demo: tau-bench's own results file, compiled per intent family
with one run held out, and the lineage recall of list elements.

The file is ``tau_airline/raw/gpt-4o-airline.dev.json`` (what tau-bench's ``run.py`` wrote: 87
gpt-4o runs, 54 with reward 1.0), imported with :func:`jdsl.importers.import_tau_bench` and
grouped by intent (what the runs change: :mod:`jdsl.compiler.families`). Each family is
compiled on all but its last successful run and the package validated on that run
(:func:`jdsl.compiler.holdout.holdout_families`, the loop ``jdsl compile --holdout`` runs): served end to end
(matched: the same writes and outcome), handed to the fallback, or refused; constants and
constants a held-out run contradicts (target 0); and the model calls each served run made next
to the recorded agent's assistant turns (each one a model call). A family with a single
successful run has nothing left to compile from and is counted apart, as is a family with no
successful run at all. A family whose program fails verification gets a package that hands
every run to its fallback (fallback only, as ``jdsl compile`` writes it:
:mod:`jdsl.compiler.fallback_only`): its held-out runs are handed to the fallback, and the
figures name the family; without a fallback (none to give) its held-out runs are refused. A read a run never made
is answered, before the run's first write, from the shipped database every tau-bench task
starts from (:func:`jdsl.envs.tau_airline.initial_reads`, the rule in
:mod:`jdsl.compiler.lookups`), in verification and validation alike.

List-element recall: over the list arguments of successful runs, the share of elements with an
exact source in the state before the call (a scalar element: itself; a dict element: every
meaningful field of it), the lineage :mod:`jdsl.compiler.lineage` gives each element.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from jdsl.compiler import NormEpisode, compile_normalized, group_episodes
from jdsl.compiler.holdout import holdout_families
from jdsl.compiler.lineage import StateIndex, is_meaningful
from jdsl.compiler.lookups import ReadAnswers
from jdsl.compiler.stream import normalize_stream
from jdsl.envs.data import data_path
from jdsl.envs.tau_airline import initial_reads
from jdsl.importers import import_tau_bench

__all__ = ["RAW_RESULTS", "HoldoutFigures", "airline_holdout", "holdout_figures", "list_recall"]

RAW_RESULTS = ("tau_airline", "raw", "gpt-4o-airline.dev.json")
"""The package-data path of tau-bench's own airline results file."""


@dataclass(frozen=True)
class HoldoutFigures:
    """The figures of :func:`airline_holdout` (see the module docstring)."""

    runs: int
    successful: int
    families: int
    compiled: int
    verified: int
    too_few: int
    no_success: int
    held_out: int
    served: int
    matched: int
    unreplayable: int
    fallback: int
    refused: int
    divergences: int
    constants: int
    contradicted: int
    model_calls: int
    assistant_turns: int
    scalar_elements: tuple[int, int]
    dict_elements: tuple[int, int]
    unverified: tuple[str, ...] = ()
    fallback_only: tuple[str, ...] = ()
    by: str = "intent"

    def lines(self) -> list[str]:
        """The report lines."""

        def share(pair: tuple[int, int]) -> str:
            return f"{pair[0]}/{pair[1]}" if pair[1] else "none"

        def pct(a: int, b: int) -> str:
            return f"{a}/{b} ({100 * a / b:.0f}%)" if b else f"{a}/{b}"

        per_run = f"{self.model_calls / self.served:.1f}" if self.served else "-"
        turns = f"{self.assistant_turns / self.served:.1f}" if self.served else "-"
        why = (f" (their family's package failed verification: {', '.join(self.unverified)})"
               if self.unverified else "")  # fmt: skip
        only = (f" (their family's program failed verification, its package is fallback only: "
                f"{', '.join(self.fallback_only)})" if self.fallback_only else "")  # fmt: skip
        return [
            f"Held out (tau-bench's own results file, {self.runs} gpt-4o runs, {self.successful} "
            f"successful; grouped by {self.by}, each family compiled without its last successful "
            "run):",
            f"  {self.families} families: {self.compiled} compiled ({self.verified} verified), "
            f"{self.too_few} with one successful run (nothing left to compile from), "
            f"{self.no_success} with no successful run",
            f"  held-out runs {self.held_out}: served end to end {pct(self.served, self.held_out)},"
            f" fallback {self.fallback}{only}, refused {self.refused}{why}",
            f"  served: matched (same writes, same outcome) {pct(self.matched, self.served)}, "
            f"unreplayable {self.unreplayable}, divergences {self.divergences}",
            f"  model calls per served run {per_run} (the recorded agent: {turns} assistant turns)",
            f"  constants {self.constants}, contradicted by a held-out run {self.contradicted} "
            "(target 0)",
            f"  list elements with an exact source: scalars {share(self.scalar_elements)}, "
            f"dicts (every field) {share(self.dict_elements)}",
        ]


def _traced(value: Any, index: StateIndex) -> bool:
    if isinstance(value, dict):
        fields = [v for v in value.values() if is_meaningful(v)]
        return bool(fields) and all(index.sources(v, limit=1) for v in fields)
    return bool(index.sources(value, limit=1))


def list_recall(episodes: Sequence[NormEpisode]) -> tuple[tuple[int, int], tuple[int, int]]:
    """``((scalars traced, scalars), (dicts traced, dicts))`` over the list arguments of the
    successful episodes' successful calls."""
    counts = [0, 0, 0, 0]
    for episode in episodes:
        if episode.success is False:
            continue
        for step in episode.ok_steps():
            lists = [v for v in step.arguments.values() if isinstance(v, list) and v]
            if not lists:
                continue
            index = StateIndex()
            for key, value in step.state_before.items():
                index.set(key, value)
            for value in (item for items in lists for item in items):
                at = 2 if isinstance(value, dict) else 0
                counts[at + 1] += 1
                counts[at] += _traced(value, index)
    return (counts[0], counts[1]), (counts[2], counts[3])


def airline_holdout(n: int = 1, by: Any = "intent") -> HoldoutFigures:
    """Import the raw results file, compile each family holding out ``n`` runs, validate."""
    raw = import_tau_bench(str(data_path(*RAW_RESULTS))).episodes
    return holdout_figures(raw, n, by, reads=initial_reads())  # the shipped airline db


def holdout_figures(
    raw: Sequence[Any],
    n: int = 1,
    by: Any = "intent",
    on_compiled: Callable[[str, Any], None] | None = None,
    reads: ReadAnswers | None = None,
) -> HoldoutFigures:
    """:func:`airline_holdout` on any imported episodes (``import_tau_bench(path).episodes``);
    ``on_compiled(family, result)`` sees each family's :class:`~jdsl.compiler.CompileResult`;
    ``reads`` answers a read a run never made, before its first write (the domain's initial
    state, :mod:`jdsl.compiler.lookups`; None: unanswered)."""
    turns = {e.episode_id: sum(ev.kind == "model.responded" for ev in e.events) for e in raw}
    episodes = list(normalize_stream(raw))
    families = group_episodes(episodes, by)
    unverified: list[str] = []
    fallback_only: list[str] = []
    totals = dict.fromkeys(("compiled", "verified", "too_few", "no_success", "held", "served", "matched",
                            "unreplayable", "fallback", "refused", "divergences", "constants",
                            "contradicted", "model_calls", "turns"), 0)  # fmt: skip

    def compile_family(family: str, kept: list[NormEpisode], peers: list[NormEpisode]) -> Any:
        result = compile_normalized(kept, name=family, reads=reads, peers=peers)
        if on_compiled is not None:
            on_compiled(family, result)
        return result

    for one in holdout_families(families, n, compile_family, reads=reads):
        result, report = one.result, one.report
        if result is None:  # one successful run (held out), or none
            totals["too_few" if any(e.success for e in one.held) else "no_success"] += 1
            continue
        if report is None:  # verification failed: no package is written, its runs are refused
            unverified.append(one.family)
            totals["held"] += one.references
            totals["refused"] += one.references
            totals["compiled"] += 1
            continue
        if not result.ok:  # fallback only: every held-out run handed over
            fallback_only.append(one.family)
        served = [r for r in report.rows if r.served]
        for key, value in (("compiled", 1), ("verified", result.ok), ("held", report.references),
                           ("served", report.served), ("matched", report.matched),
                           ("unreplayable", report.unreplayable), ("fallback", report.fallbacks),
                           ("refused", report.refused), ("divergences", report.divergences),
                           ("constants", len(result.report()["constants"])),
                           ("contradicted", report.contradicted),
                           ("model_calls", sum(r.execution.model_calls for r in served
                                               if r.execution is not None)),
                           ("turns", sum(turns.get(r.episode_id, 0) for r in served))):  # fmt: skip
            totals[key] += int(value)
    scalars, dicts = list_recall(episodes)
    return HoldoutFigures(
        runs=len(episodes), successful=sum(e.success is True for e in episodes),
        families=len(families), compiled=totals["compiled"], verified=totals["verified"],
        too_few=totals["too_few"], no_success=totals["no_success"], held_out=totals["held"], served=totals["served"],
        matched=totals["matched"], unreplayable=totals["unreplayable"],
        fallback=totals["fallback"], refused=totals["refused"],
        divergences=totals["divergences"], constants=totals["constants"],
        contradicted=totals["contradicted"], model_calls=totals["model_calls"],
        assistant_turns=totals["turns"], scalar_elements=scalars, dict_elements=dicts,
        unverified=tuple(unverified), fallback_only=tuple(fallback_only), by=by,
    )  # fmt: skip
