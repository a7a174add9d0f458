from __future__ import annotations

from pathlib import Path

import pytest
from jdsl.errors import BindingError, JdslError, PermissionDenied, ToolError
from jdsl.flows import (
    ContextItem,
    McpRequest,
    Provenance,
    RetrievalError,
    Services,
    WorkingContext,
    load_skill,
    mcp_flow,
    rag_flow,
    skill_flow,
    tool_call_flow,
)
from jdsl.interaction import McpCallResult, McpRegistry, McpToolInfo, McpToolPage, Sandbox
from jdsl.providers.messages import ToolCall


def doc(item_id: str, content: str) -> ContextItem:
    return ContextItem(
        id=item_id, content=content, provenance=Provenance(kind="document", source=item_id)
    )


def test_update_order_and_duplicate_policies() -> None:
    ctx = WorkingContext([doc("a", "1"), doc("b", "2")])
    assert ctx.update(add=[doc("a", "new")]).get("a").content == "new"
    assert ctx.update(add=[doc("a", "new")], duplicates="keep_first").get("a").content == "1"
    with pytest.raises(JdslError, match="already exists"):
        ctx.update(add=[doc("a", "x")], duplicates="reject")
    assert ctx.update(remove=["a"], add=[doc("a", "back")]).ids == ("b", "a")
    assert ctx.ids == ("a", "b")  # unchanged: contexts are immutable
    with pytest.raises(JdslError):
        WorkingContext([doc("a", "1"), doc("a", "2")])


def test_tool_call_flow_adds_hashed_ingress_with_provenance(tools) -> None:
    services = Services(tools=tools, sandbox=tools.sandbox)
    call = ToolCall(id="c1", name="echo", arguments={"x": 7})
    first = tool_call_flow(services, call)
    item = first.context.items[0]
    assert item.id.startswith("observation:") and len(item.id) == len("observation:") + 64
    assert item.content == "echo 7"
    assert item.provenance == Provenance(
        kind="observation", source="echo", call_id="c1", flow="tool_call_flow"
    )
    assert item.metadata["status"] == "success" and item.metadata["message_role"] == "tool"
    again = tool_call_flow(services, call, context=first.context)
    assert again.context.ids == first.context.ids  # same observation, same id


def test_tool_call_flow_business_failure_enters_infrastructure_raises(tools) -> None:
    services = Services(tools=tools, sandbox=tools.sandbox)
    failed = tool_call_flow(services, ToolCall(id="c1", name="fail", arguments={}))
    assert failed.context.items[0].metadata["error_code"] == "NOT_FOUND"
    base = WorkingContext()
    with pytest.raises(ToolError):
        tool_call_flow(services, ToolCall(id="c2", name="missing", arguments={}), context=base)


class Client:
    def __init__(self) -> None:
        self.calls: list = []

    def list_tools(self, cursor=None) -> McpToolPage:
        return McpToolPage(tools=(McpToolInfo(name="lookup", input_schema={"type": "object"}),))

    def call_tool(self, name, arguments) -> McpCallResult:
        self.calls.append(name)
        return McpCallResult(content="hit")


def test_mcp_flow_discover_keeps_context_invoke_updates() -> None:
    mcp = McpRegistry({"files": Client()}, sandbox=Sandbox(grants={"mcp": ["files"]}))
    services = Services(mcp=mcp)
    ctx = WorkingContext([doc("a", "1")])
    found = mcp_flow(services, {"operation": "discover", "server": "files"}, context=ctx)
    assert found.context is ctx and [c.name for c in found.capabilities] == ["lookup"]
    call = ToolCall(id="m1", name="lookup", arguments={})
    invoked = mcp_flow(
        services, McpRequest(operation="invoke", server="files", call=call), context=ctx
    )
    assert invoked.context.ids[0] == "a" and invoked.observation.source == "files:lookup"
    assert invoked.context.items[1].provenance.flow == "mcp_flow"
    with pytest.raises(ToolError, match="needs a server and a call"):
        mcp_flow(services, {"operation": "invoke", "server": "files"})
    with pytest.raises(ToolError, match="'arguments'") as info:  # the seed: not read as {}
        mcp_flow(
            services,
            {"operation": "invoke", "server": "files", "call": {"id": "m2", "name": "lookup"}},
        )
    assert info.value.code == "INVALID_MCP_REQUEST"
    with pytest.raises(BindingError):
        mcp_flow(Services(), {"operation": "discover"})


