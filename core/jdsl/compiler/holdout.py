"""Held-out validation: would a package have served runs it never saw, and done what they did?

For each episode (docs/design.md §6; the same check as execution verification, on episodes the
package was not compiled from):

1. a failed run (reward 0, status failure) is *not a reference*: it is listed, never compared;
2. a run input the package needs is missing (each recorded run input, and each input the user
   states (``source.stated_inputs``) found in the user's messages of that episode, counts as
   given): the compiled program's guards fail where it is first needed, so the **fallback**
   takes over (held-out runs are never given a recorded argument as a made-up input); a
   package without a fallback (compiled with ``fallback=False``) **refuses** the run: that is
   the one run a package cannot start;
3. otherwise the run is executed (:func:`jdsl.compiler.replay.execute`: recorded results and
   decisions served back) and is either **served** (the compiled program ran end to end) or
   **fallback** (the compiled program failed at a step, a guard or route that did not hold or a
   value that was missing, and the package's fallback takes over from there; the step and reason
   are kept);
4. **matched** (a served run): the same writes, with the same arguments, in the same order, and
   the same outcome; reads may differ. **diverged**: a write differs (or, before the fallback
   took over, a write differed), or the outcome differs; **unreplayable**: the package needed a
   read or a model decision the run never made, so what it would do next is unknown (served,
   neither matched nor wrong; with ``reads``, a read the run never made is answered from the
   state every run starts from before the first write, :mod:`jdsl.compiler.lookups`); the first
   divergence is kept;
5. **contradicted constants**: every constant argument of the package compared with the value
   the held-out run passed at that call (the k-th action of a tool <-> its k-th successful call).

:func:`validate_package` returns a :class:`HeldOutReport` (rows, summary, ``text``,
``to_dict()``); :func:`holdout_split` splits a family into compile and held-out episodes;
:func:`holdout_families` runs the whole loop (split each family, compile, validate) that
``jdsl compile --holdout`` (:mod:`jdsl.commands.validate`) and the demo
(:mod:`jdsl.demo.heldout_job`) report on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

from jdsl.compiler.decisions import run_inputs
from jdsl.compiler.errors import CompileError
from jdsl.compiler.fallback import Fallback, compiled_program, split_fallback
from jdsl.compiler.families import same_domain
from jdsl.compiler.lookups import ReadAnswers
from jdsl.compiler.normalize import normalize_all
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.reading import package_reading
from jdsl.compiler.replay import Divergence, Execution, execute
from jdsl.ir.walk import child_slots, walk_ir
from jdsl.tree import typed_equal

__all__ = [
    "FamilyHoldout",
    "HeldOutReport",
    "HeldOutRow",
    "holdout_families",
    "holdout_split",
    "ir_paths",
    "package_effects",
    "read_runs",
    "validate_package",
]

_MAX_PATHS = 512


@dataclass(frozen=True)
class HeldOutRow:
    """One held-out episode.

    Attributes:
        episode_id: the episode.
        reference: False for a failed run (listed, never compared).
        served: whether the compiled program ran it end to end (no fallback, not refused).
        reason: why it is not a reference ("" otherwise).
        execution: the execution replay (None when refused or not a reference).
        contradicted: ``tool.arg = constant (held-out run: value)`` per constant it contradicts.
    """

    episode_id: str
    reference: bool
    served: bool
    reason: str = ""
    execution: Execution | None = None
    contradicted: tuple[str, ...] = ()

    @property
    def matched(self) -> bool | None:
        """True / False for a served episode, None otherwise."""
        return self.execution.matched if self.served and self.execution is not None else None

    @property
    def divergence(self) -> Divergence | None:
        return None if self.execution is None else self.execution.divergence

    @property
    def fallback(self) -> Fallback | None:
        """Where the fallback took over (no write differed before it), else None."""
        if self.execution is None or self.execution.divergence is not None:
            return None
        return self.execution.fallback

    @property
    def outcome(self) -> str:
        """``matched``, ``diverged``, ``unreplayable``, ``fallback``, ``refused`` or
        ``failed run``."""
        if not self.reference:
            return "failed run"
        if self.execution is None:
            return "refused"
        return self.execution.outcome

    def to_dict(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "outcome": self.outcome,
            "reason": self.reason,
            "divergence": self.divergence.to_dict() if self.divergence else None,
            "fallback": self.fallback.to_dict() if self.fallback else None,
            "model_calls": self.execution.model_calls if self.execution else None,
            "contradicted": list(self.contradicted),
        }


@dataclass(frozen=True)
class HeldOutReport:
    """The result of :func:`validate_package`.

    Attributes:
        package: the package name.
        rows: one per episode, in input order.
        compiled_from: the rows' episodes the package was compiled from (its
            ``tests/replay.jsonl``): with any, the runs are not held out, nor is it called so.
    """

    package: str
    rows: tuple[HeldOutRow, ...]
    compiled_from: tuple[str, ...] = ()

    @property
    def references(self) -> int:
        return sum(r.reference for r in self.rows)

    @property
    def served(self) -> int:
        """References the compiled program ran end to end (matched or diverged)."""
        return sum(r.served for r in self.rows)

    @property
    def matched(self) -> int:
        return sum(r.matched is True for r in self.rows)

    @property
    def fallbacks(self) -> int:
        """References handed to the fallback with no write differing before."""
        return sum(r.outcome == "fallback" for r in self.rows)

    @property
    def refused(self) -> int:
        """References the package could not take (0 for a package with a fallback; a host
        without a package for the run's family refuses it: counted by the caller)."""
        return sum(r.outcome == "refused" for r in self.rows)

    @property
    def unreplayable(self) -> int:
        """Served references that needed a read or decision their record does not hold."""
        return sum(r.outcome == "unreplayable" for r in self.rows)

    @property
    def divergences(self) -> int:
        """References whose writes or outcome differ (served or before the fallback)."""
        return sum(r.outcome == "diverged" for r in self.rows)

    @property
    def contradicted(self) -> int:
        """Constant arguments contradicted by a held-out run (one per constant and run)."""
        return sum(len(r.contradicted) for r in self.rows)

    @property
    def ok(self) -> bool:
        """No reference diverged (a refused or fallback run is reported, not a failure)."""
        return self.divergences == 0

    def summary(self) -> str:
        """``3 episodes (2 references): 1 served, 1 matched, 0 unreplayable, 1 fallback,
        0 refused, 0 divergences, 0 constants contradicted``."""
        plural = "" if self.divergences == 1 else "s"
        return (
            f"{len(self.rows)} episodes ({self.references} references): {self.served} served, "
            f"{self.matched} matched, {self.unreplayable} unreplayable, {self.fallbacks} fallback, "
            f"{self.refused} refused, {self.divergences} divergence{plural}, "
            f"{self.contradicted} constants contradicted"
        )

    @property
    def text(self) -> str:
        """The per-episode table and the summary."""
        seen = self.compiled_from
        head = (f"validation of {self.package!r} ({len(seen)} of these runs are ones it was "
                f"compiled from: {', '.join(seen[:3])}{' ...' if len(seen) > 3 else ''})"
                if seen else f"held-out validation of {self.package!r}")  # fmt: skip
        lines = [head, f"  {'episode':<36} outcome"]
        for row in self.rows:
            why = row.reason or str(row.divergence.reason if row.divergence else row.fallback or "")
            lines.append(
                f"  {row.episode_id[:36]:<36} {row.outcome:<12}{'  ' + why if why else ''}"
            )
            lines += [f"  {'':<36} constant     {c}" for c in row.contradicted]
        lines.append(f"  summary: {self.summary()}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "episodes": len(self.rows),
            "references": self.references,
            "served": self.served,
            "matched": self.matched,
            "unreplayable": self.unreplayable,
            "fallback": self.fallbacks,
            "refused": self.refused,
            "divergences": self.divergences,
            "constants_contradicted": self.contradicted,
            "rows": [r.to_dict() for r in self.rows],
        }


def ir_paths(ir: Mapping[str, Any]) -> set[tuple[str, ...]]:
    """Every tool sequence a run of the tree can make when each call succeeds: a sequence
    concatenates its children's paths, a selector takes any child's (at most 512 paths).

    >>> sorted(ir_paths({"kind": "sequence", "children": [
    ...     {"kind": "selector", "children": [
    ...         {"kind": "action", "tool": "a"}, {"kind": "action", "tool": "b"}]},
    ...     {"kind": "action", "tool": "c"}]}))
    [('a', 'c'), ('b', 'c')]
    """
    node = ir["root"] if "root" in ir and "kind" not in ir else ir
    return _paths(compiled_program(node) if node.get("kind") == "root" else node)


def _paths(node: Mapping[str, Any]) -> set[tuple[str, ...]]:
    kind = node.get("kind")
    if kind == "action":
        return {(str(node["tool"]),)}
    children = list(child_slots(dict(node)))
    if kind == "selector":
        return set().union(*(_paths(c) for c in children)) if children else {()}
    found: set[tuple[str, ...]] = {()}
    for child in children:
        found = {a + b for a, b in product(found, _paths(child))}
        if len(found) > _MAX_PATHS:
            found = set(sorted(found)[:_MAX_PATHS])
    return found


def _actions(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [each for each in walk_ir(node) if each.get("kind") == "action"]


def _stated(episode: NormEpisode, stated: Mapping[str, Mapping[str, str]]) -> set[str]:
    """The stated inputs the user's messages of ``episode`` contain (at the call that uses them;
    a call the package's reading set aside, an unused lookup, counts: the user said it)."""
    calls = [s for s in (*episode.steps, *episode.dropped) if s.ok]
    return {
        name
        for name, where in stated.items()
        if any(
            s.logical_tool == where.get("tool") and where.get("argument") in s.stated_args
            for s in calls
        )  # fmt: skip
    }


def _refusal(package: Any, episode: NormEpisode) -> str:
    """The run inputs the package needs that ``episode`` does not give ("" when none): only
    those the route the run takes reads (:func:`~jdsl.compiler.decisions.run_inputs`), so a
    run that states its order id on the route reading it is not asked for the identity
    another route looks the user up by; an input counts as given when the user stated it at
    the call that used it, as recorded (:func:`_stated`)."""
    source = package.manifest.get("source") or {}
    given = set(episode.inputs) | _stated(episode, source.get("stated_inputs") or {})
    read = set(run_inputs(compiled_program(package.ir), episode))
    excused = {name for name in source.get("inputs") or () if name not in read}
    for branch in source.get("input_alternatives") or ():  # a choice the route never makes
        if not any(set(alt) & read for alt in branch):
            excused |= {name for alt in branch for name in alt}
    missing = package.missing_inputs(given | excused)
    return f"run inputs missing: {'; '.join(missing)}" if missing else ""


def _contradicted(ir: Mapping[str, Any], episode: NormEpisode) -> tuple[str, ...]:
    """``tool.arg = constant (held-out run: value)`` for each constant the run did not pass."""
    calls: dict[str, list[Any]] = {}
    for step in episode.ok_steps():
        calls.setdefault(step.logical_tool, []).append(step)
    seen: dict[str, int] = {}
    found = []
    for action in _actions(ir["root"] if "root" in ir else ir):
        tool = str(action["tool"])
        k = seen[tool] = seen.get(tool, -1) + 1
        steps = calls.get(tool) or []
        for arg, spec in sorted((action.get("args") or {}).items()):
            if "const" not in spec or k >= len(steps) or arg not in steps[k].arguments:
                continue
            value = steps[k].arguments[arg]
            if not typed_equal(value, spec["const"]):
                found.append(f"{tool}.{arg} = {spec['const']!r} (held-out run: {value!r})")
    return tuple(found)


def _row(
    package: Any, episode: NormEpisode, effects: Mapping[str, Any] | None,
    reads: ReadAnswers | None = None,
) -> HeldOutRow:  # fmt: skip
    eid = episode.episode_id
    if episode.success is False:
        reward = (episode.outcome or {}).get("reward")
        how = f"reward {reward}" if reward is not None else "status failure"
        return HeldOutRow(eid, False, False, f"failed run ({how}): not a reference")
    why = _refusal(package, episode)
    if why and split_fallback(package.ir)[1] is None:  # nothing can take the run: refused
        return HeldOutRow(eid, True, False, why)
    if why:  # the compiled program's guards fail at the first step that needs it: the fallback
        taken = Execution(eid, (), 0, "failure", None, Fallback(None, why, 0, 0))
        return HeldOutRow(eid, True, False, "", taken, ())
    ir = package.ir
    execution = execute(ir, episode, effects=effects, reads=reads)
    served = execution.fallback is None
    return HeldOutRow(eid, True, served, "", execution, _contradicted(ir, episode))


def validate_package(
    package: Any, episodes: Iterable[Any], *, canonical: Mapping[str, str] | None = None,
    reads: ReadAnswers | None = None,
) -> HeldOutReport:  # fmt: skip
    """Validate ``package`` on held-out ``episodes`` (the module docstring's four steps).

    Args:
        package: a :class:`~jdsl.package.BehaviorPackage` (``load_package(path)``) or anything
            with its ``ir``, ``manifest``, ``name`` and ``missing_inputs``.
        episodes: :class:`jdsl.trace.Episode` s (``read_events(path).episodes``) or
            :class:`~jdsl.compiler.normalized.NormEpisode` s.
        canonical: host tool name -> the package's capability id (as given to the compile).
        reads: answers reads a run never made, before its first write (the state every run
            starts from, :mod:`jdsl.compiler.lookups`).

    Returns:
        A :class:`HeldOutReport`; ``report.ok`` is False when a reference diverged.

    Example:
        >>> report = validate_package(load_package("t.jdsl"), read_events("more.jsonl").episodes)  # doctest: +SKIP
        >>> print(report.summary())  # doctest: +SKIP
    """
    name = str(getattr(package, "name", None) or package.manifest.get("name") or "package")
    effects = package_effects(package)
    rows = (_row(package, e, effects, reads) for e in read_runs(package, episodes, canonical))
    return HeldOutReport(name, tuple(rows))


def read_runs(
    package: Any, episodes: Iterable[Any], canonical: Mapping[str, str] | None = None
) -> list[NormEpisode]:
    """``episodes`` (normalized first when they are :class:`jdsl.trace.Episode` s; control
    episodes, ``_...``, skipped) as ``package``'s program reads them, in input order: what
    :func:`validate_package` executes and ``jdsl show --diff`` shows, the way the compile's
    verification read its own runs (:mod:`jdsl.compiler.reading`)."""
    normalized = [
        norm
        for e in episodes
        for norm in ([e] if isinstance(e, NormEpisode) else normalize_all([e], canonical=canonical))
    ]
    return package_reading(package).read_all(normalized, package_effects(package))


def package_effects(package: Any) -> dict[str, Any] | None:
    """The package's capability contracts' effects (which calls write), when it has them."""
    tools = getattr(package, "tools", None)
    if not isinstance(tools, Mapping) or not tools:
        return None
    return {str(k): t.effects for k, t in tools.items() if hasattr(t, "effects")}


def holdout_split(
    episodes: Sequence[NormEpisode], n: int
) -> tuple[list[NormEpisode], list[NormEpisode]]:
    """``(compile, held out)``: the last ``n`` successful episodes (in order) are held out;
    everything else compiles (failed runs, and runs cut off mid-run, stay there: they are
    never compiled from).

    Raises:
        CompileError: ``n`` is below 1.
    """
    if n < 1:
        raise CompileError(f"hold out at least 1 episode, not {n}; pass n >= 1")
    successful = [e for e in episodes if e.success is not False and e.complete]
    held = {e.episode_id for e in successful[-n:]}
    return [e for e in episodes if e.episode_id not in held], [
        e for e in episodes if e.episode_id in held
    ]


@dataclass(frozen=True)
class FamilyHoldout:
    """One family of :func:`holdout_families`.

    Attributes:
        family: the family name.
        members: its episodes, in order.
        held: the episodes held out (:func:`holdout_split`).
        result: the compile of the rest (a :class:`~jdsl.compiler.CompileResult`); None when
            nothing successful was left to compile from (the compile raised
            :class:`~jdsl.compiler.errors.CompileError`).
        report: the package validated on ``held``; None when not compiled, or when the package
            failed verification and there is no fallback to hand runs to (no package is
            written: its held-out runs are refused); else, when it failed, the package written
            instead is validated (``result.fallback_package``: it hands every run over).
    """

    family: str
    members: tuple[NormEpisode, ...]
    held: tuple[NormEpisode, ...]
    result: Any | None
    report: HeldOutReport | None
    refused: str = ""
    """Why the rest compiled to nothing (the :class:`~jdsl.compiler.errors.CompileError`)."""

    @property
    def references(self) -> int:
        """The held-out runs that are references (successful runs)."""
        return sum(e.success is not False for e in self.held)


def holdout_families(
    families: Iterable[tuple[str, Sequence[NormEpisode]]], n: int,
    compile_family: Callable[[str, list[NormEpisode], list[NormEpisode]], Any], *,
    reads: ReadAnswers | None = None,
    reads_of: Callable[[Sequence[NormEpisode]], ReadAnswers | None] | None = None,
) -> Iterator[FamilyHoldout]:  # fmt: skip
    """Hold out each family's last ``n`` successful episodes, compile the rest with
    ``compile_family(family, kept, peers)`` (returning a :class:`~jdsl.compiler.CompileResult`;
    ``peers``: the other families' successful kept runs, never a held-out one, for
    ``compile_normalized(peers=...)`` as plain ``--group-by`` passes them) and validate a
    verified package on the held-out ones (``reads``: :func:`validate_package`), one family at
    a time, in the order given (``reads_of``: a family's own ``reads``, from its runs, in
    place of ``reads``). The CLI's ``--holdout`` and the demo both come here.

    Raises:
        CompileError: ``n`` is below 1.
    """
    families = list(families)
    kept_of = {family: holdout_split(members, n)[0] for family, members in families}
    for family, members in families:
        kept, held = holdout_split(members, n)
        others = [e for other, eps in kept_of.items() if other != family for e in eps if e.success]
        peers = same_domain(members, others)  # never another domain's runs
        try:
            result = compile_family(family, kept, peers)
        except CompileError as exc:  # nothing (successful) left to compile from
            yield FamilyHoldout(family, tuple(members), tuple(held), None, None, str(exc))
            continue
        package = result.package if result.ok else result.fallback_package  # fallback only
        answers = reads_of(members) if reads_of is not None else reads
        report = validate_package(package, held, reads=answers) if package is not None else None
        yield FamilyHoldout(family, tuple(members), tuple(held), result, report)
