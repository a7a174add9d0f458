"""Hostile foreign traces (issue #26): every importer gives an ImportFormatError (never a
RecursionError, OverflowError, TypeError or pydantic traceback), never hangs, and a failure
part-way through ``jdsl import`` leaves the old output file as it was."""

from __future__ import annotations

import json
import signal
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from jdsl.commands.imports import import_app
from jdsl.importers import ImportFormatError, import_openai_chat, import_otel, import_tau_bench
from typer.testing import CliRunner

TRACE = "a" * 32


def _span(span_id: str, parent: str = "", **attributes: Any) -> dict[str, Any]:
    return {
        "traceId": TRACE, "spanId": span_id, "parentSpanId": parent, "name": "s",
        "attributes": [{"key": k, "value": v} for k, v in attributes.items()],
    }  # fmt: skip


def _otlp(spans: list[dict[str, Any]]) -> str:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})


AGENT = {"gen_ai.operation.name": {"stringValue": "invoke_agent"}}
TOOL = {
    "gen_ai.operation.name": {"stringValue": "execute_tool"},
    "gen_ai.tool.name": {"stringValue": "t"},
}
DEEP = "[" * 100_000 + "]" * 100_000


def _chat(**row: Any) -> str:
    return json.dumps({"messages": [{"role": "assistant", "content": "x"}], **row})


def _tau(run: dict[str, Any]) -> str:
    return json.dumps([{"task_id": 1, "reward": 1.0, "traj": [], **run}])


CASES: dict[str, tuple[str, str]] = {
    "otel: Infinity as a time": (
        "otel",
        _otlp([_span("b" * 16)]).replace(
            '"name": "s"', '"name": "s", "startTimeUnixNano": Infinity'
        ),
    ),
    "otel: 1e400 as a time": (
        "otel",
        _otlp([_span("b" * 16)]).replace('"name": "s"', '"name": "s", "endTimeUnixNano": 1e400'),
    ),
    "otel: a time as text": ("otel", _otlp([{**_span("b" * 16), "startTimeUnixNano": "soon"}])),
    "otel: a list as a time": ("otel", _otlp([{**_span("b" * 16), "startTimeUnixNano": [1]}])),
    "otel: a double over a float": ("otel", _otlp([_span("b" * 16, x={"doubleValue": 10**400})])),
    "otel: deep nesting": ("otel", '{"resourceSpans": ' + DEEP + "}"),
    "otel: deep JSON in an attribute": (
        "otel",
        _otlp(
            [
                _span("b" * 16, **AGENT, **{"input.value": {"stringValue": DEEP}}),
                _span("c" * 16, "b" * 16, **TOOL),
            ]
        ),
    ),
    "otel: a text reward": (
        "otel",
        _otlp(
            [
                _span("b" * 16, **AGENT, **{"jdsl.reward": {"stringValue": "abc"}}),
                _span("c" * 16, "b" * 16, **TOOL),
            ]
        ),
    ),
    "otel: a list reward": (
        "otel",
        _otlp(
            [
                _span("b" * 16, **AGENT, **{"jdsl.reward": {"arrayValue": {"values": []}}}),
                _span("c" * 16, "b" * 16, **TOOL),
            ]
        ),
    ),
    "otel: a lone surrogate": (
        "otel",
        _otlp([_span("b" * 16, **AGENT)]).replace('"s"', '"\\ud800"'),
    ),
    "tau: a lone surrogate": (
        "tau",
        _tau({"traj": [{"role": "user", "content": "\\udc80"}]}).replace("\\\\", "\\"),
    ),
    "tau: a number tool name": (
        "tau",
        _tau(
            {
                "traj": [
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{"id": "c", "function": {"name": 5, "arguments": "{}"}}],
                    }
                ]
            }
        ),
    ),
    "tau: a number call id": (
        "tau",
        _tau(
            {
                "traj": [
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{"id": 7, "function": {"name": "t", "arguments": "{}"}}],
                    }
                ]
            }
        ),
    ),
    "tau: a 5,000-digit task id": (
        "tau",
        '[{"task_id": ' + "9" * 5000 + ', "reward": 1, "traj": []}]',
    ),
    "tau: a 1e400 reward": ("tau", '[{"task_id": 1, "reward": 1e400, "traj": []}]'),
    "tau: NaN reward": ("tau", '[{"task_id": 1, "reward": NaN, "traj": []}]'),
    "tau: deep nesting": ("tau", DEEP),
    "tau: deep Action JSON": (
        "tau",
        _tau(
            {
                "traj": [
                    {
                        "role": "assistant",
                        "content": "Action:\n" + '{"name": "t", "arguments": {"a": ' + DEEP + "}}",
                    }
                ]
            }
        ),
    ),
    "chat: a lone surrogate": ("chat", _chat().replace('"x"', '"\\udc80"')),
    "chat: deep nesting": ("chat", '{"messages": [], "x": ' + DEEP + "}"),
    "chat: a text reward": ("chat", _chat(metadata={"reward": "abc"})),
    "chat: inputs not an object": ("chat", _chat(metadata={"inputs": 5})),
    "chat: metadata a list": ("chat", _chat(metadata=[1])),
    "chat: tools not objects": ("chat", _chat(tools=[1])),
    "chat: a number call id": (
        "chat",
        json.dumps(
            {
                "messages": [
                    {"role": "assistant", "tool_calls": [{"id": 3, "function": {"name": "t"}}]}
                ]
            }
        ),
    ),
    "chat: a number tool name": (
        "chat",
        json.dumps(
            {
                "messages": [
                    {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": 5}}]}
                ]
            }
        ),
    ),
    "chat: function not an object": (
        "chat",
        json.dumps(
            {"messages": [{"role": "assistant", "tool_calls": [{"id": "c", "function": 5}]}]}
        ),
    ),
    "chat: a message not an object": ("chat", json.dumps({"messages": [5]})),
    "chat: a 5,000-digit number": ("chat", '{"messages": [], "n": ' + "9" * 5000 + "}"),
}

