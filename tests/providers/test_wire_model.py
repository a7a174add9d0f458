"""Issue 25: the model a server receives is the provider's model name, never jdsl's id string,
whatever form the id takes and whichever way it reaches the adapter (``resolve_model``,
``root(model=...)``, ``jdsl run --model``, ``jdsl package run --model``, a per-call
``converse(model_id=...)``); and an assistant tool-call turn is sent in a shape real servers
accept. Every request goes to the recording loopback server on 127.0.0.1."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl import dsl
from jdsl.cli import app
from jdsl.envs.fixtures import RetailWorld, retail_fixture_tools
from jdsl.providers import Message, ToolCall, resolve_model
from jdsl.providers.resolve import wire_model_name
from jdsl.testing import ScriptedModel
from jdsl.trace import JsonlTraceSink
from loopback_server import LoopbackServer, Reply
from typer.testing import CliRunner

INPUTS = {"email": "c1@x.com", "request": "cancel my pending order"}


def _predict_root(model_id: str) -> Any:
    return dsl.root("cancel", model=model_id).do(
        dsl.seq(
            dsl.store(dsl.act("lookup", email=dsl.ref("email")), "customer"),
            dsl.store(dsl.act("list_orders", customer_id=dsl.ref("customer.id")), "orders"),
            dsl.predict("request, orders -> selected_index: int", id="resolve_target"),
        )
    )


def _ids(server: LoopbackServer) -> list[tuple[str, str, dict[str, str]]]:
    """(jdsl id, wire model name, environment) for every id form of every vendor."""
    openai_env = {"OPENAI_API_KEY": server.api_key, "OPENAI_BASE_URL": server.url("openai")}
    return [
        (f"openai-compatible:llama3.1@{server.url('openai')}", "llama3.1",
         {"OPENAI_COMPATIBLE_API_KEY": server.api_key}),
        (f"openai-compatible:qwen2.5:0.5b@{server.url('openai')}", "qwen2.5:0.5b",
         {"OPENAI_COMPATIBLE_API_KEY": server.api_key}),
        ("openai-compatible:llama3.1", "llama3.1",
         {"OPENAI_COMPATIBLE_API_KEY": server.api_key,
          "OPENAI_COMPATIBLE_BASE_URL": server.url("openai")}),
        ("openai:gpt-test", "gpt-test", openai_env),
        ("gpt-4o-mini", "gpt-4o-mini", openai_env),
        ("deepseek:deepseek-chat", "deepseek-chat",
         {"DEEPSEEK_API_KEY": server.api_key, "DEEPSEEK_BASE_URL": server.url("openai")}),
        ("anthropic:claude-test", "claude-test",
         {"ANTHROPIC_API_KEY": server.api_key, "ANTHROPIC_BASE_URL": server.url("anthropic")}),
        ("gemini:gemini-test", "gemini-test",
         {"GEMINI_API_KEY": server.api_key, "GOOGLE_GEMINI_BASE_URL": server.url("gemini")}),
    ]  # fmt: skip


def _wire_model(request: Any) -> str:
    if request.vendor == "gemini":  # the model is in the path: /v1beta/models/NAME:generate...
        return str(request.path.split("/models/", 1)[1].rsplit(":", 1)[0])
    return str(request.body["model"])


def _use(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def test_wire_model_name_strips_the_vendor_and_the_url() -> None:
    assert wire_model_name("openai-compatible:llama3.1@http://127.0.0.1:8080/v1") == "llama3.1"
    assert wire_model_name("openai-compatible:a@b@http://h/v1") == "a@b"
    assert wire_model_name("openai:gpt-4o") == "gpt-4o"
    assert wire_model_name("anthropic:claude-x") == "claude-x"
    assert wire_model_name("gpt-4o") == "gpt-4o"
    assert wire_model_name("llama3.1:8b") == "llama3.1:8b"  # an Ollama tag, not a vendor
    assert wire_model_name("local:smollm2-135m") == "smollm2-135m"


def test_root_model_ids_send_the_provider_model_name(server, isolated_env, monkeypatch) -> None:
    for model_id, wire, env in _ids(server):
        _use(monkeypatch, env)
        server.reset()
        server.script(Reply(text="0"))
        ctx = _predict_root(model_id).run(tools=retail_fixture_tools(1), **INPUTS)
        assert ctx.status.value == "success", (model_id, ctx.error)
        assert _wire_model(server.requests[-1]) == wire, model_id


def test_resolved_models_send_the_name_also_when_the_call_passes_the_jdsl_id(
    server, isolated_env, monkeypatch
) -> None:
    for model_id, wire, env in _ids(server):
        _use(monkeypatch, env)
        server.reset()
        server.script(Reply(text="hi"), Reply(text="hi"))
        model = resolve_model(model_id)
        model.converse("", [Message.user("x")])
        model.converse("", [Message.user("x")], model_id=model_id)  # what a tree passes
        assert [_wire_model(r) for r in server.requests] == [wire, wire], model_id


def test_a_model_object_with_a_root_id_sends_the_name(server, make_model) -> None:
    """``root(model=ID).run(model=obj)``: the tree passes the id per call; the name goes out."""
    server.script(Reply(text="0"))
    model = make_model("openai")
    url = server.url("openai")
    ctx = _predict_root(f"openai-compatible:other@{url}").run(
        model=model, tools=retail_fixture_tools(1), **INPUTS
    )
    assert ctx.status.value == "success", ctx.error
    assert server.requests[-1].body["model"] == "other"


BEHAVIOR = """\
root cancel
  seq
    act lookup(email=email) -> customer
    act list_orders(customer_id=customer.id) -> orders
    predict "request, orders -> i: int" id=pick
