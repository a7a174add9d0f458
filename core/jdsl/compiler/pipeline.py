"""``compile_behavior``: episodes -> normalize -> consolidate -> staticize -> verify -> package.

Every pass is a pure function of its inputs; compiling the same episodes twice gives
byte-identical package files. The optional compiler model only words residual instructions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jdsl.compiler.admit import cut_note, finished_only, require_success
from jdsl.compiler.arguments import ArgChoice, top_key
from jdsl.compiler.branches import MIN_BRANCH_SUPPORT, BranchPlan
from jdsl.compiler.compiled import CompiledBehavior
from jdsl.compiler.consolidate import Candidate, Contracts, consolidate, support_grade
from jdsl.compiler.errors import CompileError
from jdsl.compiler.fallback import attach_fallback, compiled_program
from jdsl.compiler.fallback_only import fallback_only_package
from jdsl.compiler.families import GroupBy, group_episodes, same_domain
from jdsl.compiler.lookups import ReadAnswers
from jdsl.compiler.metrics import PackageMetrics, package_metrics
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.package import build_package
from jdsl.compiler.reading import read_family
from jdsl.compiler.reduce import FactTable
from jdsl.compiler.report import CompileReport
from jdsl.compiler.retries import improves, more_support
from jdsl.compiler.staticize import Family, emit_plan, plan_key, prepare
from jdsl.compiler.store import NormStore
from jdsl.compiler.stream import (
    EpisodeSource,
    episodes_from,
    normalize_stream,
    refuse_broken,
)
from jdsl.compiler.unused import unused_notes
from jdsl.compiler.verify import ReplayMap, VerificationReport, promote, verify
from jdsl.package import SUFFIX, BehaviorPackage, ToolEffects
from jdsl.trace.filenames import prefixed

__all__ = [
    "CompileReport",
    "CompileResult",
    "CompiledFamilies",
    "compile_behavior",
    "compile_families",
    "compile_normalized",
]


@dataclass(frozen=True)
class CompileResult:
    """Everything a compile produced.

    Attributes:
        package: the behavior package (write it with ``jdsl.package.export_jdsl``).
        compiled: the compiled behavior (IR, residuals, provenance after promotion).
        candidates: the consolidated candidates.
        verification: the verification report (refs and guards replayed, the tree executed
            on every aligned episode: :mod:`jdsl.compiler.replay`).
        normalized: the normalized episodes (a :class:`~jdsl.compiler.store.NormStore` when
            streamed: each read decodes the episode).
        metrics: :func:`~jdsl.compiler.metrics.package_metrics` of the IR.
        cut_off: the episodes left out as cut off mid-run (:mod:`jdsl.compiler.admit`).
        fallback_package: when verification failed, the package written instead, handing every
            run to the fallback (:mod:`jdsl.compiler.fallback_only`); None when it passed.
    """

    package: BehaviorPackage
    compiled: CompiledBehavior
    candidates: tuple[Candidate, ...]
    verification: VerificationReport
    normalized: Sequence[NormEpisode]
    metrics: PackageMetrics
    cut_off: tuple[str, ...] = ()
    fallback_package: BehaviorPackage | None = None

    @property
    def ok(self) -> bool:
        """Whether verification passed."""
        return self.verification.ok

    @property
    def fallback_only(self) -> bool:
        """Verification failed and :attr:`fallback_package` is what a family gets (issue 24)."""
        return not self.ok and self.fallback_package is not None

    @property
    def ir(self) -> dict[str, Any]:
        """The compiled program's IR, without the fallback the package wraps it in
        (``result.package.ir`` / ``result.compiled.ir`` have it)."""
        return compiled_program(self.compiled.ir)

    def report(self) -> CompileReport:
        """A :class:`CompileReport`: dict fields plus ``str()`` / ``.text`` summary."""
        c = self.compiled
        decided = {key for r in c.residuals for key in r.outputs}
        arguments = [
            f"{a.tool}.{ch.argument} = {_spec_text(ch.spec)} ({_how(ch, decided)})"
            for a in c.actions
            for ch in a.choices
        ]
        constants = [
            f"{a.tool}.{ch.argument} = {ch.spec['const']!r}: {ch.support} of {len(ch.values)} "
            f"episodes, {ch.spans[0]} users, {ch.spans[1]} tasks ({support_grade(ch.support)})"
            for a in c.actions
            for ch in a.choices
            if ch.how == "const"
        ]
        return CompileReport(
            name=c.name,
            episodes=len(self.normalized),
            aligned_episodes=len(c.aligned),
            skeleton=list(c.skeleton),
            verification=self.verification.to_dict(),
            metrics=self.metrics.to_dict(),
            inputs=list(c.inputs),
            required_inputs=list(c.required_inputs),
            input_alternatives=c.input_alternatives(),
            branches=[b.to_dict() for b in c.branches],
            branch_text=[b.text() for b in c.branches],
            required_capabilities=list(c.required_capabilities),
            candidates=len(self.candidates),
            arguments=arguments,
            constants=constants,
            model_decisions=[r.node["id"] + ": " + r.node["signature"] for r in c.residuals],
            notes=list(c.notes),
            cut_off=list(self.cut_off),
        )


def _how(choice: ArgChoice, decided: set[str]) -> str:
    """``dataflow``, ``model output`` for a lineage ref whose top-level key a model wrote,
    ``input, stated by the user`` for an input the user's messages contain, else ``how``."""
    if choice.how == "dataflow" and top_key(choice.source or "") in decided:
        return "model output"
    return "input, stated by the user" if choice.stated else choice.how


