"""Verify: structural validation, replay of every compiled ref and guard, and execution.

Three layers (docs/design.md appendix B §7, plus execution from docs/design.md §6):

* structure: :func:`jdsl.ir.validate_ir` with the behavior's required capabilities, and no
  write fed by a fixed position of a list a run chose from
  (:func:`jdsl.compiler.positions.fixed_positions`);
* replay: in every episode a compiled call was compiled from (a call inside a branch
  alternative: that alternative's episodes only), each dataflow ref must resolve in the
  recorded ``state_before`` of its call to exactly the argument the episode used (a list
  path ``xs[*].id`` to the whole list); a selection ``xs[$k].id`` must give the recorded list
  when ``k`` holds the indexes that episode took; a ref to a run input must equal that
  input; each guard and check must hold over the state (run inputs and selections included)
  right before its action;
* execution: the compiled tree runs on every successful episode of the family (aligned with a
  compiled path or not) with the recorded tool results and model decisions served back
  (:mod:`jdsl.compiler.replay`); it must make the same writes, with the same arguments, in the
  same order, and end with the teacher's outcome (reads may differ), or hand the rest of the
  run to the package's fallback before any write differs. An episode the tree was compiled from
  must be served end to end. Every executed episode is accounted for: matched, handed to the
  fallback, or a problem; an *unreplayable* one (the tree needed a read or a model decision its
  record does not hold, so what it would do is unknown) counts against verification like a
  divergence, whether it was compiled from or not. The first difference of each episode is a
  problem (episode, node, expected call vs actual).

:func:`promote` lifts the provenance of nodes whose checks all passed to E4. Replay proves that
the deterministic parts reproduce their source evidence, not that they are correct in general.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jdsl.compiler.branches import read_only_of
from jdsl.compiler.compiled import CompiledAction, CompiledBehavior, CompiledGuard
from jdsl.compiler.lineage import element_index, selected_indexes, value_key
from jdsl.compiler.lookups import ReadAnswers
from jdsl.compiler.normalized import NormEpisode, NormStep
from jdsl.compiler.positions import fixed_positions
from jdsl.compiler.replay import Divergence, Execution, iter_executions
from jdsl.errors import JdslError
from jdsl.expr import MISSING, evaluate, resolve_path
from jdsl.ir import validate_ir
from jdsl.tree import lenient_equal

__all__ = [
    "ReplayCheck",
    "ReplayMap",
    "ReplayPart",
    "VerificationReport",
    "promote",
    "replay_part",
    "selections",
    "verify",
]


@dataclass(frozen=True, slots=True)
class ReplayCheck:
    """One replayed ref or guard in one episode."""

    node_id: str
    episode_id: str
    what: str
    passed: bool
    problem: str = ""


@dataclass(frozen=True)
class VerificationReport:
    """The outcome of :func:`verify`.

    Attributes:
        structural_problems: from :func:`jdsl.ir.validate_ir` (empty when structure is ok).
        checks: every replay check, in episode then tree order.
        executions: every successful episode executed (:func:`jdsl.compiler.replay.execute`);
            a matched episode's ``calls`` are dropped (they are its recorded calls), which keeps
            the report small at 10^5 episodes.
        aligned: the ids of the episodes the tree was compiled from (each must be served).
    """

    structural_problems: tuple[str, ...]
    checks: tuple[ReplayCheck, ...] = field(default=())
    executions: tuple[Execution, ...] = field(default=())
    aligned: frozenset[str] = field(default=frozenset())

    @property
    def executed(self) -> int:
        """How many episodes the compiled tree was run on."""
        return len(self.executions)

    @property
    def matched(self) -> int:
        """How many of them it served end to end with the same writes and outcome."""
        return sum(1 for e in self.executions if e.matched)

    @property
    def fallbacks(self) -> int:
        """How many it handed to the fallback (every write before it matched)."""
        return sum(1 for e in self.executions if e.fallback is not None and e.divergence is None)

    @property
    def unreplayable(self) -> int:
        """How many needed a read or decision their record does not hold (not compiled from
        them: what the tree would do next is unknown, neither matched nor wrong)."""
        return sum(1 for e in self.executions if e.outcome == "unreplayable")

    @property
    def unaccounted(self) -> tuple[Execution, ...]:
        """Episodes neither matched nor handed to the fallback with every write before it
        matching (diverged or unreplayable): each one fails verification."""
        return tuple(e for e in self.executions if e.outcome in ("diverged", "unreplayable"))

    @property
    def unserved(self) -> tuple[Execution, ...]:
        """Episodes the tree was compiled from that it did not serve end to end without a
        divergence (went to the fallback, or the record could not answer it)."""
        return tuple(e for e in self.executions if e.episode_id in self.aligned
                     and e.outcome in ("fallback", "unreplayable"))  # fmt: skip

    @property
    def divergences(self) -> tuple[Divergence, ...]:
        """The first divergence of every episode whose writes or outcome differ, or that is
        unreplayable (:attr:`unaccounted`), in episode order."""
        return tuple(e.divergence for e in self.unaccounted if e.divergence is not None)

    @property
    def structural_ok(self) -> bool:
        return not self.structural_problems

    @property
    def replay_checks(self) -> int:
        return len(self.checks)

    @property
    def replay_passed(self) -> int:
        return sum(1 for c in self.checks if c.passed)

    @property
    def replay_coverage(self) -> float | None:
        """Passed / checks; None when there was nothing to replay (0/0 proves nothing)."""
        return round(self.replay_passed / self.replay_checks, 4) if self.checks else None

    @property
    def problems(self) -> tuple[str, ...]:
        replayed = tuple(c.problem for c in self.checks if not c.passed)
        executed = tuple(f"execution {d}" for d in self.divergences)
        unserved = tuple(f"execution episode {e.episode_id!r} (compiled from it): {e.fallback}"
                         for e in self.unserved if e.fallback is not None)  # fmt: skip
        none = (self.serves_none,) if self.serves_none else ()
        return self.structural_problems + replayed + executed + unserved + none

    @property
    def serves_none(self) -> str:
        """Why the program serves none of the runs it executed end to end (every one handed
        to the fallback: a package that only hands over is not a verified program), or ``""``."""
        if not self.executions or self.matched or self.unaccounted:
            return ""
        where = sorted({f"{e.fallback.node_id} ({e.fallback.reason})" for e in self.executions
                        if e.fallback is not None})  # fmt: skip
        return (f"serves none of its {self.executed} run(s) end to end: every run is handed "
                f"to the fallback at {'; '.join(where[:3]) or 'its start'}")  # fmt: skip

    @property
    def status(self) -> str:
        """``passed`` (structure ok, every replay check held, every executed episode matched or
        was handed to the fallback, and every episode compiled from was served end to end),
        ``failed`` (a structural problem, a failed check, a divergence, an unreplayable episode,
        an episode compiled from that went to the fallback, every executed episode handed to
        the fallback: :attr:`serves_none`) or
        ``unverified`` (structure ok but nothing was replayed or executed)."""
        if not self.structural_ok or self.replay_passed != self.replay_checks:
            return "failed"
        if self.divergences or self.unserved or self.serves_none:
            return "failed"
        return "passed" if self.checks or self.executions else "unverified"

    @property
    def accounted(self) -> bool:
        """Every run is accounted for (matched, or handed to the fallback after matching
        writes) and every check held: ``ok`` but for :attr:`serves_none` (what the compile's
        retries compare: a program that only hands over is the last resort, not a pass)."""
        return self.ok or (self.status == "failed" and bool(self.serves_none)
                           and not (self.divergences or self.unserved)
                           and self.structural_ok and self.replay_passed == self.replay_checks)  # fmt: skip

    @property
    def ok(self) -> bool:
        """Whether verification passed (an unverified behavior is not ``ok``)."""
        return self.status == "passed"

    def to_dict(self, *, max_problems: int = 20) -> dict[str, Any]:
        problems = self.problems
        return {
            "status": self.status,
            "structural_ok": self.structural_ok,
            "replay_checks": self.replay_checks,
            "replay_passed": self.replay_passed,
            "replay_coverage": self.replay_coverage,
            "executed": self.executed,
            "matched": self.matched,
            "fallback": self.fallbacks,
            "unreplayable": self.unreplayable,
            "first_divergence": self.divergences[0].to_dict() if self.divergences else None,
            "problems": list(problems[:max_problems]),
            "problems_omitted": max(0, len(problems) - max_problems),
        }


@dataclass(frozen=True)
class ReplayPart:
    """The replay checks and executions of one run of consecutive episodes (a shard).

    Parts of consecutive runs, concatenated in episode order, are what one pass over all
    the episodes gives (:func:`verify` joins them).
    """

    checks: tuple[ReplayCheck, ...] = ()
    executions: tuple[Execution, ...] = ()


ReplayMap = Callable[[CompiledBehavior, bool], Iterable[ReplayPart]]
"""``(compiled, execute) -> parts`` in episode order: :func:`replay_part` over runs of the
episodes (e.g. one per shard, on the workers that hold them)."""


def verify(
    compiled: CompiledBehavior,
    episodes: Sequence[NormEpisode],
    *,
    execute: bool = True,
    replay: ReplayMap | None = None,
    effects: Mapping[str, Any] | None = None,
    reads: ReadAnswers | None = None,
) -> VerificationReport:
    """Validate the IR, replay its refs and guards, and execute it on every successful episode.

    Args:
        compiled: the output of :func:`~jdsl.compiler.staticize.staticize`.
        episodes: the normalized episodes it was compiled from.
        execute: run the tree on every successful episode (skipped when the structure is
            broken: such a tree does not load).
        replay: computes the per-episode part elsewhere (the Dask engine: one
            :func:`replay_part` per shard); None: :func:`replay_part` over ``episodes`` here.
            Either way the report is the same.
        effects: capability -> effects deciding which calls are writes (default: by name).
        reads: answers reads an episode never made, before its first write (the state every
            run starts from, :mod:`jdsl.compiler.lookups`); not passed to ``replay``.
    """
    report = validate_ir(compiled.ir, required_capabilities=compiled.required_capabilities)
    run = execute and report.ok and compiled.ir["root"].get("child") is not None
    if replay is None:
        parts: Iterable[ReplayPart] = [replay_part(compiled, episodes, execute=run,
                                                   effects=effects, reads=reads)]  # fmt: skip
    else:
        parts = replay(compiled, run)
    checks: list[ReplayCheck] = []
    executions: list[Execution] = []
    for part in parts:
        checks += part.checks
        executions += part.executions
    fixed = fixed_positions(compiled.ir, episodes, read_only_of(effects))
    return VerificationReport(report.problems + fixed, tuple(checks), tuple(executions),
                              frozenset(compiled.aligned))  # fmt: skip


def replay_part(
    compiled: CompiledBehavior, episodes: Iterable[NormEpisode], *, execute: bool,
    effects: Mapping[str, Any] | None = None, reads: ReadAnswers | None = None,
) -> ReplayPart:  # fmt: skip
    """The per-episode layer of :func:`verify` over ``episodes`` (in order, each read once):
    each aligned episode's ref and guard replay checks and, with ``execute``, the tree's
    execution on every successful episode (a matched execution's ``calls`` dropped; the tree
    is loaded once)."""
    aligned = set(compiled.aligned)
    checks: list[ReplayCheck] = []

    def checked() -> Iterator[NormEpisode]:
        for episode in episodes:
            if episode.episode_id in aligned:
                checks.extend(_replay_episode(compiled, episode))
            if episode.episode_id in aligned or episode.success is not False:
                yield episode

    if not execute:
        for _ in checked():
            pass
        return ReplayPart(tuple(checks))
    runs = iter_executions(compiled.ir, checked(), effects=effects, reads=reads)
    executions = tuple(x if x.divergence else dataclasses.replace(x, calls=()) for x in runs)
    return ReplayPart(tuple(checks), executions)


def _replay_episode(compiled: CompiledBehavior, episode: NormEpisode) -> list[ReplayCheck]:
    """One aligned episode's replay checks: its compiled actions' refs, then its guards."""
    eid, ok_steps = episode.episode_id, episode.ok_steps()
    checks: list[ReplayCheck] = []
    for action in compiled.actions:
        if eid in action.at:
            checks += _replay_action(action, ok_steps[action.at[eid]], episode)
    given = {  # synthesized inputs: what the episode passed where the program reads them
        str(c.source): ok_steps[a.at[eid]].arguments[c.argument]
        for a in compiled.actions if eid in a.at for c in a.choices
        if c.how == "input" and c.source not in episode.inputs
        and c.argument in ok_steps[a.at[eid]].arguments
    }  # fmt: skip
    for guard in compiled.guards:
        if eid in guard.at:
            chosen = selections(compiled.actions, eid, guard.at[eid], ok_steps)
            checks.append(_replay_guard(guard, ok_steps[guard.at[eid]], episode,
                                        {**given, **chosen}))  # fmt: skip
    return checks


def selections(
    actions: Sequence[CompiledAction], eid: str, position: int, ok_steps: Sequence[NormStep]
) -> dict[str, list[int]]:
    """``{index key: indexes}`` the episode's call at ``position`` took for each selection
    argument of the actions compiled there (what the residual that selects would answer)."""
    found: dict[str, Any] = {}
    for action in actions:
        if action.at.get(eid) == position:
            sources = ok_steps[position].list_sources
            for choice in action.choices:
                if choice.how == "selection" and choice.source:
                    found.update(selected_indexes(choice.source, sources.get(choice.argument, ())))
                    args = ok_steps[position].arg_sources.get(choice.argument, ())
                    found.update(element_index(choice.source, args))
    return found


def _same(a: Any, b: Any) -> bool:
    """Typed equality: bools never equal numbers; otherwise ``==``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    key_a, key_b = value_key(a), value_key(b)
    return key_a == key_b if key_a is not None and key_b is not None else bool(a == b)


