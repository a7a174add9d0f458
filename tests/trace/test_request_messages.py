"""Issue 26 (quadratic paths): a ``model.requested`` records only the messages new since the
previous request of its conversation (``jdsl.trace.v2``); :func:`request_messages` rebuilds the
whole list, for new traces and for ``jdsl.trace.v1`` ones that carry every list whole."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from jdsl import ModelTurn, ToolCall, react, root
from jdsl.dsl import act, ref, seq
from jdsl.errors import JdslError
from jdsl.providers.replay import ReplayDivergence, ReplayModel
from jdsl.testing import ScriptedModel
from jdsl.trace import (
    MESSAGES_FROM,
    SCHEMA_VERSION,
    EventKind,
    JsonlTraceSink,
    ListTraceSink,
    MissingBlobError,
    Redactor,
    RequestMessages,
    RequestMessagesError,
    read_events,
    request_messages,
    verify_chain,
)

V1_TRACE = Path(__file__).parent / "fixtures" / "full_messages_v1.jsonl"
"""A React run written before this change (every request carries the whole conversation)."""

SECRET = "plain-secret-value-123"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def credentials(user: str) -> dict[str, str]:
    """The user's credentials."""
    return {"user": user, "api_key": SECRET}


def _turn(i: int, name: str, **arguments: Any) -> ModelTurn:
    return ModelTurn(tool_calls=(ToolCall(id=f"c{i}", name=name, arguments=arguments),))


def _adder() -> Any:
    """The tree and script of the v1 fixture: two additions, then the answer."""
    tree = root("adder").do(react("q -> answer: int", tools=[add], id="agent"))
    model = ScriptedModel(_turn(0, "add", a=2, b=3), _turn(1, "add", a=5, b=4), "9")
    return tree, model


def _requests(events: Any) -> list[Any]:
    return [e for e in events if e.kind == EventKind.MODEL_REQUESTED]


def _dumped(messages: Any) -> list[dict[str, Any]]:
    return [m.model_dump(mode="json") for m in messages]


def test_a_react_run_records_each_request_s_new_messages_only(tmp_path: Path) -> None:
    tree, model = _adder()
    sink = JsonlTraceSink(tmp_path / "t.jsonl")
    tree.run(model=model, trace_sink=sink, q="2+3+4")
    sink.close()
    trace = read_events(tmp_path / "t.jsonl")
    assert verify_chain(trace) == [] and {e.schema_version for e in trace} == {SCHEMA_VERSION}
    first, second, third = _requests(trace)
    assert MESSAGES_FROM not in first.payload and len(first.payload["messages"]) == 1
    assert second.payload[MESSAGES_FROM] == {"event_id": first.event_id, "kept": 1}
    assert [m["role"] for m in second.payload["messages"]] == ["assistant", "tool"]
    assert third.payload[MESSAGES_FROM] == {"event_id": second.event_id, "kept": 3}
    for request, call in zip((first, second, third), model.calls, strict=True):
        assert request_messages(request, trace) == _dumped(call["messages"])
    (episode,) = trace.episodes
    assert [c.messages for c in episode.model_calls()] == [
        _dumped(c["messages"]) for c in model.calls
    ]


def test_a_v1_trace_still_reads_verifies_and_replays() -> None:
    trace = read_events(V1_TRACE)
    assert verify_chain(trace) == [] and {e.schema_version for e in trace} == {"jdsl.trace.v1"}
    requests = _requests(trace)
    assert [len(request_messages(r, trace)) for r in requests] == [1, 3, 5]
    assert all(request_messages(r) == r.payload["messages"] for r in requests)  # no trace needed
    tree, _ = _adder()
    replay = ReplayModel(V1_TRACE)
    ctx = tree.run(model=replay, q="2+3+4")
    assert ctx.blackboard["answer"] == 9 and replay.divergence is None and replay.remaining == 0


def test_a_v2_trace_rebuilds_the_lists_a_v1_trace_holds(tmp_path: Path) -> None:
    tree, model = _adder()
    sink = ListTraceSink()
    tree.run(model=model, trace_sink=sink, capture_id="cap_v1", episode_id="ep_v1", q="2+3+4")
    old = [request_messages(r, read_events(V1_TRACE)) for r in _requests(read_events(V1_TRACE))]
    assert [request_messages(r, sink) for r in _requests(sink.events)] == old


