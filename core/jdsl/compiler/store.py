"""``NormStore``: normalized episodes held compactly, decoded when a pass reads them.

A :class:`~jdsl.compiler.normalized.NormEpisode` is a graph of small Python objects, about
13 kB each in memory against 1.7 kB pickled (0.8 kB compressed): 10^5 episodes held as objects
need 1.3 GB. The store keeps each episode as a zlib-compressed pickle and each distinct teacher
IR once, so the passes after normalization (consolidate, staticize, verify, package), which
read the episodes again and again, hold one decoded episode at a time. Decoding costs tens of
microseconds per episode per read; the packages are the same bytes as from a list.
"""

from __future__ import annotations

import dataclasses
import pickle
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, NamedTuple, overload

from jdsl.compiler.normalized import NormEpisode, NormStep

__all__ = ["EpisodeHead", "NormStore", "SlotSteps", "episode_ids", "heads", "joined", "subset"]

_NO_IR = -1


class EpisodeHead(NamedTuple):
    """What the passes that only count or list episodes read of one (no decoding)."""

    episode_id: str
    success: bool | None
    source_digest: str
    complete: bool = True

    @classmethod
    def of(cls, episode: NormEpisode) -> EpisodeHead:
        return cls(episode.episode_id, episode.success, episode.source_digest, episode.complete)


class NormStore(Sequence[NormEpisode]):
    """A read-mostly sequence of normalized episodes stored as compressed pickles.

    Indexing, slicing, ``len`` and iteration behave like a tuple of the episodes (each read
    decodes a fresh, equal episode); :meth:`append` and :meth:`extend` add at the end. Teacher
    IRs are kept once per distinct value (up to ``ir_limit`` kinds, then per episode) and shared
    by the episodes decoded from it. The store pickles as its compressed bytes, so sending it
    to a Dask worker or back costs what it holds.

    Args:
        episodes: episodes to add, in order.
        ir_limit: distinct teacher IRs kept shared.
    """

    def __init__(self, episodes: Iterable[NormEpisode] = (), *, ir_limit: int = 64) -> None:
        self._blobs: list[bytes] = []
        self._heads: list[EpisodeHead] = []
        self._ir_at: list[int] = []
        self._irs: list[dict[str, Any]] = []
        self._ir_limit = ir_limit
        self.extend(episodes)

    def append(self, episode: NormEpisode) -> None:
        """Add ``episode`` at the end."""
        index = self._ir_index(episode.teacher_ir)
        if index != _NO_IR:
            episode = dataclasses.replace(episode, teacher_ir=None)
        payload = pickle.dumps(episode, protocol=pickle.HIGHEST_PROTOCOL)
        self._blobs.append(zlib.compress(payload, 1))
        self._heads.append(EpisodeHead.of(episode))
        self._ir_at.append(index)

    def extend(self, episodes: Iterable[NormEpisode]) -> None:
        """Add ``episodes`` at the end, in order."""
        for episode in episodes:
            self.append(episode)

    @classmethod
    def concat(cls, stores: Iterable[NormStore]) -> NormStore:
        """One store of ``stores``' episodes in order, their bytes copied without decoding."""
        out = cls()
        for store in stores:
            shared = [out._ir_index(ir) for ir in store._irs]
            for blob, head, index in zip(store._blobs, store._heads, store._ir_at, strict=True):
                if index != _NO_IR and shared[index] == _NO_IR:
                    out.append(store._decode(blob, index))
                else:
                    out._blobs.append(blob)
                    out._heads.append(head)
                    out._ir_at.append(_NO_IR if index == _NO_IR else shared[index])
        return out

    def take(self, indexes: Iterable[int]) -> NormStore:
        """A store of the episodes at ``indexes``, in that order, sharing these bytes."""
        out = NormStore(ir_limit=self._ir_limit)
        out._irs = list(self._irs)
        for i in indexes:
            out._blobs.append(self._blobs[i])
            out._heads.append(self._heads[i])
            out._ir_at.append(self._ir_at[i])
        return out

    def _ir_index(self, ir: dict[str, Any] | None) -> int:
        if ir is None:
            return _NO_IR
        for i, known in enumerate(self._irs):
            if known is ir or known == ir:
                return i
        if len(self._irs) < self._ir_limit:
            self._irs.append(ir)
            return len(self._irs) - 1
        return _NO_IR

    def _decode(self, blob: bytes, index: int) -> NormEpisode:
        episode = pickle.loads(zlib.decompress(blob))
        if index != _NO_IR:
            object.__setattr__(episode, "teacher_ir", self._irs[index])
        return episode  # type: ignore[no-any-return]

    def __len__(self) -> int:
        return len(self._blobs)

    @overload
    def __getitem__(self, index: int) -> NormEpisode: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[NormEpisode]: ...

    def __getitem__(self, index: int | slice) -> NormEpisode | Sequence[NormEpisode]:
        if isinstance(index, slice):
            return tuple(map(self._decode, self._blobs[index], self._ir_at[index]))
        return self._decode(self._blobs[index], self._ir_at[index])

    def __iter__(self) -> Iterator[NormEpisode]:
        yield from map(self._decode, self._blobs, self._ir_at)

    def __repr__(self) -> str:
        size = sum(map(len, self._blobs))
        return f"NormStore({len(self)} episodes, {size:,} bytes, {len(self._irs)} teacher IRs)"

    def heads(self) -> list[EpisodeHead]:
        """Each episode's id, outcome, source digest and whether it is complete, in order,
        read without decoding."""
        return list(self._heads)

    @property
    def nbytes(self) -> int:
        """The compressed episodes' size in bytes (teacher IRs not counted)."""
        return sum(map(len, self._blobs))


