"""Issue 26 (quadratic paths): a long tau-bench run imports in time and bytes linear in its
turns. Every ``model.requested`` carried the whole conversation so far, so a run of 1,000
turns took 24 s and wrote 118 MB; each request now records only its new messages."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jdsl.commands.imports import import_app
from jdsl.trace import EventKind, read_events, request_messages, verify_chain
from typer.testing import CliRunner

SLICE = Path(__file__).parents[1] / "fixtures" / "tau_bench" / "gpt-4o-airline.slice.json"


def long_run(turns: int) -> list[dict[str, Any]]:
    """A tau-bench results file of one tool-calling run with ``turns`` assistant turns: a
    lookup and its result, then an answer and the user's next question, in turn."""
    run = copy.deepcopy(json.loads(SLICE.read_text())[0])
    traj = [run["traj"][0], {"role": "user", "content": "Hi, please look at reservation XEWRD9."}]
    for i in range(turns):
        if i % 2 == 0:
            call = {"function": {"arguments": '{"reservation_id": "XEWRD9"}',
                                 "name": "get_reservation_details"},
                    "id": f"call_{i:06d}", "type": "function"}  # fmt: skip
            result = {"reservation_id": "XEWRD9", "user_id": "james_lee_6136", "turn": i}
            traj += [
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": call["id"], "name": call["function"]["name"],
                 "content": json.dumps(result)},
            ]  # fmt: skip
        else:
            traj += [
                {"role": "assistant", "content": f"Here is what I found ({i}). Anything else?"},
                {"role": "user", "content": f"Yes, please check it again ({i})."},
            ]
    run["traj"] = traj
    return [run]


def _bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _importer(tmp_path: Path) -> tuple[Callable[[int], None], dict[int, int]]:
    """``(run(turns), sizes)``: ``run`` imports a ``turns``-turn run into a fresh folder and
    notes the bytes written (trace and blobs) in ``sizes``."""
    sources: dict[int, Path] = {}
    sizes: dict[int, int] = {}

    def run(turns: int) -> None:
        if turns not in sources:
            sources[turns] = tmp_path / f"run{turns}.json"
            sources[turns].write_text(json.dumps(long_run(turns)))
        out = tmp_path / f"out{turns}"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        result = CliRunner().invoke(
            import_app, ["tau-bench", str(sources[turns]), "-o", str(out / "trace.jsonl")]
        )
        assert result.exit_code == 0, result.output
        sizes[turns] = _bytes(out)

    return run, sizes


def test_a_long_run_reads_back_whole(tmp_path: Path) -> None:
    run, _ = _importer(tmp_path)
    run(40)
    trace = read_events(tmp_path / "out40" / "trace.jsonl")
    assert verify_chain(trace) == []
    (episode,) = trace.episodes
    requests = episode.of_kind(EventKind.MODEL_REQUESTED)
    assert len(requests) == 40
    last = request_messages(requests[-1], trace)
    assert len(last) == 1 + 2 * 39  # the question, then 39 turns and their results / replies
    assert [m["role"] for m in last[:5]] == ["user", "assistant", "tool", "assistant", "user"]
    assert last[-1]["role"] == "tool" and json.loads(last[-1]["content"])["turn"] == 38
    assert all(len(r.payload["messages"]) <= 2 for r in requests[1:])


@pytest.mark.slow
def test_a_4x_longer_run_takes_at_most_5x_the_time_and_bytes(
    tmp_path: Path, growth: Callable[..., float]
) -> None:
    run, sizes = _importer(tmp_path)
    # linear is about 4 (4.09 measured idle), quadratic 16; the bound is generous as in the
    # other growth tests, the machine is shared (whole conversations: 250 turns 31 s, 1,000 418 s)
    assert growth(run, 100) < 10
    assert sizes[400] <= 5 * sizes[100]  # whole conversations: 14.6 MB, 205 MB
