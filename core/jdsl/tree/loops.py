"""ForEach: run a child once per element of a list on the blackboard (docs/ARCHITECTURE.md).

``for_each order_id in user.orders collect=order -> orders`` reads the list at ``items``, and
for each element, in order, writes it under ``item`` (the writer is the loop; the write's
``source`` is the element's path, ``items[i]``: :func:`element_path`) and ticks the child. With ``collect``, the value the child left at
``collect`` after each pass is appended to a list written under ``store`` at the end.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from jdsl.errors import RefError, ValidationError
from jdsl.expr import missing_step, parse_path, preview
from jdsl.tree.decorators import Decorator
from jdsl.tree.status import Status

if TYPE_CHECKING:
    from jdsl.tree.context import RunContext

__all__ = [
    "ITEM_NAME",
    "MAX_FOR_EACH",
    "ForEach",
    "collect_store_problem",
    "element_path",
    "item_name_problem",
    "items_path_problem",
    "repeated_selection",
]

MAX_FOR_EACH: Final = 1000
"""The most elements a for_each may run over (the bound of every loop, as repeat's ``max``)."""

ITEM_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""What an ``item`` (or ``store``) name looks like: an identifier, so refs can read it."""


def item_name_problem(value: Any, what: str = "item") -> str | None:
    """Why ``value`` is not a valid loop variable name, or None."""
    if isinstance(value, str) and ITEM_NAME.fullmatch(value):
        return None
    return (
        f"{what} must be a name such as order_id (letters, digits, _; not starting with a "
        f"digit), got {preview(value)}"
    )


def items_path_problem(value: Any) -> str | None:
    """Why ``value`` is not a valid ``items`` path (as act arguments read), or None."""
    if not isinstance(value, str) or not value.strip():
        return f"items must be a path such as user.orders, got {preview(value)}"
    try:
        parse_path(value)
    except ValidationError as exc:
        return f"items: {'; '.join(exc.problems)}"
    return None


class ForEach(Decorator):
    """Tick the child once per element of the list at ``items``, the element bound to ``item``.

    No element -> SUCCESS (``store`` = ``[]``). A missing ``items`` path, a value that is not
    a list, or more than ``max`` elements -> FAILURE with a reason naming the path; so does a
    selection naming an element twice (``xs[$k]``, ``k = [1, 1]``: :func:`repeated_selection`),
    before any pass. A child FAILURE ends the loop with FAILURE. With ``collect`` (and ``store``, which comes with it),
    the value at ``collect`` after each pass is appended; a pass that leaves none -> FAILURE.
    ``item`` keeps the last element after the loop.

    Attributes:
        items: the restricted path of the list (``user.orders``, ``rows[$i].ids``).
        item: the blackboard key each element is written under (an identifier).
        collect: the key (or path) the child writes in each pass, gathered in order.
        store: where the gathered list is written.
        max: the most elements allowed (1..1000, default 1000).
    """

    kind: Literal["for_each"] = "for_each"
    items: str
    item: str
    collect: str | None = None
    store: str | None = None
    max: int = Field(default=MAX_FOR_EACH, ge=1, le=MAX_FOR_EACH, strict=True)

    @field_validator("items", "item")
    @classmethod
    def _path_and_name(cls, value: str, info: ValidationInfo) -> str:
        """``items`` must be a path, ``item`` a plain name."""
        check = items_path_problem if info.field_name == "items" else item_name_problem
        problem = check(value)
        if problem:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _collect_with_store(self) -> ForEach:
        problem = collect_store_problem(self.collect, self.store)
        if problem:
            raise ValueError(problem)
        return self

    @property
    def label(self) -> str:
        text = f"for_each {self.item} in {self.items}"
        if self.collect is not None:
            text += f" collect={self.collect} -> {self.store}"
        return text

    def _tick(self, ctx: RunContext) -> Status:
        child = self._child()
        try:
            elements = ctx.read(self.items, self)
        except RefError:
            reason = missing_step(self.items, ctx.blackboard)
            return ctx.fail(
                self, f"items {self.items} cannot be read: {reason}; seed {self.items} as a "
                "list (a run input) or write it in an earlier node"
            )  # fmt: skip
        if not isinstance(elements, list | tuple):
            return ctx.fail(
                self, f"items {self.items} is {type(elements).__name__} {preview(elements)}, "
                f"not a list; make {self.items} a list, or loop over a path that is one"
            )  # fmt: skip
        if len(elements) > self.max:
            return ctx.fail(
                self, f"items {self.items} has {len(elements)} elements, more than "
                f"max={self.max}; raise max= (at most 1000) or loop over a shorter list"
            )  # fmt: skip
        board = ctx.blackboard  # the paths as of the read, whatever the child changes later
        repeated = repeated_selection(self.items, board)
        if repeated is not None:
            return ctx.fail(self, repeated)
        gathered: list[Any] = []
        sources = [element_path(self.items, index, board) for index in range(len(elements))]
        for index, element in enumerate(elements):
            ctx.write(self.item, element, self, source=sources[index], index=index)
            if not child.tick(ctx):
                return Status.FAILURE
            if self.collect is not None:
                try:
                    gathered.append(ctx.read(self.collect, self))
                except RefError:
                    return ctx.fail(
                        self, f"pass {index} left no {self.collect} to collect; the child must "
                        f"write {self.collect} for every element"
                    )  # fmt: skip
        if self.store is not None:
            ctx.write(self.store, gathered, self)
        return Status.SUCCESS


_TOKEN = re.compile(r"\[[^\]]*\]|[^.\[\]]+|\.")  # as jdsl.expr splits a path


def element_path(items: str, index: int, board: Mapping[str, Any]) -> str:
    """The path of element ``index`` of the list at ``items``, as of now: ``user.orders[2]``.

    ``$name`` indexes are replaced by their values (``users[$u].orders`` -> ``users[1].orders[2]``)
    and a fan-out (``[*]``, or ``[$k]`` holding a list) is replaced by the element's own index
    (``orders[*].id`` -> ``orders[2].id``), so the path resolves to the element on this
    blackboard. An index value with no path text keeps its ``[$name]``.
    """
    if items in board:  # the exact key, as ctx.read reads it first
        return f"{items}[{index}]"
    parts: list[str] = []
    fanned = False
    for token in _TOKEN.findall(items):
        inner = token[1:-1].strip() if token.startswith("[") else None
        if inner == "*" and not fanned:
            token, fanned = f"[{index}]", True
        elif inner is not None and inner.startswith("$"):
            value = board.get(inner[1:])
            if isinstance(value, list) and not fanned and 0 <= index < len(value):
                value, fanned = value[index], True
            if not isinstance(value, list):
                token = _bracket(value) or token
        parts.append(token)
    text = "".join(parts)
    return text if fanned else f"{text}[{index}]"


def repeated_selection(items: str, board: Mapping[str, Any]) -> str | None:
    """Why the selection in ``items`` (``xs[$k]``, ``k`` a list of indexes) names an element
    more than once, or None: a loop over a selection acts on each element it selects once (a
    repeated index would make a write twice)."""
    if items in board:
        return None
    for token in _TOKEN.findall(items):
        inner = token[1:-1].strip() if token.startswith("[") else ""
        if not inner.startswith("$"):
            continue
        value = board.get(inner[1:])
        if not isinstance(value, list):
            continue
        seen: set[str] = set()
        for index in value:
            key = repr(index)
            if key in seen:
                return (
                    f"items {items}: {inner[1:]} selects {preview(index)} more than once "
                    f"({preview(value)}); a selection names each element once: answer "
                    "distinct indexes"
                )  # fmt: skip
            seen.add(key)
    return None


def _bracket(value: Any) -> str | None:
    """``value`` as a path bracket (``[2]``, ``["k"]``), or None when it has no text form."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**18:
        return f"[{value}]"
    if isinstance(value, str) and value and not set(value) & set("[]\"'"):
        return f'["{value}"]'
    return None


def collect_store_problem(collect: Any, store: Any) -> str | None:
    """Why ``collect`` / ``store`` do not go together, or None."""
    if (collect is None) != (store is None):
        return (
            "collect and store come together: write collect=KEY -> STORE (gather each "
            "pass's KEY into the list STORE), or neither"
        )
    if collect is None:
        return None
    if not isinstance(collect, str) or items_path_problem(collect):
        return f"collect must be a key or path the child writes, got {preview(collect)}"
    return item_name_problem(store, "store")