def test_replay_compares_the_whole_list_of_a_v2_request(tmp_path: Path) -> None:
    tree, model = _adder()
    sink = JsonlTraceSink(tmp_path / "t.jsonl")
    tree.run(model=model, trace_sink=sink, q="2+3+4")
    sink.close()
    replay = ReplayModel(tmp_path / "t.jsonl")
    assert tree.run(model=replay, q="2+3+4").blackboard["answer"] == 9
    assert replay.divergence is None and replay.remaining == 0

    def bad_add(a: int, b: int) -> int:
        """Add two integers, wrongly."""
        return a + b + 1

    bad_add.__name__ = "add"
    wrong = root("adder").do(react("q -> answer: int", tools=[bad_add], id="agent"))
    with pytest.raises(ReplayDivergence) as raised:
        wrong.run(model=ReplayModel(tmp_path / "t.jsonl"), q="2+3+4", raise_errors=True)
    divergence = raised.value.divergence
    assert divergence.call_index == 1 and divergence.message_index == 2  # the tool's result
    assert divergence.expected["content"] == "5" and divergence.actual["content"] == "6"


def test_a_secret_in_a_new_message_is_redacted_once_and_stays_hidden(tmp_path: Path) -> None:
    tree = root("t").do(react("user -> answer", tools=[credentials], id="agent"))
    model = ScriptedModel(_turn(0, "credentials", user="bob"), "done")
    path = tmp_path / "t.jsonl"
    sink = JsonlTraceSink(path)
    tree.run(model=model, trace_sink=sink, user="bob")
    sink.close()
    assert SECRET in json.dumps(_dumped(model.calls[1]["messages"]))  # the model saw it
    assert SECRET not in path.read_text()
    trace = read_events(path)
    last = _requests(trace)[-1]
    assert MESSAGES_FROM in last.payload
    whole = json.dumps(request_messages(last, trace), ensure_ascii=False)
    assert SECRET not in whole and "«redacted»" in whole


def test_large_new_messages_go_to_the_blob_store_and_come_back(tmp_path: Path) -> None:
    big = "x" * 100_000

    def fetch(q: str) -> str:
        """A long document."""
        return big

    tree = root("t").do(react("q -> answer", tools=[fetch], id="agent"))
    model = ScriptedModel(_turn(0, "fetch", q="a"), _turn(1, "fetch", q="b"), "done")
    path = tmp_path / "t.jsonl"
    sink = JsonlTraceSink(path)
    tree.run(model=model, trace_sink=sink, q="go")
    sink.close()
    assert path.stat().st_size < 60_000  # each result once, in the blob store
    trace = read_events(path)
    last = _requests(trace)[-1]
    assert [m["content"] for m in request_messages(last, trace) if m["role"] == "tool"] == [big] * 2
    loaded = read_events(path, resolve_blobs=True)
    assert request_messages(_requests(loaded)[-1], loaded) == request_messages(last, trace)
    shutil.rmtree(f"{path}.blobs")  # without its blob store, the results are gone: said so
    with pytest.raises(MissingBlobError, match=r"copy the trace's '\.blobs' directory"):
        request_messages(last, read_events(path))


def _request(event_id: str, messages: Any, reference: Any = None) -> dict[str, Any]:
    payload: dict[str, Any] = {"messages": messages}
    if reference is not None:
        payload[MESSAGES_FROM] = reference
    return {"kind": "model.requested", "event_id": event_id, "payload": payload}


@pytest.mark.parametrize(
    ("events", "problem"),
    [
        ([_request("b", [], {"event_id": "a", "kept": 1})], "not among the events given"),
        (
            [
                _request("a", ["x"], {"event_id": "b", "kept": 0}),
                _request("b", ["y"], {"event_id": "a", "kept": 1}),
            ],
            "cycle",
        ),
        ([_request("a", ["x"]), _request("b", [], {"event_id": "a", "kept": 2})], "keeps 2"),
        ([_request("b", [], {"event_id": "a", "kept": -1})], "expected"),
        ([_request("b", [], "a")], "expected"),
        ([_request("b", "not a list")], "not a list"),
        ([_request("b", {"$blob": "sha256:00", "bytes": 9})], "in the blob store"),
        ([{"kind": "model.responded", "event_id": "b", "payload": {}}], "sends no messages"),
    ],
)
def test_a_broken_reference_is_a_typed_error(events: list[Any], problem: str) -> None:
    with pytest.raises(RequestMessagesError, match=problem) as raised:
        request_messages(events[-1], events)
    assert isinstance(raised.value, JdslError) and isinstance(raised.value, ValueError)


