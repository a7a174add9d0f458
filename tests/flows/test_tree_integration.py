"""Flows inside trees: MCP tools from a real stdio server in a React leaf; rag_flow feeding a predict."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from flows_helpers import Scripted, ask
from jdsl.flows import ContextItem, Provenance, WorkingContext, rag_flow
from jdsl.interaction import McpRegistry, Sandbox

tree = pytest.importorskip("jdsl.tree")
from jdsl.trace import ListTraceSink  # noqa: E402

SERVER = str(Path(__file__).parents[1] / "interaction" / "mcp_server.py")


def react_root(tools: list[str], max_steps: int = 4) -> tree.Root:
    leaf = tree.React(signature="question -> answer", tools=tools, max_steps=max_steps)
    return tree.Root(name="support", child=leaf)


def finished(sink: ListTraceSink) -> dict:
    return next(e.payload for e in sink.events if e.kind == "react.finished")


def test_mcp_tools_from_a_stdio_server_run_in_a_react_leaf() -> None:
    pytest.importorskip("mcp")
    from jdsl.interaction.mcp_sdk import connect_stdio

    with connect_stdio(sys.executable, [SERVER], timeout_s=30) as conn:
        mcp = McpRegistry({"shop": conn.client}, sandbox=Sandbox(grants={"mcp": ["shop"]}))
        root = react_root(["order_status"]).bind(tools=mcp.as_tools("shop"))
        model = Scripted(ask(("a1", "order_status", {"order_id": "W1"})), "The order is pending.")
        sink = ListTraceSink()
        ctx = root.run(model=model, trace_sink=sink, question="Where is order W1?")
    assert ctx.status == tree.Status.SUCCESS
    assert ctx.blackboard["answer"] == "The order is pending."
    assert model.calls[1]["messages"][-1].content == "pending"
    assert [t.name for t in model.calls[0]["tools"]] == ["order_status"]
    done = finished(sink)
    assert (done["status"], done["stop_reason"], done["pending_actions"]) == (
        "completed",
        "completed",
        [],
    )
    kinds = [e.kind for e in sink.events]
    assert "toolset.exposed" in kinds and "tool.call.completed" in kinds


def test_react_leaf_fails_and_reports_pending_on_a_budget_stop() -> None:
    def lookup(order_id: str) -> str:
        """Look up an order."""
        return "pending"

    root = react_root(["lookup"], max_steps=1).bind(tools=[lookup])
    sink = ListTraceSink()
    ctx = root.run(
        model=Scripted(ask(("a1", "lookup", {"order_id": "W1"}))), trace_sink=sink, question="q"
    )
    assert ctx.status == tree.Status.FAILURE
    done = finished(sink)
    # react_flow's status is "partial"; the leaf currently reports "failed" for any non-completed run
    assert done["stop_reason"] == "max_steps" and done["status"] in ("partial", "failed")
    assert [p["id"] for p in done["pending_actions"]] == ["a1"]


def test_rag_flow_selects_context_for_a_predict() -> None:
    corpus = WorkingContext([
        ContextItem(id=i, content=c, provenance=Provenance(kind="document", source=i))
        for i, c in [("refund", "Refunds return to the original payment method."),
                     ("exchange", "Exchanges need the order id and the new item id."),
                     ("hours", "Support is open every day.")]
    ])  # fmt: skip

    def select_context(question: str) -> str:
        """Pick the policy text relevant to the question."""
        return rag_flow(corpus, question, limit=1).text()

    root = tree.Root(name="answer_with_policy", child=tree.Sequence(children=[
        tree.Action(tool="select_context", args={"question": {"ref": "question"}}, store="policy"),
        tree.Predict(signature="question, policy -> answer"),
    ])).bind(tools=[select_context])  # fmt: skip
    model = Scripted("Give the order id and the new item id.")
    ctx = root.run(model=model, question="How do I exchange an item?")
    assert ctx.status == tree.Status.SUCCESS
    assert ctx.blackboard["policy"] == "Exchanges need the order id and the new item id."
    prompt = model.calls[0]["messages"][0].content
    assert "Exchanges need the order id" in prompt and "Refunds" not in prompt
    assert ctx.blackboard["answer"] == "Give the order id and the new item id."