def _spec_text(spec: Mapping[str, Any]) -> str:
    return f"ref {spec['ref']}" if "ref" in spec else f"const {spec.get('const')!r}"


def compile_behavior(
    episodes: EpisodeSource,
    *,
    name: str,
    task_family: str = "",
    canonical: Mapping[str, str] | None = None,
    contracts: Contracts | None = None,
    effects: Mapping[str, ToolEffects | Mapping[str, Any]] | None = None,
    model: Any = None,
    version: str = "0.1.0",
    allow_broken_chain: bool = False,
    min_support: int = MIN_BRANCH_SUPPORT,
    group_by: GroupBy | None = None,
    fallback: bool = True,
    reads: ReadAnswers | None = None,
) -> Any:
    """Compile recorded episodes into a verified behavior package (one per family with
    ``group_by``).

    Args:
        episodes: :class:`jdsl.trace.Episode` s (e.g. ``read_events(path).episodes``),
            ``{"episode_id", "events"}`` mappings, or any iterable of them (a generator is
            consumed once, one episode at a time); or a JSONL trace path or a list of paths,
            streamed with :func:`jdsl.trace.iter_episodes`. Each episode is chain-checked and
            normalized as it comes, and only its normalized form is kept, so memory grows with
            the normalized episodes (a few kB each), not with the events.
        name: the behavior (root) name.
        task_family: recorded in the manifest.
        canonical: host tool name -> logical capability id.
        contracts: claim texts backed by trusted metadata (graded E3).
        effects: capability -> effects (``{"read_only", "destructive", "idempotent"}``).
        model: optional compiler model (a chat model or a ``CompilerModel``) that words
            residual instructions; structure never depends on it.
        version: the package version.
        min_support: successful episodes a branch alternative needs; thinner paths are
            reported and left out (default 2).
        allow_broken_chain: compile episodes whose hash chain
            (:func:`jdsl.trace.verify_chain`) is broken. Events without hashes (hand-built
            dicts) are never chain-checked; traces from a sink or ``jdsl import`` carry them.
        group_by: ``"intent"`` / ``"task"`` / ``"sequence"`` (:mod:`jdsl.compiler.families`):
            compile each family on its own; ``name`` prefixes the family names when given.
        fallback: give the package a fallback (:mod:`jdsl.compiler.fallback`).
        reads: answers, in verification, reads an episode never made before its first write
            (the domain's initial state: :mod:`jdsl.compiler.lookups`).

    Returns:
        A :class:`CompileResult` (``result.report()`` summarises it); with ``group_by``, a
        :class:`CompiledFamilies`.

    Raises:
        CompileError: an episode's hash chain is broken (an edited, dropped or reordered
            event), no episode succeeded, or every episode is cut off mid-run (no
            ``episode.finished``: :mod:`jdsl.compiler.admit`; when only some are, they are
            left out, and the report's notes and ``cut_off`` name them).
        CompileInputError: ``episodes`` is none of the forms above (a ``TypeError`` too).
        TraceNotFoundError: a trace path that does not exist (a ``FileNotFoundError`` too).

    Example:
        >>> from jdsl.trace import read_events                      # doctest: +SKIP
        >>> result = compile_behavior(read_events("runs.jsonl").episodes, name="cancel")  # doctest: +SKIP
        >>> print(result.report())  # doctest: +SKIP
    """
    normalized = normalize_stream(
        episodes_from(episodes), canonical=canonical, check_chain=not allow_broken_chain
    )
    options: dict[str, Any] = dict(
        task_family=task_family, contracts=contracts, effects=effects, model=model,
        version=version, min_support=min_support, fallback=fallback, reads=reads,
    )  # fmt: skip
    if group_by is not None:
        return compile_families(normalized, group_by, prefix=name, **options)
    return compile_normalized(normalized, name=name, **options)


