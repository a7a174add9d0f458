"""WorkingContext: the explicit set of context items the predefined flows read and update.

Not to be confused with ``ContextWindow`` (the system-prompt stack of a tree) or ``RunContext``
(one run's state); see docs/design.md §7. A WorkingContext is immutable: every update returns a new
one. Each item records the provenance of its source (an observation of a tool call, a skill, a
document), so a value that reaches a prompt can be traced back to where it came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from jdsl.errors import JdslError

__all__ = ["ContextItem", "DuplicatePolicy", "IdentifiedText", "Provenance", "WorkingContext"]

DuplicatePolicy = Literal["replace", "keep_first", "reject"]


class Provenance(BaseModel):
    """Where an item came from.

    Attributes:
        kind: ``observation`` (a tool or MCP result), ``skill``, ``document`` or ``user``.
        source: the tool (``name`` / ``server:tool``), skill id or document id.
        call_id: the tool call, for observations.
        flow: the flow that added the item.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["observation", "skill", "document", "user"]
    source: str
    call_id: str | None = None
    flow: str | None = None


class IdentifiedText(BaseModel):
    """A text with a stable id: what a context item holds, and what becomes one (a skill's
    source, :class:`jdsl.flows.ingress.SkillSource`; a retrieved
    :class:`jdsl.flows.documents.Document`), each adding its own fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    content: str


class ContextItem(IdentifiedText):
    """One item of working context: an id, text content, provenance and JSON metadata."""

    provenance: Provenance
    metadata: dict[str, Any] = Field(default_factory=dict)


class WorkingContext:
    """An ordered, immutable collection of :class:`ContextItem` with unique ids.

    Example:
        >>> ctx = WorkingContext()
        >>> doc = ContextItem(id="d1", content="hi", provenance=Provenance(kind="user", source="u"))
        >>> ctx.update(add=[doc]).ids
        ('d1',)
    """

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[ContextItem] = ()) -> None:
        self._items: tuple[ContextItem, ...] = ()
        self._items = self.update(add=items, duplicates="reject")._items if items else ()

    @classmethod
    def _of(cls, items: tuple[ContextItem, ...]) -> WorkingContext:
        ctx = cls()
        ctx._items = items
        return ctx

    @property
    def items(self) -> tuple[ContextItem, ...]:
        return self._items

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(item.id for item in self._items)

    def __iter__(self) -> Iterator[ContextItem]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, item_id: object) -> bool:
        return any(item.id == item_id for item in self._items)

    def __repr__(self) -> str:
        return f"WorkingContext({list(self.ids)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WorkingContext) and other._items == self._items

    __hash__ = None  # type: ignore[assignment]  # mutable-looking value semantics: unhashable

    def get(self, item_id: str) -> ContextItem | None:
        """The item with ``item_id``, or None."""
        return next((item for item in self._items if item.id == item_id), None)

    def select(self, item_ids: Sequence[str]) -> WorkingContext:
        """A context of the items with ``item_ids``, in that order (unknown ids skipped)."""
        by_id = {item.id: item for item in self._items}
        return WorkingContext._of(tuple(by_id[i] for i in item_ids if i in by_id))

    def update(
        self,
        *,
        add: Iterable[ContextItem] = (),
        remove: Iterable[str] = (),
        duplicates: DuplicatePolicy = "replace",
    ) -> WorkingContext:
        """A new context: ``remove`` ids first, then ``add`` items in order.

        Args:
            duplicates: for an added id that already exists: ``replace`` it in place,
                ``keep_first`` (ignore the new one) or ``reject``.

        Raises:
            JdslError: a duplicate id under ``reject``.
        """
        gone = set(remove)
        items = [item for item in self._items if item.id not in gone]
        index = {item.id: i for i, item in enumerate(items)}
        for item in add:
            if item.id not in index:
                index[item.id] = len(items)
                items.append(item)
            elif duplicates == "replace":
                items[index[item.id]] = item
            elif duplicates == "reject":
                raise JdslError(
                    f"context item {item.id!r} already exists; remove it first or pass "
                    "duplicates='replace'"
                )
        return WorkingContext._of(tuple(items))