def heads(episodes: Sequence[NormEpisode]) -> list[EpisodeHead]:
    """The :class:`EpisodeHead` of each episode in order (a :class:`NormStore` decodes none)."""
    if isinstance(episodes, NormStore):
        return episodes.heads()
    return [EpisodeHead.of(e) for e in episodes]


def episode_ids(episodes: Sequence[NormEpisode]) -> list[str]:
    """The ``episode_id`` of each episode in order (a :class:`NormStore` decodes none)."""
    return [h.episode_id for h in heads(episodes)]


def subset(episodes: Sequence[NormEpisode], indexes: Iterable[int]) -> Sequence[NormEpisode]:
    """The episodes at ``indexes``, in that order: a store sharing the bytes of a
    :class:`NormStore`, else a tuple."""
    if isinstance(episodes, NormStore):
        return episodes.take(indexes)
    return tuple(episodes[i] for i in indexes)


def joined(parts: Sequence[Sequence[NormEpisode]]) -> Sequence[NormEpisode]:
    """``parts`` end to end: one store when every part is a :class:`NormStore`, else a tuple."""
    if all(isinstance(p, NormStore) for p in parts):
        return parts[0] if len(parts) == 1 else NormStore.concat(parts)  # type: ignore[arg-type]
    return tuple(e for part in parts for e in part)


class SlotSteps(Sequence[NormStep]):
    """A slot's calls, one per episode, read from its episodes on every access: nothing of
    an episode is held, so a slot over a :class:`~jdsl.compiler.store.NormStore` stays small.
    A slice with step 1 (``steps[1:]``) is such a view too. :meth:`memo` keeps what a pass
    derived from these steps (one pass's small projection, read again by a later one)."""

    def __init__(
        self, groups: tuple[tuple[int, Sequence[NormEpisode]], ...], window: range | None = None
    ) -> None:
        self._groups = groups
        self._window = window if window is not None else range(sum(len(e) for _, e in groups))
        self._memo: dict[Any, Any] = {}

    def memo(self, key: Any, derive: Callable[[SlotSteps], Any]) -> Any:
        """``derive(self)``, computed on the first call with ``key`` and kept with this view
        (the steps never change, so neither does what is derived from them)."""
        if key not in self._memo:
            self._memo[key] = derive(self)
        return self._memo[key]

    def __len__(self) -> int:
        return len(self._window)

    def __iter__(self) -> Iterator[NormStep]:
        every = (e.ok_steps()[p] for p, episodes in self._groups for e in episodes)
        return islice(every, self._window.start, self._window.stop)

    @overload
    def __getitem__(self, index: int) -> NormStep: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[NormStep]: ...

    def __getitem__(self, index: int | slice) -> NormStep | Sequence[NormStep]:
        if isinstance(index, slice):
            window = self._window[index]
            return SlotSteps(self._groups, window) if window.step == 1 else tuple(self)[index]
        at = self._window[index]
        for position, episodes in self._groups:
            if at < len(episodes):
                return episodes[at].ok_steps()[position]
            at -= len(episodes)
        raise IndexError("slot step index out of range")
