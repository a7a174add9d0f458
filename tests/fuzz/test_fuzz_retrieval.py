"""Fuzz targets: FTS retrieval (issue #26). Any query text and k in both query syntaxes, and
folders of odd files indexed with odd patterns: only ``RetrievalError`` escapes."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from budget import FUZZ
from hypothesis import given
from hypothesis import strategies as st
from jdsl.errors import JdslError
from jdsl.flows.documents import RetrievalError
from jdsl.flows.fts import SqliteFtsRetriever

INDEX = SqliteFtsRetriever.from_documents(
    [
        {"id": f"d{i}", "content": f"refund card {i} gift exchange", "title": "T" * i}
        for i in range(20)
    ]
)
FTS5 = SqliteFtsRetriever.from_documents(
    [{"id": "a", "content": "refund card"}, {"id": "b", "content": "gift exchange"}],
    query_syntax="fts5",
)
queries = st.one_of(
    st.text(max_size=40),
    st.text(alphabet='ab "*()^:-+{}NOTANDOR\ud800é', max_size=30),
    st.integers(200, 2_000).map(lambda n: " ".join(f"w{i}" for i in range(n)) + " refund"),
)
ks = st.one_of(st.integers(-3, 50), st.sampled_from([2**31, 2**63, 2**64, 10**400]), st.booleans())


def _only_retrieval_errors(index: SqliteFtsRetriever, query: str, k: int) -> None:
    try:
        found = index.retrieve(query, k)
    except JdslError as exc:
        assert isinstance(exc, RetrievalError), repr(exc)
        return
    assert len(found) <= max(int(k), 0)
    assert [d.score for d in found] == sorted((d.score for d in found), reverse=True)


@FUZZ
@given(queries, ks)
def test_words_queries_give_only_retrieval_errors(query: str, k: int) -> None:
    _only_retrieval_errors(INDEX, query, k)


@FUZZ
@given(queries, ks)
def test_fts5_queries_give_only_retrieval_errors(query: str, k: int) -> None:
    _only_retrieval_errors(FTS5, query, k)


names = st.sampled_from(
    ["a.md", "b.txt", "sub/c.md", "sub/deep/d.md", ".hidden.md", "x y.md", "é.md"]
)
contents = st.one_of(
    st.text(max_size=60),
    st.binary(max_size=20),
    st.sampled_from(["# " + "a #" * 300, "```\n# x\n", "#" * 7 + " x"]),
)
patterns = st.one_of(
    st.sampled_from(
        [
            "**/*.md",
            "*.md",
            "**",
            "**/**",
            "",
            "/",
            "/etc/*",
            "../*",
            "sub/../*",
            "[",
            "**x",
            "a/**b",
            "\\",
            "\x00",
        ]
    ),
    st.text(alphabet="*?[]/.a\\", max_size=8),
)


@FUZZ
@given(st.dictionaries(names, contents, max_size=5), patterns, st.booleans(), st.booleans())
def test_folders_give_only_retrieval_errors(
    files: dict, pattern: str, sections: bool, link: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        outside = Path(tmp) / "secret.md"
        outside.write_text("# secret\nhunter2\n")
        for name, data in files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(
                data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
            )
        if link:
            os.symlink(outside, folder / "link.md")
        try:
            index = SqliteFtsRetriever.from_folder(folder, pattern=pattern, sections=sections)
        except JdslError as exc:
            assert isinstance(exc, RetrievalError), repr(exc)
            return
        with index:
            assert all("hunter2" not in d.content for d in index.retrieve("secret hunter2", 5))
