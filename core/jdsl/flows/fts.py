"""An embedded retriever: SQLite FTS5 full-text search with SQLite's own BM25 ranking.

No service and no extra package: Python's :mod:`sqlite3` when its SQLite has FTS5 (python.org,
Debian, conda and Homebrew builds do), else ``pysqlite3`` when it is installed; otherwise
:class:`Fts5Unavailable` names the fix. An index lives in memory or in one SQLite file that can
be reopened later.

Layout (SQLite's external-content pattern, https://sqlite.org/fts5.html §4.4.3): a ``documents``
table (id, title, content, source, metadata JSON) and an FTS5 table over its title and content;
``bm25(fts, 2.0, 1.0)`` ranks, weighting a title match twice a content match. Scores are
``-bm25`` (higher is better); ties keep insertion order, so results are deterministic. SQLite
floors the idf of a word found in more than half of the documents at 1e-6, so in a small corpus
common words barely count and scores can be tiny; their order is what matters.

Example:
    >>> index = SqliteFtsRetriever.from_documents([
    ...     {"id": "refunds", "content": "Refunds go back to the original payment method."},
    ...     {"id": "hours", "content": "Support is open every day."},
    ... ])
    >>> [d.id for d in index.retrieve("how are refunds paid?", 3)]
    ['refunds']
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import heapq
import importlib
import json
import os
import re
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from jdsl.errors import JdslError
from jdsl.flows.context import DuplicatePolicy
from jdsl.flows.documents import Document, RetrievalError, as_document, markdown_sections

__all__ = ["Fts5Unavailable", "QuerySyntax", "SqliteFtsRetriever", "fts5_module"]

QuerySyntax = Literal["words", "fts5"]
FORMAT = "jdsl.fts.v1"
_WORD = re.compile(r"\w+", re.UNICODE)
_SURROGATE = re.compile("[\ud800-\udfff]")
_CHUNK = 200
"""Words per FTS5 query: SQLite's cost for an OR of n words grows faster than n (64,000 words
took 3.5 s), so a longer words query is run in chunks whose BM25 scores are summed (BM25 is a
sum over the query's words, so the ranking is the same)."""
_MAX_K = 2**62  # SQLite's LIMIT is a 64-bit integer
_SCHEMA = """
CREATE TABLE IF NOT EXISTS jdsl_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
    content TEXT NOT NULL, source TEXT, metadata TEXT NOT NULL);
"""


class Fts5Unavailable(JdslError, ImportError):
    """This Python's SQLite was built without FTS5, and ``pysqlite3`` is not installed.

    Attributes:
        sqlite_version: the SQLite version Python's :mod:`sqlite3` uses.
    """

    def __init__(self, sqlite_version: str) -> None:
        self.sqlite_version = sqlite_version
        super().__init__(
            f"this Python's sqlite3 (SQLite {sqlite_version}) was built without FTS5, which "
            "SqliteFtsRetriever needs; install pysqlite3-binary (pip install pysqlite3-binary), "
            "which jdsl then uses, or run a Python whose SQLite has FTS5 (python.org, Debian, "
            "conda and Homebrew builds have it)"
        )


def _has_fts5(module: ModuleType) -> bool:
    connection = module.connect(":memory:")
    try:
        connection.execute("CREATE VIRTUAL TABLE temp.jdsl_probe USING fts5(x)")
    except module.OperationalError:
        return False
    finally:
        connection.close()
    return True


@functools.cache
def fts5_module() -> ModuleType:
    """The DB-API module to use: :mod:`sqlite3` when it has FTS5, else ``pysqlite3``.

    Probed once per process (the SQLite build does not change while it runs).

    Raises:
        Fts5Unavailable: neither has FTS5.
    """
    import sqlite3

    if _has_fts5(sqlite3):
        return sqlite3
    try:
        fallback = importlib.import_module("pysqlite3.dbapi2")
    except ImportError:
        raise Fts5Unavailable(sqlite3.sqlite_version) from None
    if not _has_fts5(fallback):
        raise Fts5Unavailable(sqlite3.sqlite_version)
    return fallback


def match_words(query: str) -> str:
    """An FTS5 query matching any word of free text: ``'"refund" OR "card"'`` ("" if none)."""
    return " OR ".join(f'"{word}"' for word in _words(query))


def _words(query: str) -> list[str]:
    """The distinct words of ``query``, lower case, in order."""
    return list(dict.fromkeys(_WORD.findall(query.lower())))


def _metadata(text: str, document_id: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise RetrievalError(
            f"the index's metadata of {document_id!r} is not a JSON object: the index file "
            "is damaged or not SqliteFtsRetriever's; rebuild it",
            document_id=document_id,
        )
    return value


def _text_problem(value: str, what: str) -> str | None:
    """Why ``value`` cannot go to SQLite (a lone surrogate has no UTF-8), else None."""
    if value.isascii() or _SURROGATE.search(value) is None:
        return None
    return f"{what} holds a lone surrogate (half a UTF-16 pair), which has no UTF-8 form"


class SqliteFtsRetriever:
    """BM25 retrieval over an SQLite FTS5 index of :class:`Document` s (module docstring).

    A :class:`jdsl.flows.RagStrategy`: ``retrieve(query, k)``. Safe to share between threads
    (one connection behind a lock), so a tree's tools may use it under a ``timeout``.

    Args:
        path: an index file (created when missing, reopened when it exists) or ``":memory:"``.
        tokenizer: the FTS5 tokenizer of a new index (an existing one keeps its own); the
            default stems English words, so "refunds" finds "refund".
        query_syntax: ``"words"`` (default): any word of the query matches; ``"fts5"``: the
            query is FTS5 syntax (``refund NOT gift``, ``"exact phrase"``, ``pay*``).

    Raises:
        Fts5Unavailable: the SQLite at hand has no FTS5.
        RetrievalError: ``path`` is not an SQLite file or not an index this class made, or
            ``tokenizer`` is not an FTS5 tokenizer.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        tokenizer: str = "porter unicode61",
        query_syntax: QuerySyntax = "words",
    ) -> None:
        if query_syntax not in ("words", "fts5"):
            raise ValueError(f"query_syntax must be 'words' or 'fts5', not {query_syntax!r}")
        self.path = str(path)
        self.query_syntax: QuerySyntax = query_syntax
        self._db = fts5_module()
        self._lock = threading.Lock()
        self._connection = self._db.connect(self.path, check_same_thread=False)
        try:
            self.tokenizer = self._prepare(tokenizer)
        except BaseException:
            self._connection.close()
            raise

    def _prepare(self, tokenizer: str) -> str:
        name = Path(self.path).name
        try:
            with self._connection as db:
                db.executescript(_SCHEMA)
                meta = dict(db.execute("SELECT key, value FROM jdsl_meta").fetchall())
                if not meta:
                    found = db.execute("SELECT count(*) FROM documents").fetchone()[0]
                    if found:
                        raise RetrievalError(f"{name} is not an index made by SqliteFtsRetriever")
                    meta = {"format": FORMAT, "tokenizer": tokenizer}
                    db.executemany("INSERT INTO jdsl_meta VALUES (?, ?)", meta.items())
                    db.execute(
                        "CREATE VIRTUAL TABLE fts USING fts5(title, content, "
                        f"content='documents', content_rowid='rowid', tokenize={_quote(tokenizer)})"
                    )
        except self._db.DatabaseError as exc:
            raise RetrievalError(
                f"cannot open {name} as a retrieval index ({exc}); give a new file name, "
                "':memory:' or a file SqliteFtsRetriever wrote, and an FTS5 tokenizer such as "
                "'porter unicode61'"
            ) from None
        if meta.get("format") != FORMAT:
            raise RetrievalError(f"{name} is index format {meta.get('format')!r}, not {FORMAT!r}")
        if not isinstance(meta.get("tokenizer"), str):
            raise RetrievalError(
                f"{name} names no tokenizer: the index file is damaged or not "
                "SqliteFtsRetriever's; rebuild it"
            )
        return str(meta["tokenizer"])

    @classmethod
    def from_documents(
        cls, documents: Iterable[Any], *, path: str | os.PathLike[str] = ":memory:", **kw: Any
    ) -> SqliteFtsRetriever:
        """An index at ``path`` (new, or the file there) with ``documents`` added.

        ``documents`` are Documents, ContextItems or mappings; ``kw`` go to the constructor.

        Raises:
            RetrievalError: an invalid or repeated document (nothing is added then).
        """
        index = cls(path, **kw)
        try:
            index.add(documents)
        except BaseException:
            index.close()
            raise
        return index

    @classmethod
    def from_folder(
        cls,
        folder: str | os.PathLike[str],
        *,
        pattern: str = "**/*.md",
        sections: bool = True,
        path: str | os.PathLike[str] = ":memory:",
        **kw: Any,
    ) -> SqliteFtsRetriever:
        """An index of the text files under ``folder`` matching ``pattern``, in sorted order.

        Each file is one document whose id (and source) is its path relative to ``folder``
        (POSIX), or, with ``sections`` (default), one document per Markdown section
        (:func:`markdown_sections`, ids ``"guide.md#install"``).

        Raises:
            RetrievalError: ``folder`` is not a directory, a file is not UTF-8 text, or
                ``pattern`` is not a relative glob inside it (empty, absolute, or with ``..``).

        Only regular files inside ``folder`` are read: a symbolic link (to a file or a
        folder, inside or outside) is neither read nor followed, so a link to ``/etc/passwd``
        or to a folder elsewhere is not indexed.
        """
        return cls.from_documents(
            _folder_documents(Path(folder), pattern, sections), path=path, **kw
        )

    def add(self, documents: Iterable[Any], *, duplicates: DuplicatePolicy = "reject") -> int:
        """Index ``documents`` in one transaction (all or nothing); returns how many were added.

        Args:
            documents: Documents, ContextItems or ``{"id", "content", ...}`` mappings.
            duplicates: for an id already indexed (or repeated in ``documents``): ``reject``
                (raise), ``replace`` it, or ``keep_first`` (skip the new one).

        Raises:
            RetrievalError: an invalid document, or a repeated id under ``reject``.
        """
        docs = [as_document(d, where=f"document {i}") for i, d in enumerate(documents)]
        for doc in docs:
            fields = (doc.id, doc.title, doc.content, doc.source or "")
            problem = next(
                filter(None, (_text_problem(f, f"document {doc.id!r}") for f in fields)), None
            )
            if problem:
                raise RetrievalError(f"{problem}; fix the text", document_id=doc.id)
        added = 0
        with self._lock, self._database(), self._connection as db:
            for doc in docs:
                added += self._insert(db, doc, duplicates)
        return added

    @contextlib.contextmanager
    def _database(self) -> Iterator[None]:
        """SQLite failing under a call (a damaged or foreign index file, a full disk) as a
        RetrievalError naming the file."""
        try:
            yield
        except self._db.DatabaseError as exc:
            raise RetrievalError(
                f"the index {Path(self.path).name} cannot be used ({exc}); rebuild it, or give "
                "a file SqliteFtsRetriever wrote"
            ) from None

    def _insert(self, db: Any, doc: Document, duplicates: DuplicatePolicy) -> int:
        old = db.execute(
            "SELECT rowid, title, content FROM documents WHERE id = ?", (doc.id,)
        ).fetchone()
        if old is not None and duplicates == "keep_first":
            return 0
        if old is not None and duplicates == "reject":
            raise RetrievalError(
                f"document {doc.id!r} is already indexed; pass duplicates='replace' or "
                "'keep_first', or give it another id",
                document_id=doc.id,
            )
        if old is not None:
            db.execute(
                "INSERT INTO fts(fts, rowid, title, content) VALUES ('delete', ?, ?, ?)", old
            )
            db.execute("DELETE FROM documents WHERE rowid = ?", (old[0],))
        metadata = json.dumps(doc.metadata, sort_keys=True, ensure_ascii=False)
        cursor = db.execute(
            "INSERT INTO documents (id, title, content, source, metadata) VALUES (?, ?, ?, ?, ?)",
            (doc.id, doc.title, doc.content, doc.source, metadata),
        )
        db.execute(
            "INSERT INTO fts (rowid, title, content) VALUES (?, ?, ?)",
            (cursor.lastrowid, doc.title, doc.content),
        )
        return 1

    def retrieve(self, query: str, k: int = 5) -> list[Document]:
        """The ``k`` documents that best match ``query``, best first, with BM25 ``score`` s.

        Documents sharing no word with the query are never returned (``"words"`` syntax).

        Raises:
            RetrievalError: ``k`` below 1 or a non-string query (a ValueError), a query that is
                not valid FTS5 syntax (``"fts5"`` syntax only) or holds a lone surrogate, or an
                index file that is damaged.
        """
        if not isinstance(query, str) or not isinstance(k, int) or k < 1:
            raise RetrievalError("retrieve needs a string query and a positive integer k")
        k = min(k, _MAX_K)  # more than there can be documents
        if self.query_syntax == "words":
            words = _words(query)
            if len(words) > _CHUNK:
                return self._retrieve_chunked(words, k)
            expression = " OR ".join(f'"{word}"' for word in words)
        else:
            expression = query
            problem = _text_problem(query, "the query")
            if problem:
                raise RetrievalError(f"{problem}; drop it or write the whole character")
        if not expression.strip():
            return []
        sql = (
            "SELECT d.id, d.title, d.content, d.source, d.metadata, bm25(fts, 2.0, 1.0) AS rank "
            "FROM fts JOIN documents d ON d.rowid = fts.rowid WHERE fts MATCH ? "
            "ORDER BY rank, d.rowid LIMIT ?"
        )
        try:
            with self._lock:
                rows = self._connection.execute(sql, (expression, k)).fetchall()
        except self._db.OperationalError as exc:
            raise RetrievalError(
                f"the query {query[:80]!r} is not valid FTS5 syntax ({exc}); quote phrases, or "
                "use query_syntax='words' for free text"
            ) from None
        except self._db.DatabaseError as exc:
            raise RetrievalError(
                f"the index {Path(self.path).name} cannot be used ({exc})"
            ) from None
        return [
            Document(id=i, title=t, content=c, source=s, metadata=_metadata(m, i), score=-r)
            for i, t, c, s, m, r in rows
        ]

    def _retrieve_chunked(self, words: list[str], k: int) -> list[Document]:
        """A words query of many words: each chunk's matches with their BM25 score, summed
        per document (see :data:`_CHUNK`), the best ``k`` then read."""
        scores: dict[int, float] = {}
        sql = "SELECT rowid, bm25(fts, 2.0, 1.0) FROM fts WHERE fts MATCH ?"
        with self._lock, self._database():
            for start in range(0, len(words), _CHUNK):
                expression = " OR ".join(f'"{w}"' for w in words[start : start + _CHUNK])
                for rowid, rank in self._connection.execute(sql, (expression,)):
                    scores[rowid] = scores.get(rowid, 0.0) + rank
            best = heapq.nsmallest(k, scores.items(), key=lambda item: (item[1], item[0]))
            found = []
            for rowid, rank in best:
                i, t, c, s, m = self._connection.execute(
                    "SELECT id, title, content, source, metadata FROM documents WHERE rowid = ?",
                    (rowid,),
                ).fetchone()
                found.append(
                    Document(
                        id=i, title=t, content=c, source=s, metadata=_metadata(m, i), score=-rank
                    )
                )
        return found

    def get(self, document_id: str) -> Document | None:
        """The indexed document with ``document_id``, or None."""
        if not isinstance(document_id, str) or _text_problem(document_id, "the id"):
            return None
        with self._lock, self._database():
            row = self._connection.execute(
                "SELECT id, title, content, source, metadata FROM documents WHERE id = ?",
                (document_id,),
            ).fetchone()
        if row is None:
            return None
        i, t, c, s, m = row
        return Document(id=i, title=t, content=c, source=s, metadata=_metadata(m, i))

    def ids(self) -> list[str]:
        """Every indexed id, in insertion order."""
        with self._lock:
            rows = self._connection.execute("SELECT id FROM documents ORDER BY rowid").fetchall()
        return [row[0] for row in rows]

    def __len__(self) -> int:
        with self._lock:
            return int(self._connection.execute("SELECT count(*) FROM documents").fetchone()[0])

    def __repr__(self) -> str:
        return f"SqliteFtsRetriever({Path(self.path).name!r}, {len(self)} documents)"

    def close(self) -> None:
        """Close the connection (an index file keeps everything added)."""
        with self._lock:
            self._connection.close()

    def __enter__(self) -> SqliteFtsRetriever:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _folder_documents(folder: Path, pattern: str, sections: bool) -> Iterator[Document]:
    if not folder.is_dir():
        raise RetrievalError(f"{folder.name or folder} is not a folder; give the folder to index")
    for name in _folder_files(folder, _pattern_parts(pattern)):
        file = folder / name
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise RetrievalError(
                f"{name} is not UTF-8 text; narrow pattern= to text files", document_id=name
            ) from None
        if sections:
            yield from markdown_sections(text, source=name)
        elif text.strip():
            yield Document(id=name, content=text, source=name)


def _pattern_parts(pattern: object) -> tuple[str, ...]:
    """``"**/*.md"`` -> ``("**", "*.md")``; a pattern that could leave the folder is refused."""
    text = pattern if isinstance(pattern, str) else ""
    parts = tuple(p for p in text.split("/") if p not in ("", "."))
    if (
        not parts
        or text.startswith(("/", "\\"))
        or any(p == ".." or "\\" in p or "\x00" in p for p in parts)
    ):
        raise RetrievalError(
            f"pattern {pattern!r} must be a relative glob inside the folder, such as '**/*.md' "
            "(no leading '/', no '..')"
        )
    return parts


def _folder_files(folder: Path, parts: tuple[str, ...]) -> list[str]:
    """The relative POSIX paths of the regular files under ``folder`` that ``parts`` match,
    sorted; links are neither listed nor followed (``os.walk`` with ``followlinks=False``)."""
    found = []
    for top, dirs, files in os.walk(folder, followlinks=False):
        base = Path(top).relative_to(folder).parts
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
        for file in files:
            full = os.path.join(top, file)
            if not os.path.islink(full) and os.path.isfile(full):
                path = (*base, file)
                if _glob_match(parts, path):
                    found.append("/".join(path))
    return sorted(found)


def _glob_match(pattern: tuple[str, ...], path: tuple[str, ...]) -> bool:
    """Whether ``path`` matches glob ``pattern`` part by part, ``**`` standing for any number of
    parts (a table of pattern x path prefixes: linear in each, whatever the ``**`` count)."""
    ok = [True] + [False] * len(path)  # pattern[:0] matches path[:j] only for j == 0
    for part in pattern:
        if part == "**":
            for j in range(1, len(path) + 1):
                ok[j] = ok[j] or ok[j - 1]
        else:
            ok = [False] + [ok[j] and fnmatch.fnmatchcase(path[j], part) for j in range(len(path))]
    return ok[-1]
