"""rag_flow: retrieve the documents relevant to a query into the working context.

The seed's RAG strategy: "optional embed/rank and required retrieve" (ditto's
``createRagStrategy``). A strategy is any object with

* ``retrieve(query, k) -> documents`` (required): at most ``k`` documents, best first; called as
  ``retrieve(query, k, embedding=vector)`` when the strategy has ``embed``;
* ``embed(query) -> vector`` (optional): whatever its ``retrieve`` compares against;
* ``rank(query, documents) -> documents`` (optional): reorders (and may drop) the retrieved ones.

Documents are :class:`~jdsl.flows.documents.Document` s, context items or ``{"id", "content",
...}`` mappings. Each one enters the working context as an item with the document's id and a
``document`` provenance naming its source, so an answer can cite what it used.
:func:`rag_strategy` builds a strategy from plain functions; :class:`SqliteFtsRetriever` is a
ready one (SQLite FTS5, BM25). With no strategy, rag_flow searches the items already in the
context (:class:`ContextRetriever`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from jdsl.flows.context import WorkingContext
from jdsl.flows.documents import Document, RetrievalError, as_document
from jdsl.flows.fts import SqliteFtsRetriever
from jdsl.settings import Settings

__all__ = ["ContextRetriever", "RagSelection", "RagStrategy", "rag_flow", "rag_strategy"]


@runtime_checkable
class RagStrategy(Protocol):
    """Retrieves documents for a query; ``embed`` and ``rank`` are optional (module docstring)."""

    def retrieve(self, query: str, k: int) -> Iterable[Any]: ...


@dataclasses.dataclass(frozen=True)
class FunctionStrategy:
    """The strategy :func:`rag_strategy` builds: its steps are the given functions."""

    retrieve: Callable[..., Iterable[Any]]
    embed: Callable[[str], Any] | None = None
    rank: Callable[[str, list[Document]], Iterable[Any]] | None = None


def rag_strategy(
    retrieve: Callable[..., Iterable[Any]],
    *,
    embed: Callable[[str], Any] | None = None,
    rank: Callable[[str, list[Document]], Iterable[Any]] | None = None,
) -> RagStrategy:
    """A strategy from functions: ``retrieve(query, k[, embedding=])``, ``embed``, ``rank``.

    Example:
        >>> docs = [{"id": "a", "content": "apples"}, {"id": "b", "content": "bananas"}]
        >>> strategy = rag_strategy(lambda query, k: docs[:k])
        >>> rag_flow(None, "fruit", strategy=strategy, limit=1).selected_item_ids
        ('a',)
    """
    return FunctionStrategy(retrieve, embed, rank)


class ContextRetriever:
    """BM25 (SQLite FTS5) over the items of a working context, indexed per call, in memory.

    Items sharing no word with the query are never retrieved; ties keep the context order.
    """

    def __init__(self, context: WorkingContext) -> None:
        self.context = context

    def retrieve(self, query: str, k: int) -> list[Document]:
        if not len(self.context):
            return []
        docs = [Document(id=item.id, content=item.content) for item in self.context]
        with SqliteFtsRetriever.from_documents(docs) as index:
            return index.retrieve(query, k)


@dataclasses.dataclass(frozen=True)
class RagSelection:
    """The result of :func:`rag_flow`.

    Attributes:
        purpose: what the selection is for (``"infer"``: a model prompt).
        selected_item_ids: chosen ids, best first.
        scores: the strategy's score per chosen id (None where it gave none).
        context: a WorkingContext of the chosen items, best first (what a prompt gets).
        working_context: the input context with every chosen document added (an id already
            there keeps its item), for the next flow.
    """

    purpose: str
    selected_item_ids: tuple[str, ...]
    scores: dict[str, float | None]
    context: WorkingContext
    working_context: WorkingContext

    def text(self, separator: str = "\n\n", *, cite: bool = False) -> str:
        """The chosen items' content joined, ready for a prompt field.

        With ``cite``, each item starts with its id in brackets (``[wiki.md#refunds] ...``), so
        a model can cite the documents it used by id.
        """
        return separator.join(
            f"[{item.id}] {item.content}" if cite else item.content for item in self.context
        )


def rag_flow(
    context: WorkingContext | None,
    query: str,
    *,
    strategy: RagStrategy | None = None,
    limit: int | None = None,
    candidates: int | None = None,
    max_chars: int | None = None,
    settings: Settings | None = None,
) -> RagSelection:
    """Retrieve up to ``limit`` documents for ``query`` into the working context.

    Steps: ``embed`` (if the strategy has it), ``retrieve(query, candidates)``, ``rank`` (if it
    has it), then the first ``limit`` distinct ids, stopping before ``max_chars`` is exceeded.

    Args:
        context: the working context (None: an empty one).
        query: what the next model call is about.
        strategy: the retrieval (default :class:`ContextRetriever` over ``context``).
        limit: most documents to select (default ``settings.rag.limit``, 5).
        candidates: how many to retrieve before ``rank`` (default ``limit``).
        max_chars: stop adding documents once their content would exceed this many characters.
        settings: behaviour settings.

    Raises:
        ValueError: a non-string query, or ``limit``, ``candidates`` or ``max_chars`` below 1.
        RetrievalError: a strategy without ``retrieve``, or one returning something that is not
            a document. Exceptions the strategy raises propagate.

    Example:
        >>> index = SqliteFtsRetriever.from_documents([{"id": "d1", "content": "Refunds take 5 days."}])
        >>> rag_flow(None, "how long do refunds take?", strategy=index).text(cite=True)
        '[d1] Refunds take 5 days.'
    """
    context = context if context is not None else WorkingContext()
    limit = limit if limit is not None else (settings or Settings()).rag.limit
    k = candidates if candidates is not None else limit
    if not isinstance(query, str) or min(limit, k, 1 if max_chars is None else max_chars) < 1:
        raise ValueError("rag_flow needs a string query and positive limit, candidates, max_chars")
    strategy = strategy if strategy is not None else ContextRetriever(context)
    documents = _retrieve(strategy, query, k)
    chosen = _choose(documents, limit, max_chars)
    items = [context.get(doc.id) or doc.to_item() for doc in chosen]
    ids = tuple(item.id for item in items)
    return RagSelection(
        purpose="infer",
        selected_item_ids=ids,
        scores={doc.id: doc.score for doc in chosen},
        context=WorkingContext(items),
        working_context=context.update(add=items, duplicates="keep_first"),
    )


def _retrieve(strategy: Any, query: str, k: int) -> list[Document]:
    name = type(strategy).__name__
    if not callable(getattr(strategy, "retrieve", None)):
        raise RetrievalError(f"{name} has no retrieve(query, k) method; use rag_strategy(fn)")
    embed = getattr(strategy, "embed", None)
    found = (
        strategy.retrieve(query, k, embedding=embed(query))
        if callable(embed)
        else strategy.retrieve(query, k)
    )
    documents = _documents(found, f"{name}.retrieve")
    rank = getattr(strategy, "rank", None)
    return _documents(rank(query, documents), f"{name}.rank") if callable(rank) else documents


def _documents(found: Any, where: str) -> list[Document]:
    if isinstance(found, str | bytes | Mapping) or not isinstance(found, Iterable):
        raise RetrievalError(
            f"{where} returned a {type(found).__name__}; return a list of documents"
        )
    return [as_document(value, where=f"{where} item {i}") for i, value in enumerate(found)]


def _choose(documents: list[Document], limit: int, max_chars: int | None) -> list[Document]:
    chosen: dict[str, Document] = {}
    used = 0
    for doc in documents:
        if doc.id in chosen:
            continue
        if len(chosen) >= limit or (max_chars is not None and used + len(doc.content) > max_chars):
            break
        used += len(doc.content)
        chosen[doc.id] = doc
    return list(chosen.values())