def compile_normalized(
    normalized: Sequence[NormEpisode],
    *,
    name: str,
    task_family: str = "",
    contracts: Contracts | None = None,
    effects: Mapping[str, ToolEffects | Mapping[str, Any]] | None = None,
    model: Any = None,
    version: str = "0.1.0",
    min_support: int = MIN_BRANCH_SUPPORT,
    facts: FactTable | None = None,
    replay: ReplayMap | None = None,
    fallback: bool = True,
    reads: ReadAnswers | None = None,
    peers: Sequence[NormEpisode] = (),
) -> CompileResult:
    """:func:`compile_behavior` from already normalized episodes (e.g. one family of many).

    ``facts``, when given, is the consolidation's keyed reduce of the same episodes (e.g. a
    Dask engine's tree reduction); without it the facts are extracted here. ``replay``, when
    given, computes verification's per-episode part elsewhere (:func:`~jdsl.compiler.verify.
    verify`; the Dask engine runs it on the workers holding the shards); the result is the same.
    With ``fallback`` (the default) the package hands runs its compiled paths do not cover to a
    react with the family's tools (:mod:`jdsl.compiler.fallback`); and where the successful
    paths part ways with none supported enough to branch (``min_support``), when the path
    followed does not pass verification or hands runs to the fallback, the program follows
    every path that makes the writes most runs make (when those runs have the support; a route
    where they part, which may answer that none fits) if that passes and matches more runs;
    else, when the path followed fails, it is the paths' common part, handing over to the
    fallback where they part, if that passes; likewise, next to supported paths, a path too
    thin to compile whose runs the program does not account for hands over where it parts from
    them. Of the programs tried, the one kept passes verification, else serves the most runs
    end to end with the same writes (:func:`~jdsl.compiler.retries.improves`): a program that
    only hands over is the last resort. ``reads`` answers, in verification, reads an episode
    never made before its first write
    (:mod:`jdsl.compiler.lookups`). Runs that part at one lookup and rejoin are one program
    (:mod:`jdsl.compiler.rejoin`); ``peers`` (successful runs of the corpus's other families)
    may support such a lookup the family took too few times.

    This is the one place the passes are chained (the CLI, ``show --compile``, held-out
    validation, the demo and the Dask engine all come here). Episodes cut off mid-run are left
    out first (:func:`~jdsl.compiler.admit.finished_only`), and a note says how many.

    Raises:
        CompileError: no episode succeeded (see :func:`~jdsl.compiler.admit.require_success`), or every one is cut
            off mid-run.
    """
    normalized, cut = finished_only(normalized)
    require_success(normalized)
    # the runs as the program reads them, and how (the package keeps it: validate and show
    # --diff read a run the same way, jdsl.compiler.reading)
    read = read_family(normalized, effects)
    normalized, unused, noops = read.episodes, read.unused, read.noops
    if read.rewritten or cut:  # the shards' facts, replay: as recorded
        facts, replay = None, None
    candidates = (
        consolidate(normalized, contracts=contracts)
        if facts is None
        else facts.candidates(contracts)
    )

    def compiled_as(family: Family, plan: BranchPlan) -> CompiledBehavior:
        made = emit_plan(family, plan, candidates, name=name, model=model)
        if noops or unused:
            made = dataclasses.replace(made, notes=(*made.notes, *(
                f"no-op tool {tool} not compiled (read-only, answered nothing, result unused)"
                for tool in noops), *unused_notes(unused)))  # fmt: skip
        return attach_fallback(made, normalized) if fallback else made

    def settled(family: Family) -> tuple[CompiledBehavior, VerificationReport]:
        plan = family.plan()
        compiled = compiled_as(family, plan)
        report = verify(compiled, normalized, replay=replay, effects=effects, reads=reads)
        if fallback and report.structural_ok and (not report.accounted or report.fallbacks):
            # the program does not account for every run, or leaves runs to the fallback: the
            # thin paths making the writes most runs make (a route where they part), else hand
            # over where thin paths part, else (last resort) the paths' common part. A retry
            # whose plan is one already compiled makes that program: not compiled again
            unaccounted = [e.episode_id for e in report.unaccounted]
            retries: list[dict[str, Any]] = [{"same_writes": True},
                                             {"hand_over": True, "unaccounted": unaccounted},
                                             {"hand_over": True, "always": True}]  # fmt: skip
            tried = {plan_key(plan)}
            best = compiled, report
            for retry in retries:
                if best[1].accounted and "hand_over" in retry:
                    break
                other_plan = family.plan(**retry)
                if plan_key(other_plan) in tried:
                    continue
                tried.add(plan_key(other_plan))
                other = compiled_as(family, other_plan)
                if other.ir == compiled.ir:  # no path was too thin: the same program
                    continue
                checked = verify(other, normalized, replay=replay, effects=effects, reads=reads)
                if improves(checked, best[1]):
                    best = other, checked
                    if checked.accounted:
                        break
            return best
        return compiled, report

    def family_of(rejoin: bool, support: int) -> Family:
        return prepare(normalized, candidates, effects=effects, min_support=support,
                       rejoin=rejoin, peers=peers)  # fmt: skip

    def supported(support: int) -> tuple[CompiledBehavior, VerificationReport]:
        rejoined = family_of(rejoin=True, support=support)
        compiled, report = settled(rejoined)
        if (
            read.shared
            and rejoined.choices
            and report.structural_ok
            and (not report.accounted or report.fallbacks)
        ):  # the lookups rejoined (jdsl.compiler.rejoin) do not verify, or leave runs to the
            # fallback: each its own way, unless the rejoined program matches at least as many
            apart, checked = settled(family_of(rejoin=False, support=support))
            if improves(checked, report):
                compiled, report = apart, checked
        return compiled, report

    compiled, report = supported(min_support)
    for support in more_support(normalized, min_support):
        # a program that leaves runs unaccounted or serves none: paths below a higher bar hand
        # over where they part (the same runs twice compile as once at twice the bar)
        if not report.structural_ok or (report.ok and report.matched):
            break
        other, checked = supported(support)
        if improves(checked, report):
            compiled, report = other, checked
    if cut:
        compiled = dataclasses.replace(compiled, notes=(*compiled.notes, cut_note(cut)))
    compiled = promote(compiled, report)
    kw: dict[str, Any] = dict(task_family=task_family, effects=effects, version=version,
                              reading=read.reading)  # fmt: skip
    package = build_package(compiled, report, candidates, normalized, **kw)
    handed = fallback_only_package(compiled, report, normalized, reads=reads, **kw) if fallback else None  # fmt: skip
    return CompileResult(
        package=package,
        fallback_package=handed,
        compiled=compiled,
        candidates=tuple(candidates),
        verification=report,
        normalized=normalized if isinstance(normalized, NormStore) else tuple(normalized),
        metrics=package_metrics(compiled.ir),
        cut_off=cut,
    )


