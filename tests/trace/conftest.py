"""Fixtures for trace tests: a tiny hand-built episode with every view-relevant event kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from jdsl.trace import EventKind, ListTraceSink, TraceEvent, TraceSink

Emit = Callable[..., TraceEvent]


@pytest.fixture
def emit_into() -> Callable[[TraceSink, str], Emit]:
    """``emit_into(sink, episode_id)(kind, payload, actor=..., parent=...)``."""

    def bind(sink: TraceSink, episode_id: str = "ep_1") -> Emit:
        def emit(
            kind: str,
            payload: dict[str, Any] | None = None,
            *,
            actor: Any = "system",
            parent: TraceEvent | None = None,
        ) -> TraceEvent:
            event = TraceEvent(
                kind=kind,
                capture_id="cap_test",
                episode_id=episode_id,
                payload=payload or {},
                actor=actor,
                parent_event_id=parent.event_id if parent else None,
            )
            return sink.emit(event)

        return emit

    return bind


@pytest.fixture
def write_episode(emit_into: Callable[[TraceSink, str], Emit]) -> Callable[..., None]:
    """Emit a small episode: a stored lookup, a predict writing selected_index, a reward."""

    def write(sink: TraceSink, episode_id: str = "ep_1", *, reward: float = 1.0) -> None:
        emit = emit_into(sink, episode_id)
        tool = {"host_name": "lookup", "logical_id": None}
        emit(
            EventKind.EPISODE_STARTED,
            {
                "skill": "cancel",
                "inputs": {"email": "a@x.com"},
                "ir": {"kind": "root"},
                "model_id": "fake",
            },
        )
        start = emit(
            EventKind.TOOL_CALL_STARTED,
            {"node_id": "a", "store": "customer", "tool": tool, "arguments": {"email": "a@x.com"}},
            actor="model",
        )
        emit(
            EventKind.TOOL_CALL_COMPLETED,
            {"node_id": "a", "store": "customer", "tool": tool, "result": {"id": "U1"}},
            actor="tool",
            parent=start,
        )
        emit(
            EventKind.BLACKBOARD_WRITE,
            {"key": "customer", "value": {"id": "U1"}, "writer": "a", "overwrote": False},
        )
        request = emit(
            EventKind.MODEL_REQUESTED,
            {"node_id": "p", "kind": "predict", "messages": [{"role": "user", "content": "hi"}]},
            actor="model",
        )
        emit(
            EventKind.MODEL_RESPONDED,
            {
                "node_id": "p",
                "kind": "predict",
                "raw_output": "1",
                "usage": {"input_tokens": 5, "output_tokens": 1},
            },
            actor="model",
            parent=request,
        )
        emit(EventKind.BLACKBOARD_WRITE, {"key": "selected_index", "value": 1, "writer": "p"})
        emit(EventKind.ENVIRONMENT_REWARD, {"reward": reward}, actor="environment")
        emit(
            EventKind.EPISODE_FINISHED,
            {"skill": "cancel", "status": "success", "error_type": None, "error_message": None},
        )

    return write


@pytest.fixture
def list_sink() -> ListTraceSink:
    return ListTraceSink()
