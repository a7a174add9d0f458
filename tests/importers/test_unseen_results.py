"""Results files written as other models and tau-bench versions write them (bench/unseen_files.py).

Each test is one way a real file differs from the shipped gpt-4o one that broke the importer.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jdsl.importers import ImportSkipWarning, read_tau_bench
from jdsl.importers.conversation import AssistantTurn

SLICE = Path(__file__).parents[1] / "fixtures" / "tau_bench" / "gpt-4o-airline.slice.json"


def _rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(SLICE.read_text(encoding="utf-8"))
    return rows


def _write(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def _calls(path: Path) -> list[list[tuple[str, str | None]]]:
    """(tool, result) of every call, per run."""
    return [
        [(c.name, c.result) for t in conv.turns if isinstance(t, AssistantTurn) for c in t.calls]
        for conv in read_tau_bench(path).conversations
    ]


def test_blank_call_ids_pair_each_result_with_its_call(tmp_path: Path) -> None:
    """Model servers that give every call the id "" (tau-bench copies it to the tool message's
    tool_call_id): every run is imported, each call with its own result."""
    rows = _rows()
    blank = copy.deepcopy(rows)
    for row in blank:
        for m in row["traj"]:
            for c in m.get("tool_calls") or ():
                c["id"] = ""
            if m["role"] == "tool":
                m["tool_call_id"] = ""
    found = read_tau_bench(_write(tmp_path, blank))
    assert not found.skipped
    assert _calls(_write(tmp_path, blank)) == _calls(_write(tmp_path, rows))


@pytest.mark.parametrize("blank", ["", None])
def test_parallel_calls_without_ids_take_their_results_in_call_order(
    tmp_path: Path, blank: str | None
) -> None:
    """Two calls of one tool in one message, answered by tool messages without ids (``""`` or
    none), in call order: the first result belongs to the first call."""
    row = copy.deepcopy(_rows()[0])
    head = [m for m in row["traj"] if m["role"] in ("system", "user")][:2]
    fn = {"name": "get_reservation_details"}
    row["traj"] = [
        *head,
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "", "type": "function", "function": {**fn, "arguments": '{"reservation_id": "A"}'}},
            {"id": "", "type": "function", "function": {**fn, "arguments": '{"reservation_id": "B"}'}},
        ]},
        {"role": "tool", "tool_call_id": "", "name": fn["name"], "content": "result of A"},
        {"role": "tool", "tool_call_id": "", "name": fn["name"], "content": "result of B"},
        {"role": "assistant", "content": "Done."},
    ]  # fmt: skip
    for m in row["traj"]:
        for c in m.get("tool_calls") or ():
            c["id"] = blank
        if m["role"] == "tool":
            m["tool_call_id"] = blank
    assert _calls(_write(tmp_path, [row])) == [
        [("get_reservation_details", "result of A"), ("get_reservation_details", "result of B")]
    ]


def test_a_run_without_info_task_states_the_user_id_its_user_said(tmp_path: Path) -> None:
    """Other tau-bench revisions write ``info`` without ``task`` (or no ``info``): the user id
    the user states, and the calls pass, is still the run's input, as with ``info.task``."""
    rows = _rows()
    with_task = [c.inputs for c in read_tau_bench(_write(tmp_path, rows)).conversations]
    assert any(with_task)
    for k, row in enumerate(rows):
        if k % 2:
            row.pop("info")
        else:
            del row["info"]["task"]["user_id"]
    without = [c.inputs for c in read_tau_bench(_write(tmp_path, rows)).conversations]
    assert without == with_task


def test_a_call_tau_bench_never_ran_is_not_imported(tmp_path: Path) -> None:
    """tau-bench before it cut ``tool_calls`` to the first: a message asking for two calls
    kept both, but only the first ran (one tool message answers it). The second never ran, so
    it is no call of the run (the run made it again later, or never)."""
    rows = _rows()
    asked = copy.deepcopy(rows)
    for row in asked:
        calls = [m for m in row["traj"] if m.get("tool_calls")]
        for this, after in zip(calls, calls[1:], strict=False):
            extra = {**after["tool_calls"][0], "id": after["tool_calls"][0]["id"] + "x"}
            this["tool_calls"] = [*this["tool_calls"], extra]
    assert _calls(_write(tmp_path, asked)) == _calls(_write(tmp_path, rows))


def test_a_run_tau_bench_recorded_as_an_error_is_skipped_naming_the_error(
    tmp_path: Path,
) -> None:
    """run.py writes a run whose agent raised (a rate limit, a timeout) as ``reward 0.0,
    info {error, traceback}, traj []``: it never ran, so it is skipped with a warning that
    says so, not "cannot tell the domain ... pass --domain"."""
    rows = _rows()
    error = {"error": "litellm.RateLimitError: rate limit exceeded", "traceback": "Traceback"}
    rows.append({"task_id": 1, "reward": 0.0, "info": error, "traj": [], "trial": 9})
    with pytest.warns(ImportSkipWarning, match="rate limit exceeded") as caught:
        found = read_tau_bench(_write(tmp_path, rows))
    assert len(found.skipped) == 1 and found.skipped[0].field == "info.error"
    assert "--domain" not in str(caught[0].message) and "rerun" in found.skipped[0].message
