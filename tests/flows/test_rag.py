"""rag_flow with the seed's strategy (embed? -> retrieve -> rank?) and the SQLite FTS5 retriever
over the shipped tau-bench retail policy (jdsl.data, MIT, Copyright (c) 2024 Sierra)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from jdsl.envs import read_text
from jdsl.flows import (
    ContextItem,
    Document,
    Fts5Unavailable,
    Provenance,
    RetrievalError,
    SqliteFtsRetriever,
    WorkingContext,
    markdown_sections,
    rag_flow,
    rag_strategy,
)
from jdsl.flows import fts as fts_module

WIKI = "tau_retail/wiki.md"


@pytest.fixture(scope="module")
def policy() -> list[Document]:
    return markdown_sections(read_text("tau_retail", "wiki.md"), source=WIKI)


def test_the_policy_splits_into_cited_sections(policy) -> None:
    ids = [d.id for d in policy]
    assert ids[:3] == [f"{WIKI}#retail-agent-policy", f"{WIKI}#domain-basic",
                       f"{WIKI}#cancel-pending-order"]  # fmt: skip
    payment = next(d for d in policy if d.id.endswith("#modify-payment"))
    assert payment.title == "Retail agent policy > Modify pending order > Modify payment"
    assert payment.content.startswith("### Modify payment") and payment.source == WIKI
    assert len(set(ids)) == len(ids) == 8


def test_markdown_edge_cases() -> None:
    text = "intro\n# A\nx\n```\n# not a heading\n```\n## A\ny\n## Empty\n### Deep\nz"
    docs = markdown_sections(text, source="s.md")
    assert [d.id for d in docs] == ["s.md#preamble", "s.md#a", "s.md#a-1", "s.md#deep"]
    assert "# not a heading" in docs[1].content and docs[3].title == "A > Empty > Deep"
    assert [d.id for d in markdown_sections("no headings", source="n.md")] == ["n.md"]
    assert markdown_sections("  ", source="n.md") == []
    with pytest.raises(ValueError):
        markdown_sections("x", source="")


def test_fts_retrieves_policy_sections_by_bm25(policy) -> None:
    index = SqliteFtsRetriever.from_documents(policy)
    found = index.retrieve("How do I exchange a delivered item?", 3)
    assert found[0].id == f"{WIKI}#exchange-delivered-order"
    assert [d.score for d in found] == sorted((d.score for d in found), reverse=True)
    assert index.retrieve("zebra quantum", 3) == [] and index.retrieve("?!", 3) == []
    assert index.retrieve("refunds", 8) == index.retrieve("refund", 8)  # porter stemming
    assert index.retrieve("How do I exchange a delivered item?", 3) == found  # deterministic


def test_rag_flow_feeds_retrieved_documents_into_the_context_with_their_ids(policy) -> None:
    index = SqliteFtsRetriever.from_documents(policy)
    start = WorkingContext([ContextItem(id="note", content="VIP customer",
                                        provenance=Provenance(kind="user", source="agent"))])  # fmt: skip
    selection = rag_flow(start, "Which orders can be cancelled?", strategy=index, limit=2)
    assert selection.selected_item_ids[0] == f"{WIKI}#cancel-pending-order"
    item = selection.context.items[0]
    assert (item.provenance.kind, item.provenance.source, item.provenance.flow) == (
        "document", WIKI, "rag_flow")  # fmt: skip
    assert item.metadata["title"].endswith("Cancel pending order") and "score" in item.metadata
    assert selection.working_context.ids == ("note", *selection.selected_item_ids)
    assert selection.text(cite=True).startswith(f"[{WIKI}#cancel-pending-order] ## Cancel")
    assert start.ids == ("note",)  # contexts are immutable


def test_embed_retrieve_rank_run_in_order_and_ids_are_deduplicated() -> None:
    calls: list = []
    store = {"a": "apples are red", "b": "bananas are yellow", "c": "cherries are red"}

    def embed(query: str) -> list[int]:
        calls.append(("embed", query))
        return [len(query)]

    def retrieve(query: str, k: int, embedding: list[int]) -> list[dict]:
        calls.append(("retrieve", k, embedding))
        return [
            {"id": i, "content": t, "score": float(n)} for n, (i, t) in enumerate(store.items())
        ]

    def rank(query: str, docs: list[Document]) -> list[Document]:
        calls.append(("rank", [d.id for d in docs]))
        return [docs[2], docs[0], docs[2]]

    strategy = rag_strategy(retrieve, embed=embed, rank=rank)
    selection = rag_flow(None, "red fruit", strategy=strategy, limit=2, candidates=3)
    assert calls == [("embed", "red fruit"), ("retrieve", 3, [9]), ("rank", ["a", "b", "c"])]
    assert selection.selected_item_ids == ("c", "a") and selection.scores == {"c": 2.0, "a": 0.0}


def test_an_existing_item_keeps_its_provenance() -> None:
    mine = ContextItem(id="a", content="apples", provenance=Provenance(kind="user", source="me"))
    selection = rag_flow(WorkingContext([mine]), "apples",
                         strategy=rag_strategy(lambda q, k: [{"id": "a", "content": "other"}]))  # fmt: skip
    assert selection.context.items == (mine,) and selection.working_context.items == (mine,)


@pytest.mark.parametrize(
    ("returned", "match"),
    [
        ("not a list", "returned a str"),
        ([42], "item 0 is a int"),
        ([{"id": "", "content": "x"}], "item 0 is not a valid document: id"),
        ([{"content": "no id"}], "id: Field required"),
    ],
)
def test_a_strategy_returning_non_documents_is_a_typed_error(returned, match: str) -> None:
    with pytest.raises(RetrievalError, match=match):
        rag_flow(None, "q", strategy=rag_strategy(lambda q, k: returned))


@pytest.mark.parametrize("kw", [{"limit": 0}, {"candidates": 0}, {"max_chars": 0}])
def test_invalid_input_raises(kw) -> None:
    with pytest.raises(ValueError):
        rag_flow(None, "q", strategy=rag_strategy(lambda q, k: []), **kw)


def test_duplicates_are_rejected_atomically_or_replaced(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    index = SqliteFtsRetriever.from_documents([{"id": "a", "content": "alpha"}], path=path)
    with pytest.raises(RetrievalError, match="'a' is already indexed") as info:
        index.add([{"id": "b", "content": "beta"}, {"id": "a", "content": "again"}])
    assert info.value.document_id == "a" and index.ids() == ["a"]  # nothing half-added
    assert index.add([{"id": "a", "content": "gamma"}], duplicates="replace") == 1
    assert index.add([{"id": "a", "content": "delta"}], duplicates="keep_first") == 0
    assert index.retrieve("alpha", 5) == [] and index.retrieve("gamma", 5)[0].id == "a"
    index.close()
    with SqliteFtsRetriever(path) as reopened:  # a file index keeps what was added
        assert len(reopened) == 1 and reopened.get("a").content == "gamma"


def test_from_folder_indexes_text_files_by_relative_path(tmp_path: Path) -> None:
    (tmp_path / "guides").mkdir()
    (tmp_path / "guides" / "returns.md").write_text("# Returns\nReturn within 30 days.\n")
    (tmp_path / "faq.md").write_text("Shipping is free over 50 dollars.\n")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    index = SqliteFtsRetriever.from_folder(tmp_path)
    assert index.ids() == ["faq.md", "guides/returns.md#returns"]
    whole = SqliteFtsRetriever.from_folder(tmp_path, sections=False)
    assert whole.retrieve("return days", 1)[0].id == "guides/returns.md"
    (tmp_path / "bad.md").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(RetrievalError, match="bad.md is not UTF-8"):
        SqliteFtsRetriever.from_folder(tmp_path)
    with pytest.raises(RetrievalError, match="is not a folder"):
        SqliteFtsRetriever.from_folder(tmp_path / "missing")


def test_fts5_query_syntax_and_its_errors(policy) -> None:
    index = SqliteFtsRetriever.from_documents(policy, query_syntax="fts5")
    assert [d.id for d in index.retrieve("gift AND card NOT exchange", 2)][0].endswith(
        "#modify-payment")  # fmt: skip
    with pytest.raises(RetrievalError, match="not valid FTS5 syntax"):
        index.retrieve('"unbalanced', 2)
    with pytest.raises(ValueError):
        index.retrieve("x", 0)


def test_a_file_that_is_not_an_index_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("just text, not SQLite " * 100)
    with pytest.raises(RetrievalError, match="cannot open notes.txt as a retrieval index"):
        SqliteFtsRetriever(junk)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE documents (rowid INTEGER PRIMARY KEY, id TEXT, title TEXT, "
                   "content TEXT, source TEXT, metadata TEXT)")  # fmt: skip
        db.execute("INSERT INTO documents VALUES (1, 'x', '', 'y', NULL, '{}')")
    with pytest.raises(RetrievalError, match="not an index made by SqliteFtsRetriever"):
        SqliteFtsRetriever(other)
    with pytest.raises(RetrievalError, match="no such tokenizer: nonsense"):
        SqliteFtsRetriever(tokenizer="nonsense")
    with SqliteFtsRetriever(tmp_path / "plain.sqlite", tokenizer="unicode61"):
        pass
    with SqliteFtsRetriever(tmp_path / "plain.sqlite") as reopened:  # keeps its own tokenizer
        assert reopened.tokenizer == "unicode61"


class _NoFts5:
    """A DB-API module whose SQLite lacks FTS5 (what a minimal build reports)."""

    OperationalError = sqlite3.OperationalError
    sqlite_version = "3.7.17"

    @staticmethod
    def connect(*args, **kwargs):
        connection = sqlite3.connect(":memory:")

        class Connection:
            def execute(self, sql: str, *a):
                if "fts5" in sql:
                    raise sqlite3.OperationalError("no such module: fts5")
                return connection.execute(sql, *a)

            def close(self) -> None:
                connection.close()

        return Connection()


@pytest.fixture
def fresh_probe():
    fts_module.fts5_module.cache_clear()
    yield
    fts_module.fts5_module.cache_clear()


def test_a_build_without_fts5_names_the_fix(monkeypatch, fresh_probe) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "sqlite3", _NoFts5)
    monkeypatch.setitem(sys.modules, "pysqlite3", None)  # not installed
    monkeypatch.setitem(sys.modules, "pysqlite3.dbapi2", None)
    with pytest.raises(Fts5Unavailable, match="pip install pysqlite3-binary") as info:
        fts_module.fts5_module()
    assert info.value.sqlite_version == "3.7.17" and isinstance(info.value, ImportError)
    with pytest.raises(Fts5Unavailable):
        SqliteFtsRetriever.from_documents([{"id": "a", "content": "x"}])
    monkeypatch.setitem(sys.modules, "pysqlite3.dbapi2", sqlite3)  # pysqlite3 installed: used
    fts_module.fts5_module.cache_clear()
    assert fts_module.fts5_module() is sqlite3


def test_one_index_serves_several_threads(policy) -> None:
    index = SqliteFtsRetriever.from_documents(policy)
    found: list = []
    threads = [threading.Thread(target=lambda: found.append(index.retrieve("refund", 2)[0].id))
               for _ in range(4)]  # fmt: skip
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(found)) == 1 and len(found) == 4


def test_a_tree_retrieves_from_the_policy_index_and_a_predict_cites_it(policy) -> None:
    from jdsl import act, guard_call, predict, ref, root, seq
    from jdsl.testing import ScriptedModel

    index = SqliteFtsRetriever.from_documents(policy)

    def policy_sections(question: str) -> str:
        """The two most relevant policy sections, each headed by its [id]."""
        return rag_flow(None, question, strategy=index, limit=2).text(cite=True)

    def cites_retrieved(citations: list, policy: str) -> bool:
        """Every citation is the id of a retrieved section."""
        return bool(citations) and all(f"[{c}]" in policy for c in citations)

    tree = root("policy_answer").do(seq(
        act(policy_sections, question=ref("question")) >> "policy",
        predict("question, policy -> answer, citations: list[str]", id="answer"),
        guard_call(cites_retrieved, citations=ref("citations"), policy=ref("policy")),
    ))  # fmt: skip
    cited = f"{WIKI}#cancel-pending-order"
    good = ScriptedModel(f'{{"answer": "Only pending orders.", "citations": ["{cited}"]}}')
    ctx = tree.run(model=good, question="Can I cancel an order and get my money back?")
    prompt = good.calls[0]["messages"][0].content
    assert f"[{cited}] ## Cancel pending order" in prompt and ctx.status.name == "SUCCESS"
    assert ctx.blackboard["citations"] == [cited]
    invented = ScriptedModel('{"answer": "Yes.", "citations": ["tau_retail/wiki.md#refunds"]}')
    ctx = tree.run(model=invented, question="Can I cancel an order and get my money back?")
    assert ctx.status.name == "FAILURE" and "cites_retrieved" in ctx.failure.reason


def test_from_folder_stays_inside_the_folder(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\nthe launch code is 0000\n")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "faq.md").write_text("# FAQ\nShipping is free.\n")
    (folder / "passwd.md").symlink_to(outside / "secret.md")
    (folder / "linked").symlink_to(outside, target_is_directory=True)
    (folder / "loop").symlink_to(folder, target_is_directory=True)
    index = SqliteFtsRetriever.from_folder(folder)
    assert index.ids() == ["faq.md#faq"]
    assert index.retrieve("launch code", 5) == []
    for pattern in ("../outside/*.md", "../*/*.md", "/etc/*", "**/../../outside/*.md", ""):
        with pytest.raises(RetrievalError, match="pattern"):
            SqliteFtsRetriever.from_folder(folder, pattern=pattern)


def test_from_folder_patterns_match_like_glob(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("top.md", "a/one.md", "a/b/two.md", "a/b/two.txt"):
        (tmp_path / name).write_text(f"# {name}\ntext\n")

    def ids(pattern: str) -> list[str]:
        return SqliteFtsRetriever.from_folder(tmp_path, pattern=pattern, sections=False).ids()

    assert ids("**/*.md") == ["a/b/two.md", "a/one.md", "top.md"]
    assert ids("*.md") == ["top.md"]
    assert ids("a/**/*.txt") == ["a/b/two.txt"]
    assert ids("a/*/two.*") == ["a/b/two.md", "a/b/two.txt"]
