"""Importing OpenAI chat-completions logs (JSONL, one conversation per line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jdsl.importers import ImportFormatError, import_openai_chat, parse_result
from jdsl.trace import EventKind, TraceEvent, request_messages


def _call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": raw}}


CONVERSATION = {
    "id": "conv-1",
    "model": "gpt-4o-mini",
    "metadata": {"task_id": 7, "reward": 1.0, "inputs": {"email": "ann@example.com"}},
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "find_user",
                "description": "Find.",
                "parameters": {"type": "object"},
            },
        }
    ],
    "messages": [
        {"role": "system", "content": "You are a retail agent."},
        {"role": "user", "content": [{"type": "text", "text": "I am ann@example.com"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                _call("c1", "find_user", {"email": "ann@example.com"}),
                _call("c2", "get_order", {"order_id": "#W1"}),
            ],
        },
        {"role": "tool", "tool_call_id": "c2", "content": "Error: order not found"},
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": '{"user_id": "ann_1", "orders": ["#W2"]}',
        },
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [_call("c3", "get_order", {"order_id": "#W2"})],
        },
        {"role": "tool", "tool_call_id": "c3", "content": "pending"},
        {"role": "assistant", "content": "Your order #W2 is pending."},
    ],
}


def _write(tmp_path: Path, *rows: Any) -> Path:
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def _kinds(events: list[TraceEvent]) -> list[str]:
    return [e.kind for e in events]


def test_a_conversation_becomes_one_episode_of_decisions_and_calls(tmp_path: Path) -> None:
    events = import_openai_chat(_write(tmp_path, CONVERSATION))
    assert {e.episode_id for e in events} == {"conv-1"}
    assert _kinds(events) == [
        EventKind.EPISODE_STARTED,
        EventKind.REACT_STARTED,
        EventKind.TOOLSET_EXPOSED,
        EventKind.USER_MESSAGE,
        EventKind.MODEL_REQUESTED,
        EventKind.MODEL_RESPONDED,
        EventKind.TOOL_CALL_STARTED,
        EventKind.TOOL_CALL_COMPLETED,
        EventKind.TOOL_CALL_STARTED,
        EventKind.TOOL_CALL_FAILED,
        EventKind.MODEL_REQUESTED,
        EventKind.MODEL_RESPONDED,
        EventKind.ASSISTANT_MESSAGE,
        EventKind.TOOL_CALL_STARTED,
        EventKind.TOOL_CALL_COMPLETED,
        EventKind.MODEL_REQUESTED,
        EventKind.MODEL_RESPONDED,
        EventKind.ASSISTANT_MESSAGE,
        EventKind.REACT_FINISHED,
        EventKind.ENVIRONMENT_REWARD,
        EventKind.EPISODE_FINISHED,
    ]
    started = events[0].payload
    assert started["task_id"] == 7 and started["task_family"] == "7"
    assert (
        started["inputs"] == {"email": "ann@example.com"} and started["model_id"] == "gpt-4o-mini"
    )
    assert events[3].payload == {"content": "I am ann@example.com"}
    assert events[2].payload["tools"][0]["host_name"] == "find_user"
    assert events[1].payload == {
        "node_id": "agent",
        "signature": None,
        "inputs": {"email": "ann@example.com"},
        "outputs": [],
        "tools": ["find_user"],
    }
    finished = events[-3].payload
    assert finished["answer"] == "Your order #W2 is pending." and finished["steps"] == 3


def test_results_are_matched_by_call_id_and_parsed(tmp_path: Path) -> None:
    events = import_openai_chat(_write(tmp_path, CONVERSATION))
    assert events[7].payload["result"] == {"user_id": "ann_1", "orders": ["#W2"]}
    assert events[7].payload["call_id"] == "c1"
    assert (
        events[9].payload["error"] == "Error: order not found"
        and events[9].payload["call_id"] == "c2"
    )
    assert events[14].payload["result"] == "pending"  # not JSON text: kept as text


def test_requests_carry_the_system_prompt_and_history(tmp_path: Path) -> None:
    events = import_openai_chat(_write(tmp_path, CONVERSATION))
    second = events[10].payload
    assert second["system"] == "You are a retail agent." and second["tools"] == ["find_user"]
    history = request_messages(events[10], events)
    roles = [(m["role"], m["tool_call_id"], m["is_error"]) for m in history]
    assert roles == [
        ("user", None, False),
        ("assistant", None, False),
        ("tool", "c1", False),
        ("tool", "c2", True),
    ]
    # only what is new since the first request is recorded (jdsl.trace.v2)
    assert len(second["messages"]) == 3 and second["messages_from"]["kept"] == 1
    responded = events[11].payload
    assert responded["raw_output"] == "Checking." and responded["finish_reason"] == "tool_calls"
    assert responded["tool_calls"] == [
        {"id": "c3", "name": "get_order", "arguments": {"order_id": "#W2"}}
    ]


def test_lines_without_ids_and_legacy_function_calls(tmp_path: Path) -> None:
    legacy = {
        "messages": [
            {"role": "user", "content": "2+2?"},
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "calc", "arguments": '{"e": "2+2"}'},
            },
            {"role": "function", "name": "calc", "content": "4"},
            {
                "role": "assistant",
                "tool_calls": [_call("", "calc", "not json"), _call("", "calc", "[1]")],
            },
        ]
    }
    events = import_openai_chat(_write(tmp_path, "", legacy, {"messages": []}))
    assert sorted({e.episode_id for e in events}) == ["log_2", "log_3"]
    completed = next(e for e in events if e.kind == EventKind.TOOL_CALL_COMPLETED)
    started = [e for e in events if e.kind == EventKind.TOOL_CALL_STARTED]
    assert completed.payload["result"] == 4 and started[0].payload["arguments"] == {"e": "2+2"}
    unanswered = started[1:]
    assert [e.payload["arguments"] for e in unanswered] == [
        {"_raw_arguments": "not json"},
        {"_raw_arguments": "[1]"},
    ]
    assert len({e.payload["call_id"] for e in unanswered}) == 2
    last = [e for e in events if e.episode_id == "log_2"][-1]
    assert last.kind == EventKind.EPISODE_FINISHED and last.payload["status"] == "success"


@pytest.mark.parametrize(
    ("row", "match"),
    [
        ("{oops", r"log\.jsonl, line 1: not JSON"),
        ({"conversation": []}, r'line 1: expected an object with a "messages" list'),
        (
            [{"task_id": 1, "reward": 1.0, "traj": []}],
            r"line 1: .*a tau-bench results file: import it with `jdsl import tau-bench`",
        ),
        (
            {"messages": [{"role": "robot", "content": "hi"}]},
            r"line 1: message 1: unknown role 'robot'",
        ),
        (
            {"messages": [{"role": "tool", "tool_call_id": "x", "content": "1"}]},
            r"message 1: tool message answers no earlier tool call",
        ),
        ({"messages": [{"role": "user", "content": 5}]}, r"message 1: content must be a string"),
    ],
)
def test_a_malformed_line_names_the_line_and_message(tmp_path: Path, row: Any, match: str) -> None:
    with pytest.raises(ImportFormatError, match=match):
        import_openai_chat(_write(tmp_path, row))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ("[1, 2]", [1, 2]),
        ("4.0", 4.0),
        ("noah_1", "noah_1"),
        ("", ""),
        ("NaN", "NaN"),
        ('{"a": 1} trailing', '{"a": 1} trailing'),
    ],
)
def test_parse_result_parses_only_json_text(text: str, value: Any) -> None:
    assert parse_result(text) == value


def test_the_cli_warns_of_call_arguments_that_are_not_json(tmp_path: Path) -> None:
    """Such calls were imported silently (then compiled as a constant ``_raw_arguments``)."""
    from jdsl.commands.imports import import_app
    from typer.testing import CliRunner

    row = {
        "id": "r1",
        "messages": [
            {"role": "user", "content": "find x"},
            {"role": "assistant", "tool_calls": [_call("c1", "lookup", '{"q": ')]},
            {"role": "tool", "tool_call_id": "c1", "content": "{}"},
        ],
    }
    path = _write(tmp_path, row)
    result = CliRunner().invoke(import_app, ["openai-chat", str(path), "-o", str(tmp_path / "t")])
    assert result.exit_code == 0, result.output
    assert (
        "warning: 1 tool call(s) have arguments that are not a JSON object (kept as "
        '{"_raw_arguments": text}; first: r1 call c1 lookup \'{"q": \')' in result.stderr
    )