def _replay_action(
    action: CompiledAction, step: NormStep, episode: NormEpisode
) -> list[ReplayCheck]:
    checks = []
    chosen = selections([action], episode.episode_id, action.at[episode.episode_id],
                        episode.ok_steps())  # fmt: skip
    for choice in action.choices:
        if choice.how not in ("dataflow", "selection", "input") or choice.source is None:
            continue
        if choice.how == "input" and choice.source not in episode.inputs:
            continue  # a synthesized input: supplied at run time, nothing recorded to compare
        state = episode.inputs if choice.how == "input" else {**step.state_before, **chosen}
        expected = step.arguments.get(choice.argument)
        try:
            got = resolve_path(choice.source, state)
        except JdslError:
            got = MISSING
        passed = got is not MISSING and _same(got, expected)
        problem = (
            f"replay {episode.episode_id}: ref {choice.source!r} for "
            f"{action.tool}.{choice.argument} resolved to {got!r} != recorded {expected!r}"
        )
        what = f"ref {choice.source} -> {action.tool}.{choice.argument}"
        checks.append(
            ReplayCheck(action.node_id, episode.episode_id, what, passed, "" if passed else problem)
        )
    return checks


def _replay_guard(
    guard: CompiledGuard, step: NormStep, episode: NormEpisode, chosen: dict[str, Any]
) -> ReplayCheck:
    state = {**episode.inputs, **step.state_before, **chosen}
    node = guard.node
    try:
        if node["kind"] == "guard_call":
            held, error = _replay_call(node, step, episode, state)
        elif node["kind"] == "check":
            found = resolve_path(node["key"], state)
            held = lenient_equal(None if found is MISSING else found, node.get("equals"))
            error = ""
        else:
            held, error = bool(evaluate(node["expression"], state)), ""
    except (JdslError, TypeError, ValueError) as exc:
        held, error = False, f": {exc}"
    problem = (
        f"replay {episode.episode_id}: {node['kind']} {guard.node_id!r} before "
        f"{step.logical_tool} does not hold in a successful episode{error}"
    )
    return ReplayCheck(
        guard.node_id, episode.episode_id, node["kind"], held, "" if held else problem
    )