IMPORTERS: dict[str, Callable[[Path], Any]] = {
    "otel": import_otel,
    "tau": lambda path: import_tau_bench(path, domain="airline", strict=True),
    "chat": import_openai_chat,
}


@contextmanager
def _no_hang(seconds: int = 10) -> Iterator[None]:
    def hang(number: int, frame: object) -> None:
        raise AssertionError(f"the import ran for over {seconds} s")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_file_is_an_import_format_error_or_imports(case: str, tmp_path: Path) -> None:
    """Never another exception (a value that is no JSON jdsl reads inside a string, such as
    an attribute's text or an act run's Action, stays text)."""
    kind, text = CASES[case]
    path = tmp_path / "in.json"
    path.write_text(text, encoding="utf-8")
    with _no_hang(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            trace = IMPORTERS[kind](path)
        except ImportFormatError:
            return
    assert trace.verify() == []


def _chain(count: int, repeat_last: bool = False) -> list[dict[str, Any]]:
    """An agent span, ``count - 2`` plain spans each inside the last, and a tool span."""
    roles = [AGENT] + [{}] * (count - 2) + [TOOL]
    spans = [_span(f"{i + 1:016x}", f"{i:016x}" if i else "", **roles[i]) for i in range(count)]
    if repeat_last:  # the same span id again, now its own child
        spans.append(_span(f"{count:016x}", f"{count:016x}", **TOOL))
    return spans


@pytest.mark.parametrize(
    "spans",
    [
        pytest.param(_chain(3, repeat_last=True), id="a repeated span id that is its own child"),
        pytest.param(
            _chain(3) + [_span("f" * 16, "e" * 16, **TOOL), _span("e" * 16, "f" * 16, **TOOL)],
            id="a parent cycle",
        ),
        pytest.param(_chain(5_000), id="5,000 spans deep"),
    ],
)
def test_odd_span_trees_import_without_hanging_or_recursing(
    spans: list[dict[str, Any]], tmp_path: Path
) -> None:
    path = tmp_path / "spans.json"
    path.write_text(_otlp(spans))
    with _no_hang():
        trace = import_otel(path)
    assert len(trace.episodes) == 1


def test_a_failure_part_way_keeps_the_old_output_and_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("".join(_chat(id=f"c{i}") + "\n" for i in range(3)))
    out = tmp_path / "out.jsonl"
    out.write_text("the old trace\n")
    import jdsl.importers.common as common

    real = common.conversation_events
    emitted: list[str] = []

    def crash_on_the_third(conversation: Any, sink: Any) -> Any:
        if len(emitted) == 2:
            raise KeyboardInterrupt  # a Ctrl-C (or any crash) in the middle of writing
        emitted.append(conversation.episode_id)
        return real(conversation, sink)

    monkeypatch.setattr(common, "conversation_events", crash_on_the_third)
    result = CliRunner().invoke(import_app, ["openai-chat", str(log), "-o", str(out)])
    assert result.exit_code != 0
    assert out.read_text() == "the old trace\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.jsonl", "out.jsonl"]
    monkeypatch.setattr(common, "conversation_events", real)
    assert CliRunner().invoke(import_app, ["openai-chat", str(log), "-o", str(out)]).exit_code == 0
    assert out.read_text().count('"episode.started"') == 3


@pytest.mark.slow
def test_legacy_function_results_pair_in_linear_time(
    tmp_path: Path, growth: Callable[..., float]
) -> None:
    """Each legacy ``role: function`` result scanned every call made so far: 8,000 took 41 s."""
    from jdsl.importers import openai_chat_conversations

    files: dict[int, Path] = {}

    def log(n: int) -> Path:
        calls = [
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "f", "arguments": "{}"},
            }
        ] * n
        results = [{"role": "function", "name": "f", "content": str(i)} for i in range(n)]
        path = tmp_path / f"{n}.jsonl"
        path.write_text(json.dumps({"messages": calls + results}) + "\n")
        return path

    def read(n: int) -> None:
        openai_chat_conversations(files.setdefault(n, log(n)))

    assert growth(read, 1_000) < 10  # 16 when quadratic


def test_an_otlp_file_given_to_import_tau_bench_names_import_otel(tmp_path: Path) -> None:
    """fresh9 finding 9: OTLP JSON given to the tau-bench importer said only "expected a JSON
    list of runs"; it says which importer reads it, as openai-chat does for tau-bench files."""
    otlp = tmp_path / "agent.otlp.json"
    otlp.write_text(json.dumps({"resourceSpans": [{"scopeSpans": []}]}))
    with pytest.raises(ImportFormatError, match="`jdsl import otel`"):
        import_tau_bench(otlp)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"a": 1}))
    with pytest.raises(ImportFormatError) as caught:
        import_tau_bench(other)
    assert "otel" not in str(caught.value)
