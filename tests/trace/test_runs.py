"""Traced runs of real trees: crash safety (issue 3 item 2) and the retail scenario (§5.10)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from jdsl import dsl, tree
from jdsl.envs.fixtures import retail_fixture_tools, retail_teacher
from jdsl.providers.messages import ModelTurn, Usage
from jdsl.testing import ScriptedModel
from jdsl.trace import FanoutSink, JsonlTraceSink, ListTraceSink, read_events, verify_chain


def _retail_root() -> Any:
    """The §5.10 teacher: lookup -> list_orders -> predict the target -> get_order."""
    return retail_teacher()


def test_the_retail_scenario_reads_back_verified_and_splits_into_episodes(tmp_path: Path) -> None:
    path = tmp_path / "captures" / "retail.jsonl"
    sink = JsonlTraceSink(path)
    for i in range(3):
        ctx = _retail_root().run(
            model=ScriptedModel(ModelTurn(text="1", usage=Usage(input_tokens=40, output_tokens=1))),
            trace_sink=sink, capture_id="cap_test", episode_id=f"ep_{i}",
            tools=retail_fixture_tools(i), email=f"c{i}@x.com", request="cancel my order",
        )  # fmt: skip
        assert ctx.blackboard["order"]["id"] == f"#W{i}1"

    trace = read_events(path)
    assert verify_chain(trace) == []
    episodes = trace.episodes
    assert [e.episode_id for e in episodes] == ["ep_0", "ep_1", "ep_2"]
    for i, episode in enumerate(episodes):
        assert episode.status == "success" and episode.succeeded() is True
        assert episode.inputs == {"email": f"c{i}@x.com", "request": "cancel my order"}
        assert episode.ir is not None and episode.ir["kind"] == "root"
        calls = episode.tool_calls()
        assert [c.name for c in calls] == ["lookup", "list_orders", "get_order"]
        assert calls[1].arguments == {"customer_id": f"U{i}"} and all(c.ok for c in calls)
        assert calls[2].result["id"] == f"#W{i}1" and calls[2].result["status"] == "pending"
        (model_call,) = episode.model_calls()
        assert model_call.request["messages"] and model_call.usage["input_tokens"] == 40
        board = episode.final_blackboard()
        assert board["selected_index"] == 1 and board["order"]["id"] == f"#W{i}1"
    pd = pytest.importorskip("pandas")
    frame = trace.to_pandas()
    assert isinstance(frame, pd.DataFrame) and len(frame) == len(trace)
    assert set(frame[frame["kind"] == "tool.call.started"]["tool"]) == {
        "lookup",
        "list_orders",
        "get_order",
    }


def _crashing_root(boom: Any) -> Any:
    root = tree.Root(
        name="crashy",
        child=tree.Sequence(
            children=[
                tree.Action(tool="first", store="a"),
                tree.Action(tool="boom"),
                tree.Action(tool="never"),
            ]
        ),
    )
    return root.bind(tools={"first": lambda: {"ok": 1}, "boom": boom, "never": lambda: None})


def _read_back(path: Path, memory: ListTraceSink) -> Any:
    trace = read_events(path)
    assert verify_chain(trace) == []
    assert [e.event_hash for e in trace] == [e.event_hash for e in memory.events]  # none lost
    return trace


@pytest.mark.parametrize("raise_errors", [True, False])
def test_a_tool_exception_still_writes_episode_finished(tmp_path: Path, raise_errors: bool) -> None:
    def boom() -> None:
        raise ValueError("inventory service is down")

    path, memory = tmp_path / "run.jsonl", ListTraceSink()
    sink = FanoutSink(JsonlTraceSink(path), memory)
    if raise_errors:
        with pytest.raises(ValueError, match="inventory service is down"):
            _crashing_root(boom).run(trace_sink=sink)
    else:
        ctx = _crashing_root(boom).run(trace_sink=sink, raise_errors=False)
        assert isinstance(ctx.error, ValueError)
    trace = _read_back(path, memory)
    assert trace[-1].kind == "episode.finished"
    assert trace[-1].payload == {
        "skill": "crashy",
        "status": "error",
        "error_type": "ValueError",
        "error_message": "inventory service is down",
        "failure": {
            "node_id": "root/sequence.0/action.1",
            "label": "act(boom)",
            "reason": "raised ValueError: inventory service is down",
        },
    }
    (episode,) = trace.episodes
    first, failed = episode.tool_calls()
    assert first.ok and first.result == {"ok": 1}
    assert not failed.ok and failed.error_type == "ValueError"
    assert episode.final_blackboard() == {"a": {"ok": 1}}
    assert episode.succeeded() is False


def test_a_keyboard_interrupt_writes_episode_finished_cancelled(tmp_path: Path) -> None:
    def boom() -> None:
        raise KeyboardInterrupt

    path, memory = tmp_path / "run.jsonl", ListTraceSink()
    with pytest.raises(KeyboardInterrupt):
        _crashing_root(boom).run(trace_sink=FanoutSink(JsonlTraceSink(path), memory))
    trace = _read_back(path, memory)
    finished = trace.episodes[0].finished
    assert finished["status"] == "cancelled" and finished["error_type"] == "KeyboardInterrupt"
    kinds = [e.kind for e in trace]
    assert kinds[0] == "episode.started" and kinds[-1] == "episode.finished"
    assert "tool.call.completed" in kinds  # the first tool's result is on disk
    assert not any(e.payload.get("tool", {}).get("host_name") == "never" for e in trace)


def _killed_run(path: Path, sink_options: str) -> subprocess.CompletedProcess[str]:
    """A run that ``os._exit``s inside its second tool, traced to ``path``."""
    script = textwrap.dedent(
        f"""
        import os
        from jdsl.trace import JsonlTraceSink
        from jdsl.tree import Action, Root, Sequence

        def die():
            os._exit(3)  # no finally, no atexit, no buffer flush

        root = Root(name="killed", child=Sequence(children=[
            Action(tool="first", store="a"), Action(tool="die")]))
        root.bind(tools={{"first": lambda: "kept", "die": die}})
        root.run(trace_sink=JsonlTraceSink({str(path)!r}, {sink_options}))
        """
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)  # fmt: skip


def test_a_process_killed_mid_run_keeps_every_event_already_emitted(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    done = _killed_run(path, "flush_interval_s=0")  # the opt-in per-event durability
    assert done.returncode == 3, done.stderr
    trace = read_events(path)
    assert verify_chain(trace) == []
    kinds = [e.kind for e in trace]
    assert kinds[-1] == "tool.call.started" and trace[-1].payload["tool"]["host_name"] == "die"
    assert trace.episodes[0].final_blackboard() == {"a": "kept"}
    assert trace.episodes[0].status is None  # never finished, and readers say so


def test_a_hard_kill_loses_only_the_buffered_tail_and_leaves_an_intact_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text("")
    done = _killed_run(path, "flush_events=3")  # default interval; a write every 3 events
    assert done.returncode == 3, done.stderr
    trace = read_events(path)  # whole lines only: strict reading succeeds
    assert len(trace) % 3 == 0 and len(trace) >= 3
    assert verify_chain(trace) == []
    assert trace[0].kind == "episode.started"


def test_a_traced_run_is_freed_with_its_context_without_the_cyclic_gc() -> None:
    """No reference cycle holds a traced run: dropping the context frees its sink and events
    at once (a cycle would keep every run's events until a full collection)."""
    import gc
    import weakref

    root = dsl.root("r").do(dsl.seq(dsl.store(dsl.act("lookup", email=dsl.ref("e")), "c")))
    root.bind(tools={"lookup": lambda email: {"id": email}})
    gc.collect()
    gc.disable()
    try:
        sink = ListTraceSink()
        ctx = root.run(trace_sink=sink, e="a@b")
        assert [e.kind for e in sink.events].count("blackboard.write") == 1
        alive = weakref.ref(sink)
        del sink, ctx
        assert alive() is None
    finally:
        gc.enable()