"""
TOOLS = """\
from jdsl.envs.fixtures import RetailWorld


def TOOLS():
    return RetailWorld.numbered(7).tools()
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    (tmp_path / "cancel.behavior").write_text(BEHAVIOR)
    (tmp_path / "wire_tools.py").write_text(TOOLS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "wire_tools", raising=False)
    yield tmp_path
    sys.modules.pop("wire_tools", None)


def test_jdsl_run_model_sends_the_name(server, isolated_env, project, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", server.api_key)
    server.script(Reply(text="1"))
    model_id = f"openai-compatible:llama3.1@{server.url('openai')}"
    result = CliRunner().invoke(app, [
        "run", "cancel.behavior", "--tools", "wire_tools:TOOLS", "--model", model_id,
        "--input", "email=c7@x.com", "--input", "request=cancel"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert [r.body["model"] for r in server.requests] == ["llama3.1"]


def _package(tmp_path: Path) -> Path:
    sink = JsonlTraceSink(tmp_path / "t.jsonl")
    for i in range(3):
        world = RetailWorld.numbered(i)
        tools = {t.name: t for t in world.tools()}
        dsl.root("cancel").do(dsl.seq(
            dsl.act(tools["lookup"], email=dsl.ref("email")) >> "customer",
            dsl.act(tools["list_orders"], customer_id=dsl.ref("customer.id")) >> "orders",
            dsl.predict("request, orders -> selected_index: int", id="resolve_target"),
            dsl.act(tools["get_order"], order_id=dsl.ref("orders[$selected_index].id")) >> "order",
        )).run(model=ScriptedModel("1"), trace_sink=sink, email=world.email,
               request="cancel my order")  # fmt: skip
    sink.close()
    package = tmp_path / "p.jdsl"
    result = CliRunner().invoke(app, ["compile", str(tmp_path / "t.jsonl"), "-o", str(package)])
    assert result.exit_code == 0, result.output
    return package


def test_jdsl_package_run_model_sends_the_name(server, isolated_env, project, monkeypatch) -> None:
    package = _package(project)
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", server.api_key)
    server.script(Reply(text="1"))
    model_id = f"openai-compatible:llama3.1@{server.url('openai')}"
    result = CliRunner().invoke(app, [
        "package", "run", str(package), "-t", "wire_tools:TOOLS", "--model", model_id,
        "-i", "email=c7@x.com", "-i", "request=cancel"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert [r.body["model"] for r in server.requests] == ["llama3.1"]


def _tool_turn_history() -> list[Message]:
    return [
        Message.user("cancel #W1"),
        Message(role="assistant", tool_calls=(ToolCall(id="c1", name="cancel", arguments={}),)),
        Message(role="tool", tool_call_id="c1", name="cancel", content="done"),
    ]


def test_a_tool_call_turn_has_text_content_on_other_servers(server, make_model) -> None:
    """llama.cpp-based servers (llama-cpp-python's) answer 500 to ``content: null``."""
    server.script(Reply(text="ok"))
    make_model("openai").converse("", _tool_turn_history())
    sent = server.requests[-1].body["messages"][1]
    assert sent["content"] == "" and sent["tool_calls"][0]["id"] == "c1"


def test_a_tool_call_turn_keeps_null_content_on_openai(server, make_model) -> None:
    """OpenAI's reference shape for a tool-call-only assistant turn is ``content: null``."""
    server.script(Reply(text="ok"))
    model = make_model("openai", tool_call_content=None)
    model.converse("", _tool_turn_history())
    assert server.requests[-1].body["messages"][1]["content"] is None


def test_anthropic_and_gemini_send_no_empty_text_block_with_a_tool_call(server, make_model) -> None:
    for vendor in ("anthropic", "gemini"):
        server.reset()
        server.script(Reply(text="ok"))
        make_model(vendor).converse("", _tool_turn_history())
        body = server.requests[-1].body
        turns = body["messages"] if vendor == "anthropic" else body["contents"]
        blocks = turns[1]["content"] if vendor == "anthropic" else turns[1]["parts"]
        assert all(b.get("text", "x") for b in blocks), (vendor, blocks)
        assert len(blocks) == 1, (vendor, blocks)