def test_skill_flow_and_load_skill(tmp_path: Path) -> None:
    (tmp_path / "review.md").write_text("Review correctness and tests.", encoding="utf-8")
    granted = Sandbox(tmp_path, grants={"skill": ["review"], "file.read": ["*.md"]})
    source = load_skill(granted, "review", "review.md")
    result = skill_flow(
        [source, {"id": "style", "content": "Be terse."}], context=WorkingContext([doc("a", "1")])
    )
    assert result.context.ids == ("a", "skill:review", "skill:style")
    assert result.context.get("skill:review").provenance.kind == "skill"
    with pytest.raises(PermissionDenied, match="skill"):
        load_skill(Sandbox(tmp_path, grants={"file.read": ["*"]}), "review", "review.md")
    with pytest.raises(PermissionDenied):
        load_skill(Sandbox(tmp_path, grants={"skill": ["*"]}), "review", "review.md")


CORPUS = WorkingContext([
    doc("refunds", "Refunds go back to the original payment method within 5 days."),
    doc("exchange", "Exchanges of delivered items need the order id and the new item id."),
    doc("shipping", "Pending orders can change their shipping address."),
    doc("hours", "Support is open every day."),
])  # fmt: skip


def test_rag_flow_ranks_lexically_and_deterministically() -> None:
    selection = rag_flow(CORPUS, "how do I exchange a delivered item?", limit=2)
    assert selection.selected_item_ids[0] == "exchange" and selection.purpose == "infer"
    assert selection.context.ids == selection.selected_item_ids
    assert rag_flow(CORPUS, "how do I exchange a delivered item?", limit=2) == selection
    assert rag_flow(CORPUS, "zebra quantum").selected_item_ids == ()


def test_rag_flow_limits_and_custom_strategy() -> None:
    assert len(rag_flow(CORPUS, "orders refunds exchanges item", limit=1).selected_item_ids) == 1
    assert rag_flow(CORPUS, "refunds payment", max_chars=10).selected_item_ids == ()

    class Last:
        def retrieve(self, query, k):
            return [CORPUS.items[-1]]

    assert rag_flow(CORPUS, "anything", strategy=Last()).selected_item_ids == ("hours",)
    with pytest.raises(ValueError):
        rag_flow(CORPUS, "x", limit=0)

    class RankOnly:  # the old shape: a strategy must retrieve
        def rank(self, query, items, limit):
            return [(items[-1].id, 1.0)]

    with pytest.raises(RetrievalError, match=r"no retrieve\(query, k\)"):
        rag_flow(CORPUS, "anything", strategy=RankOnly())  # type: ignore[arg-type]


def test_services_slots_and_providers() -> None:
    services = Services(concurrency=1, providers={"default": object()})
    with services.slot():
        assert not services._slots.acquire(blocking=False)
    assert services.provider() is services.providers["default"]
    with pytest.raises(BindingError):
        services.provider("other")
    with pytest.raises(ValueError):
        Services(concurrency=0)


def test_real_commands_flow_through_observation_into_context(tmp_path: Path) -> None:
    from jdsl.interaction import LocalExecutor, ToolRegistry, read_only_command_tools

    (tmp_path / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    box = Sandbox(tmp_path, grants={"tool": ["cat", "wc"], "execute": ["cat", "wc"]},
                  executor=LocalExecutor(["cat", "wc"]))  # fmt: skip
    services = Services(
        sandbox=box,
        tools=ToolRegistry(read_only_command_tools(sandbox=box, names=("cat", "wc")), sandbox=box),
    )
    result = tool_call_flow(
        services, ToolCall(id="c1", name="cat", arguments={"path": "notes.txt"})
    )
    item = result.context.items[0]
    assert item.content == "alpha\nbeta\n" and item.metadata["source"] == "cat"
    assert result.observation.structured_content["args"] == ["--", "notes.txt"]
