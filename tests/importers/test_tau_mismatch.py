"""tau-bench files that do not say what jdsl would assume: call arguments that are not JSON,
a ``--domain`` the calls contradict, rewards outside tau-bench's 0-1 range."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jdsl.envs.data import data_path
from jdsl.importers import ImportFormatError, ImportSkipWarning, read_tau_bench

SLICE = Path(__file__).parents[1] / "fixtures" / "tau_bench" / "gpt-4o-airline.slice.json"


def _rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(SLICE.read_text(encoding="utf-8"))
    return rows


def _write(tmp_path: Path, rows: list[Any]) -> Path:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def _broken_arguments(row: dict[str, Any]) -> dict[str, Any]:
    bad = copy.deepcopy(row)
    for message in bad["traj"]:
        for call in message.get("tool_calls") or ():
            call["function"]["arguments"] = '{"reservation_id": '
            return bad
    raise AssertionError("the run makes no call")


def test_call_arguments_that_are_not_json_skip_the_run_naming_the_call(tmp_path: Path) -> None:
    rows = _rows()
    at = next(i for i, r in enumerate(rows) if any(m.get("tool_calls") for m in r["traj"]))
    rows[at] = _broken_arguments(rows[at])
    with pytest.warns(ImportSkipWarning, match=r"arguments are not JSON.*reservation_id"):
        found = read_tau_bench(_write(tmp_path, rows))
    assert len(found.skipped) == 1 and found.skipped[0].index == at
    assert found.skipped[0].field.startswith("traj.")
    for conversation in found.conversations:
        for turn in conversation.turns:
            for call in getattr(turn, "calls", ()):
                assert "_raw_arguments" not in call.arguments
    with pytest.raises(ImportFormatError, match="arguments are not JSON"):
        read_tau_bench(_write(tmp_path, rows), strict=True)


def test_a_domain_the_calls_contradict_is_refused() -> None:
    raw = data_path("tau_airline", "raw", "gpt-4o-airline.dev.json")
    with pytest.raises(ImportFormatError, match=r"airline.*--domain retail"):
        read_tau_bench(raw, domain="retail")
    assert len(read_tau_bench(raw, domain="airline").conversations) == 87


@pytest.mark.parametrize("reward", [2.0, -1.0, 1.5])
def test_a_reward_outside_zero_to_one_is_refused(tmp_path: Path, reward: float) -> None:
    rows = _rows()
    rows[0]["reward"] = reward
    with pytest.warns(ImportSkipWarning, match=r"reward.*between 0 and 1"):
        found = read_tau_bench(_write(tmp_path, rows))
    assert [s.index for s in found.skipped] == [0]