def test_a_reader_fed_in_order_rebuilds_each_request_from_the_last() -> None:
    requests = RequestMessages()
    events = [_request("e0", [0])]
    events += [_request(f"e{i}", [i], {"event_id": f"e{i - 1}", "kept": i}) for i in range(1, 500)]
    for event in events:
        requests.add(event)
        assert len(requests.messages(event)) == int(event["event_id"][1:]) + 1
    assert requests.messages(events[-1]) == list(range(500))
    assert request_messages(events[250], events) == list(range(251))  # any, in any order


def test_a_long_text_is_scanned_once_and_still_hides_values_followed_later() -> None:
    redactor = Redactor()
    key = "sk-proj-" + "a" * 40
    prompt = "Policy. " * 100 + "Escalate with code hunter2-correct-horse. " + f"Key {key}. "
    first = redactor.redact({"system": prompt})["system"]
    assert key not in first and "hunter2-correct-horse" in first
    assert redactor.redact_text(prompt) is first  # remembered, not scanned again
    redactor.redact({"password": "hunter2-correct-horse"})  # now a followed secret
    hidden = redactor.redact({"system": prompt})["system"]
    assert "hunter2" not in hidden and "code «redacted»." in hidden and key not in hidden


def test_otel_model_spans_carry_each_request_s_whole_list() -> None:
    pytest.importorskip("opentelemetry.sdk")
    from jdsl.trace.otel import trace_spans

    tree, model = _adder()
    sink = ListTraceSink()
    tree.run(model=model, trace_sink=sink, q="2+3+4")
    spans = [s for s in trace_spans(sink.events, capture_content=True) if s.name.startswith("chat")]
    sent = [json.loads(s.attributes["gen_ai.input.messages"]) for s in spans]
    assert [len(m) for m in sent] == [1, 3, 5]
    assert [m["role"] for m in sent[-1]] == ["user", "assistant", "tool", "assistant", "tool"]
    assert json.loads(spans[-1].attributes["input.value"]) == request_messages(
        _requests(sink.events)[-1], sink
    )
    assert not any("jdsl.input.messages.partial" in s.attributes for s in spans)
    first = _requests(sink.events)[0]
    torn = [e for e in sink.events if e is not first]  # the first request was dropped
    chats = [s for s in trace_spans(torn, capture_content=True) if s.name.startswith("chat")]
    assert [s.attributes.get("jdsl.input.messages.partial") for s in chats] == [True, True]


def test_a_followed_secret_inside_an_event_id_does_not_break_the_reference(
    tmp_path: Path,
) -> None:
    def pin(user: str) -> str:
        """The user's PIN."""
        return "000000"  # followed once stored under "password": event ids hold 000000 too

    tree = root("t").do(
        seq(act(pin, user=ref("user")) >> "password", react("user -> answer", tools=[add]))
    )
    model = ScriptedModel(_turn(0, "add", a=1, b=2), _turn(1, "add", a=3, b=4), "done")
    path = tmp_path / "t.jsonl"
    sink = JsonlTraceSink(path)
    tree.run(model=model, trace_sink=sink, user="bob")
    sink.close()
    trace = read_events(path)
    requests = _requests(trace)
    assert "000000" in requests[-1].payload[MESSAGES_FROM]["event_id"]
    assert len(request_messages(requests[-1], trace)) == 5
    redactor = Redactor()
    redactor.redact({"password": "000000"})
    reference = {"event_id": "ab000000", "kept": 2}
    assert redactor.redact({MESSAGES_FROM: reference, "x": "000000"}) == {
        MESSAGES_FROM: reference,
        "x": "«redacted»",
    }
    assert redactor.redact({MESSAGES_FROM: "000000"}) == {MESSAGES_FROM: "«redacted»"}