def _replay_call(
    node: dict[str, Any], step: NormStep, episode: NormEpisode, state: dict[str, Any]
) -> tuple[bool, str]:
    """A guard_call's predicate is a host callable, so replay checks what the compiler owns:
    the teacher evaluated the same call before this step and it held, and every ref argument
    resolves in the recorded state to the value the predicate was given."""
    expression = {"call": node["predicate"], "args": node["args"]}
    seen = [
        g
        for g in episode.guards
        if g.type == "guard_call" and g.position == step.position and g.expression == expression
    ]
    if not any(g.result for g in seen):
        return False, f": {node['predicate']} was not evaluated true there"
    values = next(g.values for g in seen if g.result)
    for spec in node["args"].values():
        path = spec.get("ref")
        if path is None:
            continue
        got = resolve_path(path, state)
        if got is MISSING or path not in values or not _same(got, values[path]):
            return (
                False,
                f": ref {path!r} resolved to {got!r}, the predicate saw {values.get(path)!r}",
            )
    return True, ""


def promote(compiled: CompiledBehavior, report: VerificationReport) -> CompiledBehavior:
    """A copy whose nodes with at least one replay check, all passed, are graded E4 (nothing
    is promoted when verification failed)."""
    if report.status == "failed":
        return compiled
    passed: dict[str, bool] = {}
    for check in report.checks:
        passed[check.node_id] = passed.get(check.node_id, True) and check.passed
    provenance = tuple(
        dataclasses.replace(p, evidence_grade="E4", rationale=p.rationale + "; replay-verified")
        if passed.get(p.node_id)
        else p
        for p in compiled.provenance
    )
    return dataclasses.replace(compiled, provenance=provenance)
