"""Hostile retrieval input (issue #26): FTS gives only RetrievalError, and the word query and
Markdown heading paths stay linear."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jdsl.flows import fts
from jdsl.flows.documents import RetrievalError, markdown_sections
from jdsl.flows.fts import SqliteFtsRetriever

DOCS = [{"id": f"d{i}", "content": f"word{i} common text {'refund ' * (i % 3)}"} for i in range(60)]


def _index(**kw: Any) -> SqliteFtsRetriever:
    return SqliteFtsRetriever.from_documents(DOCS, **kw)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(
            lambda: _index(query_syntax="fts5").retrieve("a\ud800b", 3),
            id="a lone surrogate, fts5 syntax",
        ),
        pytest.param(lambda: _index().retrieve("refund", 2**64), id="k = 2**64"),
        pytest.param(lambda: _index().retrieve("refund", -(2**64)), id="k = -2**64"),
        pytest.param(lambda: _index().retrieve(b"refund", 3), id="a bytes query"),
        pytest.param(
            lambda: _index().add([{"id": "s", "content": "x\udc80"}]),
            id="a lone surrogate in a document",
        ),
        pytest.param(
            lambda: markdown_sections("# x", source="s.md", max_level="3"), id="max_level text"
        ),  # type: ignore[arg-type]
    ],
)
def test_hostile_calls_are_retrieval_errors(call: Callable[[], Any]) -> None:
    try:
        result = call()
    except RetrievalError:
        return
    assert result is not None  # k = 2**64: every match, no OverflowError


def test_surrogates_in_a_words_query_are_not_words() -> None:
    assert [d.id for d in _index().retrieve("word3\ud800", 1)] == ["d3"]
    assert _index().get("d3\ud800") is None


def _foreign(path: Path) -> None:
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE jdsl_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    connection.execute("INSERT INTO jdsl_meta VALUES ('format', 'jdsl.fts.v1')")
    connection.commit()
    connection.close()


def _damaged_metadata(path: Path) -> None:
    SqliteFtsRetriever.from_documents(DOCS[:2], path=path).close()
    connection = sqlite3.connect(path)
    connection.execute("UPDATE documents SET metadata = 'not json'")
    connection.commit()
    connection.close()


def _garbage(path: Path) -> None:
    path.write_bytes(b"SQLite format 3\x00" + os.urandom(3000))


@pytest.mark.parametrize("make", [_foreign, _damaged_metadata, _garbage], ids=lambda f: f.__name__)
def test_a_foreign_or_damaged_index_file_is_a_retrieval_error(
    make: Callable[[Path], None], tmp_path: Path
) -> None:
    path = tmp_path / "index.db"
    make(path)
    with pytest.raises(RetrievalError):
        index = SqliteFtsRetriever(path)
        index.retrieve("word0 word1", 2)
        index.get("d0")


@pytest.mark.parametrize("pattern", ["", "/etc/*", "../*", 5])
def test_a_bad_folder_pattern_is_a_retrieval_error(pattern: Any, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\ntext\n")
    with pytest.raises(RetrievalError, match="pattern"):
        SqliteFtsRetriever.from_folder(tmp_path, pattern=pattern)


@pytest.mark.parametrize("pattern", ["**x", "a/**b", "[", "**/**/**/*.md"])
def test_an_odd_folder_pattern_matches_or_is_a_retrieval_error(
    pattern: str, tmp_path: Path
) -> None:
    (tmp_path / "a.md").write_text("# A\ntext\n")
    try:
        SqliteFtsRetriever.from_folder(tmp_path, pattern=pattern).close()
    except RetrievalError:
        pass


def test_a_long_words_query_ranks_as_one_query(monkeypatch: pytest.MonkeyPatch) -> None:
    index = _index()
    query = " ".join(f"w{i}" for i in range(500)) + " refund word7 common"
    chunked = [(d.id, round(d.score or 0, 9)) for d in index.retrieve(query, 10)]
    monkeypatch.setattr(fts, "_CHUNK", 10_000)
    whole = [(d.id, round(d.score or 0, 9)) for d in index.retrieve(query, 10)]
    assert chunked == whole and chunked[0][0] == "d7"


@pytest.mark.slow
def test_a_words_query_grows_linearly(growth: Callable[..., float]) -> None:
    index = _index()
    texts: dict[int, str] = {}

    def query(n: int) -> None:
        index.retrieve(texts.setdefault(n, " ".join(f"w{i}" for i in range(n)) + " refund"), 5)

    assert (
        growth(query, 8_000) < 10
    )  # 16 when quadratic: 4,000 words 85 ms, 16,000 560 ms, 64,000 4 s


def test_a_long_heading_is_split_in_linear_time(growth: Callable[..., float]) -> None:
    def split(n: int) -> None:
        markdown_sections("# " + "a #" * (n // 3) + "\nbody\n", source="x.md")

    assert growth(split, 40_000) < 10  # quadratic: 16; the lazy heading regex: 40 KB took 12.6 s


def test_closing_hashes_leave_a_heading_as_before() -> None:
    docs = markdown_sections("# Cancel ##\nx\n## ###\ny\n", source="s.md")
    assert [d.title for d in docs] == ["Cancel", "Cancel > #"]
