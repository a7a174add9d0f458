"""How a package reads a recorded run: the one view its program is executed against.

Before planning, the compile rewrites its family's runs (:func:`read_family`, in this order):
the unused reads of the tools some runs make and others do not are set aside
(:mod:`jdsl.compiler.unused`), the calls of no-op tools are dropped (:mod:`jdsl.compiler.noops`),
alternative lookups store under one shared key (:mod:`jdsl.compiler.rejoin`), and the stores of a
scan are named as its loop names them (:mod:`jdsl.compiler.staticize.scans`). The program's route
choices, selections (indexes into the list the program sees) and synthesized inputs are derived
from runs read that way (:mod:`jdsl.compiler.decisions`); a run read otherwise (an unused lookup
still there, a store named as recorded) can take another route or give another answer, and the
same run would be *served* in the compile's verification and *unreplayable* in ``jdsl package
validate``.

So the compile records how it read its runs (a :class:`Reading`, in the manifest's
``source.reading``), and :meth:`Reading.read` applies exactly that to one run, whoever asks:
verification executes the compile's runs read so (the family passes are this function run by
run), ``jdsl package validate`` (:func:`jdsl.compiler.holdout.validate_package`) its held-out and
training runs, ``jdsl show --diff`` the runs it diffs. One run, one view, one verdict.

A package compiled before the reading was recorded reads a run with its program's scans only
(:func:`package_reading`), as validation did then.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jdsl.compiler.branches import read_only_of, successful_pool
from jdsl.compiler.fallback import compiled_program
from jdsl.compiler.noops import drop_noops, without_steps
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.rejoin import rename_stores, share_stores
from jdsl.compiler.staticize.loops import LoopSpec, family_loops
from jdsl.compiler.staticize.scans import program_scans, scan_renames, scan_stores
from jdsl.compiler.unused import (
    UnusedReads,
    drop_unused_reads,
    scrubbed,
    unused_reads,
    varying_reads,
)

__all__ = ["FamilyReading", "Reading", "package_reading", "read_family"]


@dataclass(frozen=True)
class Reading:
    """How a compile read its runs (module docstring).

    Attributes:
        unused: the read tools whose unused calls are set aside (the family's varying reads:
            :func:`jdsl.compiler.unused.varying_reads`), sorted.
        noops: the no-op tools whose calls are dropped, sorted.
        shared: ``{store: shared key}`` of the alternative lookups.
        loops: the loops whose scans' stores are renamed (empty: none is).
    """

    unused: tuple[str, ...] = ()
    noops: tuple[str, ...] = ()
    shared: Mapping[str, str] = field(default_factory=dict)
    loops: tuple[LoopSpec, ...] = ()

    def read(self, episode: NormEpisode, effects: Mapping[str, Any] | None = None) -> NormEpisode:
        """``episode`` as the program reads it (``effects``: which calls write, as the compile
        was given them; the package's contracts in validation)."""
        if self.unused:
            drop = unused_reads(episode, effects, self.unused)
            episode = scrubbed(episode, drop) if drop else episode
        if self.noops:
            gone = {i for i, s in enumerate(episode.steps) if s.logical_tool in self.noops}
            episode = without_steps(episode, gone) if gone else episode
        if self.shared:
            episode = rename_stores(episode, self.shared)
        if self.loops:
            episode = rename_stores(episode, scan_renames(episode, self.loops))
        return episode

    def read_all(
        self, episodes: Iterable[NormEpisode], effects: Mapping[str, Any] | None = None
    ) -> list[NormEpisode]:
        """:meth:`read` of each episode, in order."""
        return [self.read(e, effects) for e in episodes]

    def to_dict(self) -> dict[str, Any]:
        """The manifest's ``source.reading``."""
        return {
            "unused_reads": list(self.unused),
            "noop_tools": list(self.noops),
            "shared_stores": dict(sorted(self.shared.items())),
            "scans": [dataclasses.asdict(spec) for spec in self.loops],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reading:
        """The inverse of :meth:`to_dict`."""
        return cls(
            unused=tuple(str(t) for t in data.get("unused_reads") or ()),
            noops=tuple(str(t) for t in data.get("noop_tools") or ()),
            shared={str(k): str(v) for k, v in (data.get("shared_stores") or {}).items()},
            loops=tuple(LoopSpec(**spec) for spec in data.get("scans") or ()),
        )


@dataclass(frozen=True)
class FamilyReading:
    """What :func:`read_family` gives: the runs read, how, and what the compile report says of it.

    Attributes:
        episodes: the family's runs as the program reads them (a
            :class:`~jdsl.compiler.store.NormStore` stays one).
        reading: how (:class:`Reading`).
        unused: the unused reads set aside, with their support (:data:`~jdsl.compiler.unused.
            UnusedReads`).
        noops: the no-op tools dropped.
        shared: whether alternative lookups were given a shared store.
        scanned: whether a scan's stores were renamed.
    """

    episodes: Sequence[NormEpisode]
    reading: Reading
    unused: UnusedReads
    noops: tuple[str, ...]
    shared: bool
    scanned: bool

    @property
    def rewritten(self) -> bool:
        """Whether any run reads otherwise than recorded."""
        return bool(self.unused or self.noops or self.shared or self.scanned)


def read_family(
    episodes: Sequence[NormEpisode], effects: Mapping[str, Any] | None = None
) -> FamilyReading:
    """The compile's reading of one family's runs: each pass's parameter found over the family
    (as the previous passes left it), then applied run by run with the helpers
    :meth:`Reading.read` applies."""
    read_only: Callable[[str], bool] = read_only_of(effects)
    varying = tuple(sorted(varying_reads(episodes)))
    episodes, unused = drop_unused_reads(episodes, effects)  # while thoughts are there
    episodes, noops = drop_noops(episodes, effects)
    episodes, shared = share_stores(episodes, read_only)
    loops = family_loops(successful_pool(episodes), read_only=read_only)
    episodes, scanned = scan_stores(episodes, read_only, loops)
    reading = Reading(
        unused=varying,
        noops=tuple(noops),
        shared=dict(shared),
        loops=tuple(sorted(loops, key=_loop_key)) if scanned else (),
    )
    return FamilyReading(episodes, reading, unused, tuple(noops), bool(shared), scanned)


def _loop_key(spec: LoopSpec) -> tuple[Any, ...]:
    return dataclasses.astuple(spec)


def package_reading(package: Any) -> Reading:
    """How ``package`` reads a run: its manifest's ``source.reading``; a package compiled
    before the compile recorded it reads a run with its program's scans only."""
    manifest = getattr(package, "manifest", None) or {}
    source = manifest.get("source") or {}
    recorded = source.get("reading")
    if isinstance(recorded, Mapping):
        return Reading.from_dict(recorded)
    scans = program_scans(compiled_program(package.ir))  # stores renamed as compiled runs'
    return Reading(loops=tuple(sorted(scans, key=_loop_key)))
