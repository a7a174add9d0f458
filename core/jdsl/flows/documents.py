"""Documents for retrieval: the :class:`Document` record and Markdown section splitting.

A document is what a retriever returns and what :func:`jdsl.flows.rag_flow` turns into a
working-context item, with its id as the item's id and its source as the item's provenance.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field
from pydantic import ValidationError as PydanticValidationError

from jdsl.errors import JdslError
from jdsl.flows.context import ContextItem, IdentifiedText, Provenance

__all__ = ["Document", "RetrievalError", "as_document", "markdown_sections"]


class RetrievalError(JdslError, ValueError):
    """A retrieval that cannot be made: a bad document, query, argument, strategy or index
    file (a ``ValueError`` too: what was given is at fault).

    Attributes:
        document_id: the offending document, when there is one.
    """

    def __init__(self, message: str, *, document_id: str | None = None) -> None:
        self.document_id = document_id
        super().__init__(message)


class Document(IdentifiedText):
    """One retrievable text with a stable id.

    Attributes:
        id: unique in its store; it becomes the context item's id (e.g.
            ``"tau_retail/wiki.md#cancel-pending-order"``), so an answer can cite it.
        content: the text a model reads.
        title: a heading or name (indexed with a higher weight than the content).
        source: where it came from (a file, a URL); the item's provenance ``source``, default
            the id.
        score: the retriever's relevance score, higher is better (None when it gives none).
        metadata: JSON data kept on the context item.
    """

    title: str = ""
    source: str | None = None
    score: float | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    def to_item(self, *, flow: str = "rag_flow") -> ContextItem:
        """The working-context item for this document (provenance ``document``)."""
        extra: dict[str, Any] = {"title": self.title} if self.title else {}
        if self.score is not None:
            extra["score"] = self.score
        return ContextItem(
            id=self.id,
            content=self.content,
            provenance=Provenance(kind="document", source=self.source or self.id, flow=flow),
            metadata={**self.metadata, **extra},
        )


def as_document(value: Any, *, where: str = "a document") -> Document:
    """A :class:`Document` from a Document, a :class:`ContextItem` or a mapping of its fields.

    Raises:
        RetrievalError: anything else, or a mapping that is not a valid document.
    """
    if isinstance(value, Document):
        return value
    if isinstance(value, ContextItem):
        return Document(
            id=value.id,
            content=value.content,
            source=value.provenance.source,
            metadata=dict(value.metadata),
        )
    if isinstance(value, Mapping):
        try:
            return Document.model_validate(dict(value))
        except PydanticValidationError as exc:
            problem = exc.errors()[0]
            field = ".".join(str(p) for p in problem["loc"]) or "document"
            raise RetrievalError(
                f"{where} is not a valid document: {field}: {problem['msg']}; give "
                "{'id': str, 'content': str, 'title'?, 'source'?, 'metadata'?}",
                document_id=str(value.get("id")) if value.get("id") else None,
            ) from None
    raise RetrievalError(
        f"{where} is a {type(value).__name__}; give a Document, a ContextItem or a mapping "
        "with 'id' and 'content'"
    )


_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+)$")  # the title's closing #s: _title, not the regex
_FENCE = re.compile(r"^[ \t]*(```|~~~)")


def _title(text: str) -> str:
    """A heading's text without its closing ``#``s and blanks (``Cancel ##`` -> ``Cancel``).

    What a lazy ``(.+?)[ \t#]*$`` would capture, in linear time: the regex retried the tail at
    every position (a 40 KB heading of ``a #`` took 12 s).
    """
    return text.rstrip(" \t#") or text[:1]


def _slug(title: str) -> str:
    """GitHub-style anchor: lower case, punctuation dropped, spaces to hyphens."""
    kept = re.sub(r"[^\w\- ]", "", title.strip().lower(), flags=re.UNICODE)
    return re.sub(r"[ ]+", "-", kept) or "section"


def markdown_sections(text: str, *, source: str, max_level: int = 3) -> list[Document]:
    """Split Markdown into one :class:`Document` per heading (levels 1..``max_level``).

    A section runs from its heading to the next heading of level <= ``max_level``; headings in
    code fences do not split. Ids are ``f"{source}#{anchor}"`` with GitHub-style anchors
    (``## Cancel pending order`` -> ``#cancel-pending-order``; a repeated anchor gets ``-1``,
    ``-2``...); text before the first heading is ``#preamble``; a text without headings is one
    document with id ``source``. A title is the heading path (``Modify pending order > Modify
    payment``); the content keeps the heading line. Sections with no text besides their heading
    are skipped.

    Args:
        text: the Markdown.
        source: the document's name (a file path), the prefix of every id.
        max_level: the deepest heading level that starts a section (1-6).

    Raises:
        RetrievalError: ``max_level`` outside 1-6 or an empty ``source`` (a ValueError).

    Example:
        >>> [d.id for d in markdown_sections("# A\\nx\\n## B c\\ny", source="w.md")]
        ['w.md#a', 'w.md#b-c']
    """
    if not (isinstance(text, str) and isinstance(source, str) and source) or max_level not in range(
        1, 7
    ):
        raise RetrievalError("markdown_sections needs text, a nonempty source and max_level in 1-6")
    sections: list[tuple[list[str], list[str]]] = [([], [])]  # (heading path, lines)
    path: list[str] = []
    fenced = False
    for line in text.splitlines():
        fenced = fenced != bool(_FENCE.match(line))
        heading = None if fenced else _HEADING.match(line)
        if heading and len(heading.group(1)) <= max_level:
            level = len(heading.group(1))
            title = _title(heading.group(2))
            path = [*path[: level - 1], *[""] * max(0, level - 1 - len(path)), title]
            sections.append(([p for p in path if p], [line]))
        else:
            sections[-1][1].append(line)
    if len(sections) == 1:
        return [Document(id=source, content=text.strip(), source=source)] if text.strip() else []
    return _documents(sections, source)


def _documents(sections: list[tuple[list[str], list[str]]], source: str) -> list[Document]:
    seen: dict[str, int] = {}
    found: list[Document] = []
    for titles, lines in sections:
        body = "\n".join(lines[1:] if titles else lines).strip()
        anchor = _slug(titles[-1]) if titles else "preamble"
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        if not body:
            continue
        anchor = anchor if count == 0 else f"{anchor}-{count}"
        content = "\n".join(lines).strip()
        found.append(
            Document(
                id=f"{source}#{anchor}", content=content, title=" > ".join(titles), source=source
            )
        )
    return found
