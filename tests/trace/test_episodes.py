"""Episodes and their views: tool calls, model calls, blackboard states, outcome."""

from __future__ import annotations

from jdsl.trace import EventKind, ListTraceSink, segment_episodes


def test_segment_episodes_groups_in_first_seen_order(list_sink, write_episode) -> None:
    write_episode(list_sink, "ep_b")
    write_episode(list_sink, "ep_a")
    episodes = segment_episodes(list_sink.events)
    assert [e.episode_id for e in episodes] == ["ep_b", "ep_a"]
    assert all(len(e) == 9 for e in episodes)
    assert episodes[0].capture_id == "cap_test"


def test_started_payload_views(list_sink, write_episode) -> None:
    write_episode(list_sink)
    episode = segment_episodes(list_sink.events)[0]
    assert episode.skill == "cancel"
    assert episode.inputs == {"email": "a@x.com"}
    assert episode.ir == {"kind": "root"}
    assert episode.status == "success"


def test_tool_calls_pair_start_and_completion(list_sink, write_episode) -> None:
    write_episode(list_sink)
    (call,) = segment_episodes(list_sink.events)[0].tool_calls()
    assert call.name == "lookup" and call.host_name == "lookup" and call.logical_id is None
    assert call.arguments == {"email": "a@x.com"}
    assert call.result == {"id": "U1"} and call.ok and call.finished
    assert (call.node_id, call.store, call.sequence) == ("a", "customer", 1)


def test_tool_calls_pair_by_parent_even_when_interleaved(emit_into) -> None:
    sink = ListTraceSink()
    emit = emit_into(sink, "ep")
    first = emit(EventKind.TOOL_CALL_STARTED, {"tool": {"host_name": "a"}, "arguments": {"x": 1}})
    second = emit(EventKind.TOOL_CALL_STARTED, {"tool": "b", "arguments": {}})
    emit(EventKind.TOOL_CALL_COMPLETED, {"tool": {"host_name": "a"}, "result": 1}, parent=first)
    emit(EventKind.TOOL_CALL_FAILED, {"tool": "b", "error": "boom", "error_type": "ValueError"},
         parent=second)  # fmt: skip
    a, b = segment_episodes(sink.events)[0].tool_calls()
    assert (a.name, a.ok, a.result) == ("a", True, 1)
    assert (b.name, b.ok, b.error, b.error_type) == ("b", False, "boom", "ValueError")


def test_unlinked_end_closes_the_last_open_call_and_unfinished_calls_show(emit_into) -> None:
    sink = ListTraceSink()
    emit = emit_into(sink, "ep")
    emit(EventKind.TOOL_CALL_STARTED, {"tool": {"host_name": "a"}})
    emit(EventKind.TOOL_CALL_STARTED, {"tool": {"host_name": "b"}})
    emit(EventKind.TOOL_CALL_COMPLETED, {"result": "for b"})  # no parent_event_id
    a, b = segment_episodes(sink.events)[0].tool_calls()
    assert (b.name, b.result, b.finished) == ("b", "for b", True)
    assert (a.name, a.ok, a.finished) == ("a", False, False)


def test_model_calls_pair_requests_with_responses(list_sink, write_episode) -> None:
    write_episode(list_sink)
    (call,) = segment_episodes(list_sink.events)[0].model_calls()
    assert call.node_id == "p"
    assert call.request["messages"] == [{"role": "user", "content": "hi"}]
    assert call.response is not None and call.response["raw_output"] == "1"
    assert call.usage == {"input_tokens": 5, "output_tokens": 1}


def test_blackboard_states_are_cumulative(list_sink, write_episode) -> None:
    write_episode(list_sink)
    episode = segment_episodes(list_sink.events)[0]
    states = episode.blackboard_states()
    assert states == [
        (3, {"customer": {"id": "U1"}}),
        (6, {"customer": {"id": "U1"}, "selected_index": 1}),
    ]
    assert episode.final_blackboard() == states[-1][1]
    assert episode.final_blackboard(include_inputs=True)["email"] == "a@x.com"


def test_outcome_and_success_from_reward(list_sink, write_episode) -> None:
    write_episode(list_sink, "good", reward=1.0)
    write_episode(list_sink, "bad", reward=0.0)
    good, bad = segment_episodes(list_sink.events)
    assert good.outcome() == {"reward": 1.0} and good.succeeded() is True
    assert bad.succeeded() is False  # the reward outranks the "success" status


def test_success_from_verdict_then_status_then_unknown(emit_into) -> None:
    sink = ListTraceSink()
    emit_into(sink, "v")(EventKind.ENVIRONMENT_VERDICT, {"verdict": "PASS"})
    emit_into(sink, "s")(EventKind.EPISODE_FINISHED, {"status": "error", "error_type": "X"})
    emit_into(sink, "n")(EventKind.EPISODE_STARTED, {"skill": "x"})
    verdict, status, unknown = segment_episodes(sink.events)
    assert verdict.succeeded() is True
    assert status.succeeded() is False and status.finished["error_type"] == "X"
    assert unknown.succeeded() is None and unknown.outcome() is None and unknown.status is None


def test_control_episodes_are_marked(emit_into) -> None:
    sink = ListTraceSink()
    emit_into(sink, "_capture")(EventKind.CAPTURE_STARTED)
    (episode,) = segment_episodes(sink.events)
    assert episode.is_control and sink.events[0].is_control()
