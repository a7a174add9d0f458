"""The retail database: an immutable snapshot plus a copy-on-write episode state.

The benchmark starts every episode from a fresh deep copy of ``db/{users,orders,products}.json``.
Copying 1,550 records per episode (and parsing them again for every gold replay) would make a
635-task replay take tens of seconds, so the state here is *copy on write* instead:

* :func:`retail_snapshot` parses the package data once per process and keeps every record as
  its JSON text (``json.dumps(record)``, default separators, file key order) in read-only
  mappings. Strings cannot be mutated, so the cached snapshot is shared safely.
* :class:`RetailState` (one per episode) reads records from the snapshot as fresh objects and
  keeps its own copy of every record a tool changed. A tool call runs as a transaction
  (:meth:`RetailState.transaction`): its edits are committed only when the call succeeds, so a
  failing call changes nothing, as the benchmark requires.

Observable behaviour equals the benchmark's fresh deep copy; only the cost differs.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from jdsl.envs.data import load_json
from jdsl.trace import canonical_json

__all__ = ["TABLES", "RetailSnapshot", "RetailState", "retail_snapshot"]

TABLES = ("users", "orders", "products")


@dataclass(frozen=True)
class RetailSnapshot:
    """The benchmark database, read-only: ``{table: {record id: record JSON text}}``.

    Attributes:
        tables: ``users`` (500), ``orders`` (1,000), ``products`` (50) in file order; each value is
            the record as ``json.dumps(record)``, exactly the text the tools return.
    """

    tables: Mapping[str, Mapping[str, str]]

    @classmethod
    def from_records(cls, tables: Mapping[str, Mapping[str, Any]]) -> RetailSnapshot:
        """Freeze ``{table: {id: record}}`` (records are serialised, so later edits do not leak)."""
        frozen = {
            name: MappingProxyType({key: json.dumps(rec) for key, rec in tables[name].items()})
            for name in TABLES
        }
        return cls(tables=MappingProxyType(frozen))


@functools.cache
def retail_snapshot() -> RetailSnapshot:
    """The shipped retail database (``jdsl.data/tau_retail/db``), parsed once per process."""
    return RetailSnapshot.from_records(
        {name: load_json("tau_retail", "db", f"{name}.json") for name in TABLES}
    )


class RetailState:
    """One episode's database: the snapshot plus this episode's changed records.

    Read with :meth:`read` (a record you must not mutate) or :meth:`text` (its JSON text); change
    a record only inside :meth:`transaction`, through :meth:`edit`.

    Args:
        snapshot: the database to start from; the shipped one by default.
    """

    def __init__(self, snapshot: RetailSnapshot | None = None) -> None:
        self.snapshot = snapshot or retail_snapshot()
        self._changed: dict[str, dict[str, Any]] = {name: {} for name in TABLES}
        self._pending: dict[str, dict[str, Any]] | None = None

    def ids(self, table: str) -> Iterator[str]:
        """Record ids of ``table`` in file order (tools never add or delete records)."""
        return iter(self.snapshot.tables[table])

    def has(self, table: str, key: str) -> bool:
        """Whether ``table`` has a record with id ``key`` (an exact, hashable key)."""
        return isinstance(key, str) and key in self.snapshot.tables[table]

    def read(self, table: str, key: str) -> Any:
        """The current record ``key`` of ``table``; treat it as read-only.

        Raises:
            KeyError: when there is no such record (check :meth:`has` first).
        """
        for layer in (self._pending, self._changed):
            if layer is not None and key in layer[table]:
                return layer[table][key]
        return json.loads(self.snapshot.tables[table][key])

    def text(self, table: str, key: str) -> str:
        """The current record as ``json.dumps(record)``, the text the tools return."""
        if self._pending is None and key not in self._changed[table]:
            return self.snapshot.tables[table][key]
        return json.dumps(self.read(table, key))

    def edit(self, table: str, key: str) -> Any:
        """This transaction's own, mutable copy of a record; edits land on commit.

        Raises:
            RuntimeError: outside :meth:`transaction`.
        """
        if self._pending is None:
            raise RuntimeError("RetailState.edit() must run inside RetailState.transaction()")
        pending = self._pending[table]
        if key not in pending:
            pending[key] = copy.deepcopy(self.read(table, key))
        return pending[key]

    @contextmanager
    def transaction(self) -> Iterator[RetailState]:
        """Run one tool call: commit its edits when the block exits normally, else drop them."""
        if self._pending is not None:
            raise RuntimeError("RetailState transactions do not nest")
        self._pending = {name: {} for name in TABLES}
        try:
            yield self
            for name, records in self._pending.items():
                self._changed[name].update(records)
        finally:
            self._pending = None

    def changed_ids(self) -> dict[str, list[str]]:
        """``{table: [ids of records this episode changed]}`` (possibly back to their values)."""
        return {name: sorted(records) for name, records in self._changed.items()}

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """The whole database as fresh objects: ``{"users": {...}, "orders": ..., "products": ...}``."""
        return {
            name: {key: json.loads(self.text(name, key)) for key in self.ids(name)}
            for name in TABLES
        }

    def digest(self) -> str:
        """``sha256:<hex>`` of the whole database as canonical JSON (sorted keys)."""
        return "sha256:" + hashlib.sha256(canonical_json(self.to_dict()).encode()).hexdigest()

    def same_data(self, other: RetailState) -> bool:
        """Whether two states hold equal databases (compares only records either one changed)."""
        if self.snapshot is not other.snapshot:
            return self.to_dict() == other.to_dict()
        for name in TABLES:
            touched = self._changed[name].keys() | other._changed[name].keys()
            if any(self.read(name, key) != other.read(name, key) for key in touched):
                return False
        return True
