"""Importing OTLP JSON: the openai-client agent fixture (openinference-instrumentation-openai),
hand-built GenAI / OpenInference spans, jdsl's own export read back, and malformed files."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from jdsl.cli import app
from jdsl.compiler import compile_normalized, normalize_all
from jdsl.demo.family import cancel_tasks, task_inputs
from jdsl.demo.teacher import GoldChoice, offline_teacher, teacher_tree
from jdsl.envs.tau_retail import RetailEnv, tree_tools
from jdsl.importers import ImportFormatError
from jdsl.importers.otel import import_otel, otel_conversations
from jdsl.ir.walk import walk_ir
from jdsl.trace import ListTraceSink, read_events
from jdsl.trace.otel import trace_spans, write_otlp_json
from typer.testing import CliRunner

FIXTURE = Path(__file__).parent / "fixtures" / "openai_agent.otlp.json"


def test_the_instrumented_openai_agent_imports_as_one_episode_per_agent_run() -> None:
    trace = import_otel(FIXTURE)
    episodes = trace.episodes
    assert len(episodes) == 4
    first = episodes[0]
    assert first.skill == "cancel_agent" and first.status == "success"
    assert first.inputs["email"] == "c1@x.com"
    assert first.started["model_id"] == "gpt-4o-mini"
    assert first.started["task_family"] == "cancel_pending"
    calls = first.tool_calls()
    assert [c.name for c in calls] == ["lookup", "list_orders", "cancel"]
    assert calls[0].arguments == {"email": "c1@x.com"}
    assert calls[1].result[1]["status"] == "pending"  # read from the next LLM call's messages
    assert calls[2].arguments == {"order_id": "#W11", "reason": "no longer needed"}
    assert len(first.model_calls()) == 4
    exposed = next(e for e in first if e.kind == "toolset.exposed")
    assert [t["host_name"] for t in exposed.payload["tools"]] == ["lookup", "list_orders", "cancel"]


def test_the_instrumented_agent_compiles_with_dataflow_refs() -> None:
    result = compile_normalized(normalize_all(import_otel(FIXTURE).episodes), name="cancel_agent")
    assert result.ok and result.verification.status == "passed"
    args = {
        (a.tool, c.argument): (c.how, c.spec)
        for a in result.compiled.actions for c in a.choices
    }  # fmt: skip
    assert args[("list_orders", "customer_id")] == ("dataflow", {"ref": "lookup_out.id"})
    # which orders are a choice (never a fixed index, never a fixed count): the cancel is a
    # loop over the orders a residual list[int] selects (compiler/staticize/loops.py)
    assert args[("cancel", "order_id")] == ("loop", {"ref": "order_id_item.id"})
    loops = [n for n in walk_ir(result.ir["root"]) if n.get("kind") == "for_each"]
    assert [n["items"] for n in loops] == ["list_orders_out[$order_indexes]"]
    assert args[("lookup", "email")] == ("input", {"ref": "email"})


def test_import_otel_then_compile_from_the_command_line(tmp_path: Path) -> None:
    runner = CliRunner()
    traces = tmp_path / "agent.jsonl"
    imported = runner.invoke(app, ["import", "otel", str(FIXTURE), "-o", str(traces)])
    assert imported.exit_code == 0, imported.output
    assert "4 episodes, 12 tool calls (0 failed), 16 model turns" in imported.output
    compiled = runner.invoke(app, ["compile", str(traces), "-o", str(tmp_path)])
    assert compiled.exit_code == 0, compiled.output
    assert (tmp_path / "cancel_agent.jdsl").exists()


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    return {"stringValue": value}


def _span(name: str, span_id: str, parent: str = "", start: int = 0, status: int = 0,
          trace_id: str = "ab" * 16, **attributes: Any) -> dict[str, Any]:  # fmt: skip
    return {
        "traceId": trace_id, "spanId": span_id, "parentSpanId": parent, "name": name,
        "startTimeUnixNano": str(1000 + start), "endTimeUnixNano": str(2000 + start),
        "status": {"code": status, "message": "boom" if status == 2 else ""},
        "attributes": [{"key": k.replace("__", "."), "value": _value(v)}
                       for k, v in attributes.items()],
    }  # fmt: skip


def _document(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {"attributes": []},
                               "scopeSpans": [{"scope": {"name": "t"}, "spans": list(spans)}]}]}  # fmt: skip


def _write(path: Path, *documents: dict[str, Any]) -> Path:
    path.write_text("\n".join(json.dumps(d) for d in documents) + "\n")
    return path


def _genai_messages(*messages: dict[str, Any]) -> str:
    return json.dumps(list(messages))


def test_genai_json_messages_and_openinference_tool_spans(tmp_path: Path) -> None:
    call = {"type": "tool_call", "id": "c1", "name": "get_order", "arguments": {"id": "#W1"}}
    spans = [
        _span("invoke_agent support", "a" * 16, gen_ai__operation__name="invoke_agent",
              gen_ai__agent__name="support"),
        _span("chat gpt-4o", "b" * 16, "a" * 16, start=1, gen_ai__operation__name="chat",
              gen_ai__request__model="gpt-4o",
              gen_ai__input__messages=_genai_messages(
                  {"role": "user", "parts": [{"type": "text", "content": "where is #W1?"}]}),
              gen_ai__output__messages=_genai_messages({"role": "assistant", "parts": [call]})),
        _span("get_order", "c" * 16, "a" * 16, start=2, status=2,
              openinference__span__kind="TOOL", tool__name="get_order",
              input__value='{"id": "#W1"}'),
    ]  # fmt: skip
    trace = import_otel(_write(tmp_path / "s.json", _document(*spans)))
    (episode,) = trace.episodes
    assert episode.skill == "support" and episode.started["model_id"] == "gpt-4o"
    (failed,) = [e for e in episode if e.kind == "tool.call.failed"]
    assert failed.payload["error"] == "Error: boom" and failed.payload["call_id"] == "c1"
    user = next(e for e in episode if e.kind == "user.message")
    assert user.payload["content"] == "where is #W1?"


def test_tool_spans_alone_are_tool_calls_and_base64_ids_are_read(tmp_path: Path) -> None:
    trace_id = base64.b64encode(bytes(range(16))).decode()
    spans = [
        _span("agent", base64.b64encode(b"\x01" * 8).decode(), trace_id=trace_id,
              openinference__span__kind="AGENT", input__value='{"q": "x"}',
              metadata='{"task_id": 7, "reward": 0.0}'),
        _span("execute_tool search", base64.b64encode(b"\x02" * 8).decode(),
              base64.b64encode(b"\x01" * 8).decode(), trace_id=trace_id,
              gen_ai__operation__name="execute_tool", gen_ai__tool__name="search",
              gen_ai__tool__call__id="t1", gen_ai__tool__call__arguments='{"q": "x"}',
              gen_ai__tool__call__result='{"hits": 3}'),
    ]  # fmt: skip
    (episode,) = import_otel(_write(tmp_path / "s.json", _document(*spans))).episodes
    assert episode.episode_id == "otel_" + bytes(range(16)).hex()
    assert episode.inputs == {"q": "x"} and episode.started["task_id"] == 7
    assert episode.status == "failure"  # the reward 0.0
    (call,) = episode.tool_calls()
    assert (call.name, call.arguments, call.result) == ("search", {"q": "x"}, {"hits": 3})


def test_a_run_without_recorded_content_is_skipped_with_the_reason(tmp_path: Path) -> None:
    spans = [_span("invoke_agent a", "a" * 16, gen_ai__operation__name="invoke_agent"),
             _span("chat m", "b" * 16, "a" * 16, gen_ai__operation__name="chat")]  # fmt: skip
    path = _write(tmp_path / "s.json", _document(*spans))
    found = otel_conversations(path)
    assert found.conversations == [] and "content capture off" in found.skipped[0]
    result = CliRunner().invoke(app, ["import", "otel", str(path), "-o", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 1 and "warning: skipped otel_" in result.stderr  # as tau-bench
    assert "error: no episodes in" in result.output and not (tmp_path / "o.jsonl").exists()


def test_jdsls_own_export_reads_back_as_the_same_calls(tmp_path: Path) -> None:
    task = cancel_tasks()[0]
    sink = ListTraceSink()
    teacher_tree().run(model=offline_teacher(GoldChoice.of(task)), trace_sink=sink,
                       tools=tree_tools(RetailEnv()), **task_inputs(task))  # fmt: skip
    path = write_otlp_json(trace_spans(sink.events, capture_content=True), tmp_path / "x.json")
    (episode,) = import_otel(path).episodes
    (original,) = read_events_of(sink)
    assert [(c.name, c.arguments) for c in episode.tool_calls()] == [
        (c.name, c.arguments) for c in original.tool_calls()
    ]
    assert episode.episode_id == original.episode_id and episode.inputs == original.inputs
    said = [m.response["raw_output"] for m in episode.model_calls()]
    assert [text for text in said if text] == ["0", "no longer needed"]  # tool-only turns: ""


def read_events_of(sink: ListTraceSink) -> list[Any]:
    from jdsl.trace import Trace

    return Trace(sink.events).episodes


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("{not json\n", "line 1", "not JSON"),
        ('{"spans": []}', "", "resourceSpans"),
        (json.dumps(_document(_span("x", "zz"))), "", "spanId 'zz'"),
        (json.dumps(_document({**_span("x", "a" * 16), "attributes": [
            {"key": "k", "value": {"weirdValue": 1}}]})), "", "weirdValue"),
    ],
)  # fmt: skip
def test_malformed_files_are_typed_errors(
    tmp_path: Path, text: str, where: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ImportFormatError, match=message) as info:
        import_otel(path)
    assert info.value.where == where and info.value.path == str(path)


def test_a_missing_or_binary_file_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError, match="cannot read"):
        import_otel(tmp_path / "nope.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ImportFormatError, match="not UTF-8"):
        import_otel(tmp_path / "bin.json")


def test_the_imported_trace_file_round_trips(tmp_path: Path) -> None:
    from jdsl.trace import JsonlTraceSink

    out = tmp_path / "t.jsonl"
    with JsonlTraceSink(out) as sink:
        import_otel(FIXTURE, sink=sink)
    assert len(read_events(out).episodes) == 4


@pytest.mark.parametrize("limits", [{}, {"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "5",
                                     "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT": "10"}])  # fmt: skip
def test_the_shipped_airline_runs_round_trip_through_otlp_with_every_call(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
    limits: dict[str, str],
) -> None:  # fmt: skip
    """``export otel --content`` then ``import otel`` keeps every tool call and model turn of
    the longest shipped airline runs (their spans hold hundreds of attributes: the SDK's
    default limit of 128 per span dropped the oldest ones, and with them calls and turns),
    whatever limits the SDK's environment variables set (a value cut short is broken JSON)."""
    for name, value in limits.items():
        monkeypatch.setenv(name, value)
    from jdsl.envs.data import data_path
    from jdsl.importers import import_tau_bench

    rows = json.loads(
        Path(str(data_path("tau_airline", "raw", "gpt-4o-airline.dev.json"))).read_text("utf-8")
    )
    longest = sorted(rows, key=lambda r: -len(r["traj"]))[:3]
    # and a run whose model reused a call id: each result stays with its own call
    longest += [r for r in rows if (r["task_id"], r["trial"]) == (13, 0)]
    source = tmp_path / "longest.json"
    source.write_text(json.dumps(longest), encoding="utf-8")
    original = import_tau_bench(source).episodes
    spans = trace_spans([e for ep in original for e in ep.events], capture_content=True)
    assert not any(s.dropped_attributes or s.dropped_events for s in spans)
    back = {
        e.episode_id: e for e in import_otel(write_otlp_json(spans, tmp_path / "o.json")).episodes
    }
    for episode in original:
        again = back[episode.episode_id]
        assert [(c.name, c.arguments, c.ok) for c in again.tool_calls()] == [
            (c.name, c.arguments, c.ok) for c in episode.tool_calls()
        ]
        assert len(again.model_calls()) == len(episode.model_calls())
    assert "Attributes dict is full" not in caplog.text