def check_chains(episodes: Iterable[Any]) -> None:
    """Refuse episodes whose recorded hash chain does not verify.

    Only stamped events (:class:`jdsl.trace.TraceEvent` with an ``event_hash``) are checked;
    an episode split off a reused id is checked on its own (:meth:`jdsl.trace.Episode.verify`).

    Raises:
        CompileError: naming the first broken episode and its first problem.
    """
    for episode in episodes:
        refuse_broken(episode)


@dataclass(frozen=True)
class CompiledFamilies:
    """What :func:`compile_families` produced, family by family (sorted by name).

    Attributes:
        by: the grouping.
        members: ``{family: its episodes}``.
        results: ``{family: CompileResult}`` for each family that compiled.
        refused: ``{family: why}`` for each family that could not (no successful episode...).
        cut_off: the episodes left out as cut off mid-run (:mod:`jdsl.compiler.admit`).
    """

    by: str
    members: Mapping[str, Sequence[NormEpisode]]
    results: Mapping[str, CompileResult]
    refused: Mapping[str, str]
    cut_off: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Every family compiled and passed verification."""
        return not self.refused and all(r.ok for r in self.results.values())


def compile_families(
    normalized: Sequence[NormEpisode], by: GroupBy, *, prefix: str | None = None,
    task_family: str = "", effects: Mapping[str, ToolEffects | Mapping[str, Any]] | None = None,
    reads_of: Callable[[Sequence[NormEpisode]], ReadAnswers | None] | None = None,
    **options: Any,
) -> CompiledFamilies:  # fmt: skip
    """:func:`compile_normalized` of each family of :func:`~jdsl.compiler.families.
    group_episodes` (``by``); a family is named ``<prefix>-<family>`` with a prefix
    (:func:`~jdsl.trace.filenames.prefixed`: a cut keeps the family).

    Args:
        normalized: the normalized episodes.
        by: ``"intent"``, ``"task"`` or ``"sequence"``.
        prefix: prepended to each behavior name.
        task_family: recorded in each manifest (default: the family).
        effects: capability -> effects (which calls write: intent grouping, verification).
        reads_of: a family's ``reads`` from its runs (in place of ``options["reads"]``).
        **options: the other :func:`compile_normalized` arguments.

    Episodes cut off mid-run are left out before grouping (``cut_off`` names them).

    Raises:
        CompileError: every episode is cut off mid-run.
    """
    normalized, cut = finished_only(normalized)
    members: dict[str, Sequence[NormEpisode]] = {}
    results: dict[str, CompileResult] = {}
    refused: dict[str, str] = {}
    families = group_episodes(normalized, by, effects=effects)
    for family, episodes in families:
        members[family] = episodes
        others = [e for other, eps in families if other != family for e in eps if e.success]
        peers = same_domain(episodes, others, effects)  # never another domain's runs
        own = {} if reads_of is None else {"reads": reads_of(episodes)}
        try:
            results[family] = compile_normalized(
                episodes, name=prefixed(prefix, family, suffix=SUFFIX),
                task_family=task_family or family, effects=effects, peers=peers,
                **{**options, **own},
            )  # fmt: skip
        except CompileError as exc:
            refused[family] = str(exc)
    return CompiledFamilies(by, members, results, refused, cut)
