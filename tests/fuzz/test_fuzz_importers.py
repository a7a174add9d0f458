"""Fuzz targets: the three importers (issue #26). Valid foreign traces with values replaced
by hostile ones (deep nesting, huge or non-finite numbers, lone surrogates, wrong types,
repeated span ids) and with text spliced in: only ``ImportFormatError`` escapes, and what
imports is a trace whose chain verifies."""

from __future__ import annotations

import json
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from budget import FUZZ
from hypothesis import given
from hypothesis import strategies as st
from jdsl.importers import ImportFormatError, import_openai_chat, import_otel, import_tau_bench
from strategies import _forge, deep, json_values

SPAN = "b" * 16


def _attr(key: str, value: Any) -> dict[str, Any]:
    return {"key": key, "value": value}


OTEL = {"resourceSpans": [{"resource": {"attributes": [_attr("service.name", {"stringValue": "s"})]},
    "scopeSpans": [{"spans": [
        {"traceId": "a" * 32, "spanId": SPAN, "name": "invoke_agent a", "startTimeUnixNano": "1",
         "endTimeUnixNano": "9", "attributes": [
            _attr("gen_ai.operation.name", {"stringValue": "invoke_agent"}),
            _attr("jdsl.reward", {"doubleValue": 1.0}), _attr("input.value", {"stringValue": '{"q": 1}'})]},
        {"traceId": "a" * 32, "spanId": "c" * 16, "parentSpanId": SPAN, "name": "chat", "startTimeUnixNano": "2",
         "endTimeUnixNano": "3", "attributes": [
            _attr("gen_ai.operation.name", {"stringValue": "chat"}),
            _attr("gen_ai.input.messages", {"stringValue": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}])}),
            _attr("gen_ai.output.messages", {"stringValue": json.dumps([{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "t", "arguments": {"a": 1}}]}])})]},
        {"traceId": "a" * 32, "spanId": "d" * 16, "parentSpanId": SPAN, "name": "execute_tool t", "startTimeUnixNano": "4",
         "endTimeUnixNano": "5", "status": {"code": 1}, "attributes": [
            _attr("gen_ai.operation.name", {"stringValue": "execute_tool"}), _attr("gen_ai.tool.name", {"stringValue": "t"}),
            _attr("gen_ai.tool.call.id", {"stringValue": "c1"}), _attr("gen_ai.tool.call.result", {"stringValue": '{"ok": true}'})]},
    ]}]}]}  # fmt: skip
TAU = [{"task_id": 1, "reward": 1.0, "trial": 0, "info": {"task": {"user_id": "u1", "instruction": "do", "actions": [{"name": "t", "kwargs": {"a": 1}}]}},
        "traj": [{"role": "system", "content": "airline agent"}, {"role": "user", "content": "hi"},
                 {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_user_details", "arguments": '{"user_id": "u1"}'}}]},
                 {"role": "tool", "tool_call_id": "c1", "name": "get_user_details", "content": '{"name": "x"}'},
                 {"role": "assistant", "content": "Action:\n{\"name\": \"respond\", \"arguments\": {\"content\": \"ok\"}}"}]},
       {"episode_id": "e1", "domain": "airline", "task_id": 2, "reward": 0.0, "steps": [
           {"role": "user", "content": "hi"}, {"role": "assistant", "content": "x", "tool_calls": [{"id": None, "name": "t", "arguments": {}}],
            "tool_results": [{"id": None, "name": "t", "content": "Error: no"}]}]}]  # fmt: skip
CHAT = {"id": "c", "model": "m", "tools": [{"type": "function", "function": {"name": "t", "parameters": {}}}],
        "metadata": {"task_id": 1, "reward": 1, "inputs": {"a": 1}},
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"name": "t", "arguments": '{"a": 1}'}}]},
                     {"role": "tool", "tool_call_id": "c1", "content": "[1, 2]"},
                     {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
                     {"role": "function", "name": "f", "content": "done"}]}  # fmt: skip

hostile = st.one_of(
    json_values,
    st.sampled_from(["\ud800", "x\udc80y", SPAN, "", "Infinity", "NaN", "Error: x", "API output: 1",
                     "Action:\n{\"name\": 5}", "[" * 300, "9" * 5000, '{"a":' * 50]),
    st.integers(0, 400).map(lambda n: deep(n, "not")),
    st.builds(lambda: {"stringValue": "\ud800"}),
    st.builds(lambda: {"intValue": "9" * 30}),
    st.builds(lambda: {"doubleValue": "Infinity"}),
    st.builds(lambda: {"kvlistValue": {"values": [{"key": "k", "value": {"arrayValue": {"values": []}}}]}}),
)  # fmt: skip
edits = st.lists(st.tuples(st.integers(0, 10**4), hostile), max_size=4)
splices = st.lists(st.tuples(st.integers(0, 10**5), st.text(max_size=6)), max_size=2)


def _text(
    document: Any, edit: list[tuple[int, Any]], splice: list[tuple[int, str]], lines: bool
) -> str | None:
    forged = _forge({"d": document}, edit)["d"]
    try:
        text = "\n".join(json.dumps(row) for row in forged) if lines else json.dumps(forged)
    except (ValueError, TypeError, RecursionError):  # a value JSON text cannot hold
        return None
    for at, junk in splice:
        at %= len(text) + 1
        text = text[:at] + junk + text[at:]
    return text


def _check(importer: Callable[[Path], Any], text: str | None) -> None:
    if text is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "source.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                trace = importer(path)
            except ImportFormatError:
                return
        assert trace.verify() == []
        for event in trace:
            event.to_json()


@FUZZ
@given(edits, splices)
def test_otel_import_gives_only_import_format_errors(edit: list, splice: list) -> None:
    _check(import_otel, _text(OTEL, edit, splice, lines=False))


@FUZZ
@given(edits, splices, st.sampled_from([None, "airline", "retail"]), st.booleans())
def test_tau_bench_import_gives_only_import_format_errors(
    edit: list, splice: list, domain: str | None, strict: bool
) -> None:
    _check(
        lambda p: import_tau_bench(p, domain=domain, strict=strict),
        _text(TAU, edit, splice, lines=False),
    )


@FUZZ
@given(edits, splices)
def test_openai_chat_import_gives_only_import_format_errors(edit: list, splice: list) -> None:
    _check(import_openai_chat, _text([CHAT, CHAT], edit, splice, lines=True))
