"""Retrieval: the SQLite FTS5 index (``SqliteFtsRetriever``) over real tau-bench text.

Corpus: the retail and airline agent policies split into Markdown sections, plus the 635 retail
task instructions (what simulated users ask), one document each; queries are task instructions,
so each one is a long, free-text user request (the ``"words"`` syntax ORs every word). Targets:
a retrieval step should cost well under a model call (~1 s) and stay interactive in a notebook.
"""

from __future__ import annotations

from jdsl.envs import load_json, read_text
from jdsl.flows import Document, SqliteFtsRetriever, WorkingContext, markdown_sections, rag_flow

from bench.table import Row
from bench.timing import median_seconds, timed_once

__all__ = ["corpus", "measure"]

SECTION = "retrieval"


def corpus() -> list[Document]:
    """The policy sections of both domains and every retail task instruction."""
    docs: list[Document] = []
    for domain in ("tau_retail", "tau_airline"):
        docs += markdown_sections(read_text(domain, "wiki.md"), source=f"{domain}/wiki.md")
    for task in load_json("tau_retail", "tasks.json"):
        task_id = f"tau_retail/tasks.json#{task['split']}-{task['task_id']}"
        docs.append(
            Document(id=task_id, content=task["instruction"], source="tau_retail/tasks.json")
        )
    return docs


def measure(*, quick: bool) -> list[Row]:
    """Index build, one query, and a rag_flow over the policy's own context items."""
    docs = corpus()
    repeats = 3 if quick else 7
    build = median_seconds(lambda: SqliteFtsRetriever.from_documents(docs).close(), repeats=repeats)
    index = SqliteFtsRetriever.from_documents(docs)
    queries = [d.content for d in docs if d.source == "tau_retail/tasks.json"][:50]
    _, found = timed_once(lambda: [index.retrieve(q, 5) for q in queries])
    query = median_seconds(lambda: [index.retrieve(q, 5) for q in queries], repeats=repeats)
    policy = WorkingContext([d.to_item() for d in docs if d.source == "tau_retail/wiki.md"])
    ask = "Can I cancel an order and get my money back?"
    flow = median_seconds(lambda: rag_flow(policy, ask, limit=2), repeats=repeats, number=20)
    self_hits = sum(hits[0].content == q for hits, q in zip(found, queries, strict=True))
    return [
        Row(SECTION, f"index {len(docs)} documents in memory", build, target="<= 0.5 s",
            met=build <= 0.5),
        Row(SECTION, "retrieve k=5, a whole task instruction as the query", query / len(queries),
            target="<= 10 ms", met=query / len(queries) <= 0.01,
            note=f"{self_hits}/{len(queries)} queries find their own instruction first"),
        Row(SECTION, "rag_flow over 8 policy sections (context indexed per call)", flow,
            target="<= 5 ms", met=flow <= 0.005),
    ]  # fmt: skip
