"""rag_flow: select the context items most relevant to a query, with a pluggable strategy.

The default strategy is lexical BM25 (the ``rank-bm25`` library, BM25+ scoring) over a simple
lower-cased word tokenizer. Only items sharing at least one word with the query are selected;
ties keep the context order, so the selection is deterministic.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Protocol

from jdsl.flows.context import ContextItem, WorkingContext
from jdsl.settings import Settings

__all__ = ["Bm25Strategy", "RagSelection", "RagStrategy", "rag_flow", "tokenize"]

_WORD = re.compile(r"\w+", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens of ``text``."""
    return _WORD.findall(text.lower())


class RagStrategy(Protocol):
    """Ranks items for a query: ``[(item_id, score), ...]``, best first, at most ``limit``."""

    def rank(
        self, query: str, items: Sequence[ContextItem], limit: int
    ) -> list[tuple[str, float]]: ...


class Bm25Strategy:
    """Lexical BM25+ ranking (``rank-bm25``); items with no query word are dropped."""

    def rank(self, query: str, items: Sequence[ContextItem], limit: int) -> list[tuple[str, float]]:
        terms = set(tokenize(query))
        docs = [tokenize(item.content) for item in items]
        if not terms or not docs:
            return []
        from rank_bm25 import BM25Plus  # lazy: it imports numpy

        scores = BM25Plus(docs).get_scores(sorted(terms))
        ranked = sorted(
            (
                (-float(score), i)
                for i, (score, doc) in enumerate(zip(scores, docs, strict=True))
                if terms & set(doc)
            )
        )
        return [(items[i].id, -neg) for neg, i in ranked[:limit]]


@dataclasses.dataclass(frozen=True)
class RagSelection:
    """The result of :func:`rag_flow`.

    Attributes:
        purpose: what the selection is for (``"infer"``: a model prompt).
        selected_item_ids: chosen ids, best first.
        scores: the strategy's score per chosen id.
        context: a WorkingContext of the chosen items, best first.
    """

    purpose: str
    selected_item_ids: tuple[str, ...]
    scores: dict[str, float]
    context: WorkingContext

    def text(self, separator: str = "\n\n") -> str:
        """The chosen items' content joined, ready for a prompt field."""
        return separator.join(item.content for item in self.context)


def rag_flow(
    context: WorkingContext,
    query: str,
    *,
    strategy: RagStrategy | None = None,
    limit: int | None = None,
    max_chars: int | None = None,
    settings: Settings | None = None,
) -> RagSelection:
    """Select up to ``limit`` items of ``context`` for ``query``.

    Args:
        context: the candidate items.
        query: what the next model call is about.
        strategy: the ranking (default :class:`Bm25Strategy`).
        limit: most items to select (default ``settings.rag.limit``, 5).
        max_chars: stop adding items once their content would exceed this many characters.
        settings: behaviour settings.

    Raises:
        ValueError: ``limit`` or ``max_chars`` below 1.
    """
    limit = limit if limit is not None else (settings or Settings()).rag.limit
    if limit < 1 or (max_chars is not None and max_chars < 1):
        raise ValueError("limit and max_chars must be positive")
    ranked = (strategy or Bm25Strategy()).rank(query, context.items, limit)
    chosen: list[tuple[str, float]] = []
    used = 0
    for item_id, score in ranked[:limit]:
        item = context.get(item_id)
        if item is None:
            continue
        if max_chars is not None and used + len(item.content) > max_chars:
            break
        used += len(item.content)
        chosen.append((item_id, score))
    ids = tuple(i for i, _ in chosen)
    return RagSelection("infer", ids, dict(chosen), context.select(ids))
