"""jdsl traces as OpenTelemetry GenAI spans: the mapping, content capture, the live sink
(fail-open), and OTLP/HTTP to a loopback collector decoded with the official protobuf types."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from jdsl.demo.family import cancel_tasks, task_inputs
from jdsl.demo.teacher import GoldChoice, offline_teacher, teacher_tree
from jdsl.dsl import act, predict, react, ref, root, seq
from jdsl.envs.fixtures import RetailWorld
from jdsl.envs.tau_retail import RetailEnv, tree_tools
from jdsl.errors import MissingDependencyError
from jdsl.providers import ModelTurn, ToolCall, Usage
from jdsl.testing import ScriptedModel
from jdsl.trace import FanoutSink, ListTraceSink
from jdsl.trace.otel import OtelExportError, OtelSink, export_otel, trace_spans, traces_endpoint
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode


def _retail_run(sink: Any, task_index: int = 0) -> Any:
    task = cancel_tasks()[task_index]
    return teacher_tree().run(
        model=offline_teacher(GoldChoice.of(task)), trace_sink=sink,
        tools=tree_tools(RetailEnv()), **task_inputs(task),
    )  # fmt: skip


@pytest.fixture(scope="module")
def retail_events() -> list[Any]:
    sink = ListTraceSink()
    assert _retail_run(sink).status.value == "success"
    return sink.events


def _parent(spans: list[Any], span: Any) -> Any:
    by_id = {s.context.span_id: s for s in spans}
    return by_id.get(span.parent.span_id) if span.parent else None


def test_a_retail_run_is_one_trace_with_an_agent_span_over_the_tree(retail_events) -> None:
    spans = trace_spans(retail_events)
    assert len({s.context.trace_id for s in spans}) == 1
    (agent,) = [s for s in spans if s.parent is None]
    assert agent.name == "invoke_agent retail_cancel"
    assert agent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert agent.attributes["gen_ai.agent.name"] == "retail_cancel"
    assert agent.attributes["jdsl.status"] == "success"
    root_span = next(s for s in spans if s.name == "root 'retail_cancel'")
    assert _parent(spans, root_span) is agent
    nodes = [s for s in spans if "jdsl.node.type" in s.attributes]
    assert len(nodes) == sum(e.kind == "node.enter" for e in retail_events)
    guard = next(s for s in spans if s.attributes.get("jdsl.node.id") == "order_is_pending")
    assert guard.attributes["jdsl.guard.result"] is True
    assert all(s.start_time <= s.end_time for s in spans)


def test_tool_and_model_calls_are_genai_spans_under_their_nodes(retail_events) -> None:
    spans = trace_spans(retail_events)
    tools = [s for s in spans if s.name.startswith("execute_tool ")]
    assert [s.attributes["gen_ai.tool.name"] for s in tools] == [
        "find_user_id_by_name_zip", "get_user_details", "get_order_details", "cancel_pending_order",
    ]  # fmt: skip
    cancel = tools[-1]
    assert _parent(spans, cancel).name == "act(cancel_pending_order) -> cancelled"
    assert cancel.attributes["gen_ai.operation.name"] == "execute_tool"
    chats = [s for s in spans if s.name.startswith("chat ")]
    assert [_parent(spans, s).attributes["jdsl.node.id"] for s in chats] == [
        "choose_order", "choose_reason",
    ]  # fmt: skip
    assert all(s.kind is SpanKind.CLIENT for s in chats)
    assert chats[0].attributes["gen_ai.response.finish_reasons"] == ("stop",)


def test_content_is_recorded_only_when_capture_is_on(retail_events) -> None:
    content_keys = ("gen_ai.tool.call.arguments", "gen_ai.tool.call.result",
                    "gen_ai.input.messages", "gen_ai.output.messages", "input.value")  # fmt: skip
    off = trace_spans(retail_events)
    assert not [k for s in off for k in content_keys if k in s.attributes]
    assert not [e for s in off for e in s.events if "jdsl.blackboard.value" in e.attributes]
    on = trace_spans(retail_events, capture_content=True)
    cancel = next(s for s in on if s.name == "execute_tool cancel_pending_order")
    assert '"reason": "no longer needed"' in cancel.attributes["gen_ai.tool.call.arguments"]
    assert '"status": "cancelled"' in cancel.attributes["gen_ai.tool.call.result"]
    chat = next(s for s in on if s.name.startswith("chat "))
    assert "order_index" in chat.attributes["gen_ai.input.messages"]
    assert chat.attributes["llm.input_messages.0.message.role"] == "system"


def test_usage_provider_and_react_call_ids_follow_the_conventions() -> None:
    world = RetailWorld.numbered(3)
    tools = {t.name: t for t in world.tools()}
    usage = Usage(input_tokens=120, output_tokens=8, total_tokens=128)
    model = ScriptedModel(turns=[
        ModelTurn(tool_calls=(ToolCall(id="call_7", name="lookup", arguments={"email": world.email}),),
                  usage=usage, finish_reason="tool_call"),
        ModelTurn(text='{"answer": "U3"}', usage=usage, finish_reason="stop"),
    ])  # fmt: skip
    tree = (
        root("find")
        .model("gpt-4o-mini")
        .do(react("email -> answer", tools=[tools["lookup"]], id="agent"))
    )
    sink = ListTraceSink()
    tree.run(model=model, trace_sink=sink, email=world.email)
    spans = trace_spans(sink.events)
    chat = next(s for s in spans if s.name == "chat gpt-4o-mini")
    assert chat.attributes["gen_ai.provider.name"] == "openai"
    assert chat.attributes["gen_ai.request.model"] == "gpt-4o-mini"
    assert chat.attributes["gen_ai.usage.input_tokens"] == 120
    assert chat.attributes["gen_ai.usage.output_tokens"] == 8
    assert chat.attributes["gen_ai.response.finish_reasons"] == ("tool_call",)
    tool = next(s for s in spans if s.name == "execute_tool lookup")
    assert tool.attributes["gen_ai.tool.call.id"] == "call_7"
    assert _parent(spans, tool).attributes["jdsl.node.id"] == "agent"


def test_a_failed_tool_and_an_error_episode_are_error_spans() -> None:
    def lookup(email: str) -> dict:
        raise RuntimeError("database down for sk-ant-REDACTME0123456789abcdef")

    sink = ListTraceSink()
    root("broken").do(act(lookup, email=ref("email"))).run(
        trace_sink=sink, raise_errors=False, email="a@x.com"
    )
    spans = trace_spans(sink.events)
    tool = next(s for s in spans if s.name == "execute_tool lookup")
    assert tool.status.status_code is StatusCode.ERROR and tool.status.description is None
    agent = next(s for s in spans if s.parent is None)
    assert agent.status.status_code is StatusCode.ERROR
    assert agent.attributes["error.type"] == "RuntimeError"


def test_the_live_sink_maps_a_run_and_redacts_content() -> None:
    exporter = InMemorySpanExporter()
    secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123"
    world = RetailWorld.numbered(1)
    tools = {t.name: t for t in world.tools()}
    tree = root("lookup").do(seq(act(tools["lookup"], email=ref("email")) >> "customer"))
    with OtelSink(exporter=exporter, batch=False, capture_content=True) as sink:
        tree.run(
            trace_sink=FanoutSink(ListTraceSink(), sink),
            raise_errors=False,
            email=f"{world.email} {secret}",
        )
    spans = exporter.get_finished_spans()
    assert {s.name for s in spans} >= {"invoke_agent lookup", "execute_tool lookup"}
    text = repr([(dict(s.attributes), s.status.description) for s in spans])
    assert secret not in text and "«redacted»" in text
    assert sink.errors == 0 and "OtelSink(exporter=InMemorySpanExporter" in repr(sink)


class _Exploding(SpanExporter):
    def export(self, spans: Any) -> SpanExportResult:
        raise ConnectionError("backend gone")

    def shutdown(self) -> None:
        pass


def test_the_live_sink_never_fails_the_run_it_observes(capsys) -> None:
    sink = OtelSink(exporter=_Exploding(), batch=False)
    sink._builder.add = _raise  # type: ignore[method-assign]  # a mapping bug
    ctx = _retail_run(sink, task_index=1)
    sink.close()
    assert ctx.status.value == "success"
    assert sink.errors > 1 and isinstance(sink.last_error, ValueError)
    assert capsys.readouterr().err.count("jdsl.trace.otel:") == 1  # reported once


def _raise(event: Any) -> None:
    raise ValueError("mapping failed")


def test_a_torn_trace_still_ends_every_span(retail_events) -> None:
    torn = [e for e in retail_events if e.kind != "episode.finished"][:-3]
    spans = trace_spans(torn)
    agent = next(s for s in spans if s.parent is None)
    assert agent.attributes["jdsl.status"] == "unfinished"
    assert all(s.end_time is not None for s in spans)


class _Collector:
    """A loopback OTLP/HTTP receiver: decodes each POST /v1/traces with the official protos."""

    def __init__(self, status: int = 200) -> None:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        self.requests: list[Any] = []
        self.headers: list[dict[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["content-length"]))
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                outer.requests.append((self.path, request))
                outer.headers.append({k.lower(): v for k, v in self.headers.items()})
                self.send_response(status)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> _Collector:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def collector() -> Iterator[_Collector]:
    with _Collector() as running:
        yield running


def test_export_sends_otlp_protobuf_over_http(retail_events, collector) -> None:
    count = export_otel(retail_events, endpoint=collector.url, headers={"api_key": "k-123"})
    ((path, request),) = collector.requests
    assert path == "/v1/traces" and collector.headers[0]["api_key"] == "k-123"
    spans = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
    assert len(spans) == count == len(trace_spans(retail_events))
    resource = {a.key: a.value.string_value for a in request.resource_spans[0].resource.attributes}
    assert resource["service.name"] == "jdsl"
    names = {s.name for s in spans}
    assert "invoke_agent retail_cancel" in names and "execute_tool cancel_pending_order" in names


def test_export_reads_a_jsonl_trace_file(retail_events, collector, tmp_path) -> None:
    from jdsl.trace import Trace

    path = Trace(retail_events).save(tmp_path / "runs.jsonl")
    assert export_otel(path, endpoint=collector.url) == len(trace_spans(retail_events))


def test_a_refusing_backend_is_a_typed_error(retail_events) -> None:
    with _Collector(status=400) as refusing, pytest.raises(OtelExportError) as info:
        export_otel(retail_events, endpoint=refusing.url)
    assert info.value.endpoint == refusing.url and "phoenix serve" in str(info.value)


def test_endpoints() -> None:
    assert traces_endpoint("http://127.0.0.1:6006") == "http://127.0.0.1:6006/v1/traces"
    assert traces_endpoint("http://h:4318/") == "http://h:4318/v1/traces"
    assert traces_endpoint("https://h/api/traces") == "https://h/api/traces"
    with pytest.raises(OtelExportError, match="not an http"):
        traces_endpoint("127.0.0.1:6006")


def test_any_exporter_can_receive_a_recorded_trace(retail_events) -> None:
    exporter = InMemorySpanExporter()
    assert export_otel(retail_events, exporter=exporter) == len(exporter.get_finished_spans())


def test_without_the_sdk_the_error_names_the_extra(monkeypatch, retail_events) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    with pytest.raises(MissingDependencyError, match=r"jdsl\[otel\]"):
        trace_spans(retail_events)
    with pytest.raises(MissingDependencyError):
        OtelSink(exporter=InMemorySpanExporter())


def test_predict_spans_without_a_model_id_say_unknown() -> None:
    tree = root("p").do(predict("q -> a", id="answer"))
    sink = ListTraceSink()
    tree.run(model=ScriptedModel("yes"), trace_sink=sink, q="?")
    chat = next(s for s in trace_spans(sink.events) if s.name.startswith("chat "))
    assert chat.name == "chat unknown" and chat.attributes["gen_ai.provider.name"] == "unknown"


def test_a_for_each_pass_is_a_span_event_with_its_index_and_source_only_with_capture() -> None:
    from jdsl.dsl import for_each

    def get(order_id: str) -> dict:
        return {"id": order_id}

    sink = ListTraceSink()
    tree = root("loop").do(for_each("o", "user.orders", act(get, order_id=ref("o")) >> "d"))
    assert tree.run(trace_sink=sink, user={"orders": ["#W1", "#W2"]}).status.value == "success"
    for capture in (False, True):
        spans = trace_spans(sink.events, capture_content=capture)
        loop = next(s for s in spans if s.name == "for_each o in user.orders")
        passes = [
            e.attributes for e in loop.events if e.attributes.get("jdsl.blackboard.key") == "o"
        ]
        assert [p["jdsl.loop.index"] for p in passes] == [0, 1]
        sources = [p.get("jdsl.blackboard.source") for p in passes]
        assert sources == (["user.orders[0]", "user.orders[1]"] if capture else [None, None])
