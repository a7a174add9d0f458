"""Intent families: runs grouped by what they change (their ordered writes), named for it."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.cli import app
from jdsl.compiler import compile_behavior, group_episodes, normalize_all
from jdsl.compiler.families import family_members, intent_writes, is_write, recommended_grouping
from jdsl.importers import import_tau_bench
from jdsl.trace import JsonlTraceSink
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402

FIXTURES = Path(__file__).parents[1] / "fixtures" / "tau_bench"


def _raw(eid: str, *tools: str, **meta: Any) -> dict[str, Any]:
    b = EpisodeBuilder(eid, inputs={"user_id": "u1"}, **meta)
    for k, tool in enumerate(tools):
        b.call(tool, {"ok": k}, store=f"r{k}", n=k)
    return b.done(True)


def _episode(eid: str, *tools: str, **meta: Any) -> Any:
    return normalize_all([_raw(eid, *tools, **meta)])[0]


def test_reads_do_not_split_a_family_and_repeats_of_one_write_collapse() -> None:
    runs = [
        _episode("a", "get_user", "cancel_order", domain="retail"),
        _episode("b", "get_user", "get_order", "get_order", "cancel_order", domain="retail"),
        _episode("c", "cancel_order", "cancel_order", domain="retail"),  # two orders: one intent
        _episode("d", "get_user", "cancel_order", "update_address", domain="retail"),
        _episode("e", "get_user", "think", domain="retail"),
    ]
    families = dict(group_episodes(runs, "intent"))
    assert sorted(families) == ["retail.cancel_order", "retail.cancel_order+update_address",
                                "retail.no_write"]  # fmt: skip
    assert [e.episode_id for e in families["retail.cancel_order"]] == ["a", "b", "c"]
    assert intent_writes(runs[3]) == ("cancel_order", "update_address")


def test_the_domain_comes_from_the_capabilities_namespace_else_the_metadata_else_the_skill() -> (
    None
):
    b = EpisodeBuilder("n", inputs={})
    b.call("cancel_pending_order", {"ok": 1}, order_id="#1")
    spaced = normalize_all(
        [b.done(True)], canonical={"cancel_pending_order": "retail.cancel_pending_order"}
    )
    assert [k for k, _ in group_episodes(spaced, "intent")] == ["retail.cancel_pending_order"]
    assert [k for k, _ in group_episodes([_episode("s", "book_trip")], "intent")] == [
        "hand.book_trip"
    ]


def test_a_contract_decides_what_writes() -> None:
    assert is_write("cancel_order") and not is_write("get_order")
    assert not is_write("cancel_order", {"cancel_order": {"read_only": True}})
    run = _episode("x", "lookup", "frobnicate", domain="d")
    assert [k for k, _ in group_episodes([run], "intent")] == ["d.no_write"]
    effects = {"frobnicate": {"read_only": False}}
    assert [k for k, _ in group_episodes([run], "intent", effects=effects)] == ["d.frobnicate"]


def test_group_by_rejects_an_unknown_grouping() -> None:
    with pytest.raises(ValueError, match="'intent', 'task' or 'sequence'"):
        group_episodes([], "tasks")  # type: ignore[arg-type]


def _write(tmp_path: Path, rows: list[Any], name: str) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def test_tau_bench_families_never_depend_on_the_instruction_text(tmp_path: Path) -> None:
    rows = json.loads((FIXTURES / "gpt-4o-airline.slice.json").read_text(encoding="utf-8"))
    changed = copy.deepcopy(rows)
    for row in changed:  # a later tau-bench version reworded every task
        row["info"]["task"]["instruction"] = "Reworded: " + row["info"]["task"]["instruction"]
    before = normalize_all(import_tau_bench(_write(tmp_path, rows, "a.json")).episodes)
    after = normalize_all(import_tau_bench(_write(tmp_path, changed, "b.json")).episodes)
    assert recommended_grouping(before) == "intent"
    # the episode ids name the task's split when the shipped tasks.json has that instruction;
    # the families do not: the same runs (task, trial) land in the same family by the same name
    grouped = [[(k, [(e.metadata["task_id"], e.metadata["trial"]) for e in v])
                for k, v in group_episodes(runs, "intent")] for runs in (before, after)]  # fmt: skip
    assert grouped[0] == grouped[1]
    names = [k for k, _ in grouped[0]]
    assert all(k.startswith("airline.") for k in names) and "airline.no_write" in names
    assert not any("test" in k or "_1" in k for k in names)


def test_compile_behavior_groups_by_intent() -> None:
    runs = [_raw(f"c{i}", "get_user", "cancel_order", domain="shop") for i in range(3)]
    runs += [_raw(f"n{i}", "get_user", domain="shop") for i in range(2)]
    families = compile_behavior(runs, name="", group_by="intent")
    assert sorted(families.results) == ["shop.cancel_order", "shop.no_write"]
    assert [len(v) for v in families.members.values()] == [3, 2] and not families.refused


def test_jdsl_compile_groups_tau_bench_runs_by_intent_unless_told(tmp_path: Path) -> None:
    traces = tmp_path / "slice.jsonl"
    import_tau_bench(
        FIXTURES / "gpt-4o-airline.slice.json", sink=JsonlTraceSink(traces, resume=False)
    )
    runner = CliRunner()
    out = tmp_path / "pk"
    result = runner.invoke(app, ["compile", str(traces), "-o", str(out)])
    assert "grouping by intent" in result.stderr, result.output
    assert (out / "airline.transfer_to_human_agents.jdsl").exists()
    existing = tmp_path / "x.jdsl"
    existing.write_text("")
    file = runner.invoke(app, ["compile", str(traces), "-o", str(existing)])
    assert (
        file.exit_code == 1 and "pass a directory, e.g. -o packages/, or --group-by" in file.output
    )
    held = runner.invoke(app, ["compile", str(traces), "--group-by", "intent", "--holdout", "1",
                               "-o", str(tmp_path / "h")])  # fmt: skip
    header = held.stdout.splitlines()[0].split()
    assert header[:9] == ["family", "ok/runs", "verify", "held", "served", "matched", "unrepl",
                          "fallback", "refused"], held.output  # fmt: skip
    assert "airline.transfer_to_human_agents" in held.stdout


def test_family_members_finds_a_family_under_the_grouping_that_names_it_else_every_run() -> None:
    runs = [_episode("a", "get_user", "cancel_order", domain="retail"),
            _episode("b", "get_user", "think", domain="retail")]  # fmt: skip
    members, by = family_members(runs, "retail.cancel_order")
    assert ([e.episode_id for e in members], by) == (["a"], "intent")
    members, by = family_members(runs, "a family no grouping names")
    assert ([e.episode_id for e in members], by) == (["a", "b"], None)
