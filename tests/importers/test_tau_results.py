"""tau-bench's own results files: tool-calling, act and react runs, failed runs, bad runs."""

from __future__ import annotations

import copy
import json
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from jdsl.commands.imports import import_app
from jdsl.envs.data import data_path
from jdsl.errors import InputError
from jdsl.importers import (
    ImportFormatError,
    ImportSkipWarning,
    import_tau_bench,
    read_tau_bench,
)
from jdsl.trace import EventKind, Trace
from typer.testing import CliRunner

FIXTURES = Path(__file__).parents[1] / "fixtures" / "tau_bench"
SLICE = FIXTURES / "gpt-4o-airline.slice.json"
RAW = Path(str(data_path("tau_airline", "raw", "gpt-4o-airline.dev.json")))


def _rows(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return rows


def _calls(trace: Trace) -> list[tuple[str, str, dict[str, Any], str]]:
    """(episode, tool, arguments, how it ended) of every call."""
    ended = {
        e.parent_event_id: e.kind
        for e in trace
        if e.kind.startswith("tool.call.") and e.parent_event_id
    }
    return [
        (e.episode_id, e.payload["tool"]["host_name"], e.payload["arguments"], ended[e.event_id])
        for e in trace
        if e.kind == EventKind.TOOL_CALL_STARTED
    ]


def test_the_real_results_file_imports_every_run_with_its_reward() -> None:
    found = read_tau_bench(RAW)
    assert len(found.conversations) == 87 and found.succeeded == 54 and not found.skipped
    assert found.formats == {"results": 87} and found.strategies == {"tool-calling": 87}
    assert found.summary() == "87 runs (54 succeeded, 33 failed; tool-calling 87), 0 skipped"
    ours = {
        c.episode_id
        for c in read_tau_bench(data_path("tau_airline", "episodes.json")).conversations
    }
    assert {c.episode_id for c in found.conversations if c.reward == 1.0} == ours
    first = found.conversations[0]
    assert (
        first.metadata["task_family"] == "airline_test_1" and first.metadata["task_split"] == "test"
    )
    assert first.metadata["agent_strategy"] == "tool-calling" and first.reward == 0.0
    assert first.system.startswith("# Airline Agent Policy")


def test_a_failed_run_ends_failed_with_its_reward() -> None:
    trace = import_tau_bench(SLICE)
    episode = trace.episode("tau_airline_test_1_0")
    reward = [e.payload for e in episode if e.kind == EventKind.ENVIRONMENT_REWARD]
    assert reward == [{"reward": 0.0, "passed": False}] and episode.succeeded() is False
    assert episode.events[-1].payload["status"] == "failure"


@pytest.mark.parametrize("strategy", ["act", "react"])
def test_act_and_react_runs_import_the_same_calls_as_tool_calling(strategy: str) -> None:
    path = FIXTURES / f"{strategy}-airline.json"
    found = read_tau_bench(path)
    assert found.strategies == {strategy: 20} and not found.skipped
    converted, original = import_tau_bench(path), import_tau_bench(SLICE)
    assert _calls(converted) == _calls(original)
    kinds = Counter(e.kind for e in converted)
    assert (
        kinds[EventKind.USER_MESSAGE] == Counter(e.kind for e in original)[EventKind.USER_MESSAGE]
    )
    started = [e for e in converted if e.kind == EventKind.TOOL_CALL_STARTED]
    assert all(e.payload["call_id"].startswith("call_") for e in started)
    assert len({(e.episode_id, e.payload["call_id"]) for e in started}) == len(started)


def test_react_keeps_the_raw_action_text_and_respond_is_speech() -> None:
    trace = import_tau_bench(FIXTURES / "react-airline.json")
    responses = [e.payload for e in trace if e.kind == EventKind.MODEL_RESPONDED]
    acting = next(p for p in responses if p["tool_calls"])
    assert acting["raw_output"].startswith("Thought:\n") and "\nAction:\n{" in acting["raw_output"]
    said = [e.payload["content"] for e in trace if e.kind == EventKind.ASSISTANT_MESSAGE]
    original = [
        e.payload["content"]
        for e in import_tau_bench(SLICE)
        if e.kind == EventKind.ASSISTANT_MESSAGE
    ]
    # a tool-calling message with text and calls says that text as the react Thought
    assert said and set(said) <= set(original)
    assert not any(s.startswith(("Action:", "Thought:")) for s in said)


def _write(tmp_path: Path, rows: list[Any]) -> Path:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def _bad_act_rows() -> list[dict[str, Any]]:
    rows = _rows(FIXTURES / "act-airline.json")[:3]
    bad = copy.deepcopy(rows[1])
    at = next(i for i, m in enumerate(bad["traj"]) if m["content"].startswith("API output: "))
    bad["traj"][at]["content"] = "the result, without its prefix"
    return [rows[0], bad, rows[2]]


def test_a_bad_run_is_skipped_with_a_warning_and_counted(tmp_path: Path) -> None:
    path = _write(tmp_path, _bad_act_rows())
    with pytest.warns(
        ImportSkipWarning, match=r"results\.json: run 2 \(task \d+ trial \d\): traj\.\d+\.content"
    ):
        found = read_tau_bench(path)
    assert len(found.conversations) == 2 and len(found.skipped) == 1
    skipped = found.skipped[0]
    assert (
        skipped.index == 1 and skipped.field.startswith("traj.") and "API output" in skipped.message
    )
    assert found.summary().endswith("1 skipped")


def test_strict_makes_a_bad_run_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, _bad_act_rows())
    with pytest.raises(
        ImportFormatError,
        match=r"run 2 \(task .*\): traj\.\d+\.content: expected the 'API output: '",
    ):
        read_tau_bench(path, strict=True)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r.pop("traj"), "traj"),
        (lambda r: r.update(task_id=None), "task_id"),
        (lambda r: r.update(reward="high"), "reward"),
        (lambda r: r.pop("reward"), "reward"),  # run.py always writes it: never a success
        (lambda r: r.update(reward=None), "reward"),
        (lambda r: r["traj"].append({"role": "robot", "content": "x"}), "traj"),
        (
            lambda r: r["traj"].append({"role": "tool", "tool_call_id": "nope", "content": "x"}),
            "traj",
        ),
    ],
)
def test_each_malformed_field_is_named(tmp_path: Path, change: Any, field: str) -> None:
    rows = _rows(SLICE)[:2]
    change(rows[1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = read_tau_bench(_write(tmp_path, rows))
    assert len(found.conversations) == 1 and len(caught) == 1
    assert found.skipped[0].field.startswith(field)


def test_a_file_with_no_readable_run_is_an_error(tmp_path: Path) -> None:
    with (
        pytest.raises(ImportFormatError, match="none of its 1 runs could be read"),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore", ImportSkipWarning)
        read_tau_bench(_write(tmp_path, [{"task_id": 1}]))


def test_the_domain_is_told_by_the_tools_or_given(tmp_path: Path) -> None:
    row = _rows(SLICE)[0]
    row["traj"] = [
        m
        for m in row["traj"]
        if m["role"] != "system" and not m.get("tool_calls") and m["role"] != "tool"
    ]
    path = _write(tmp_path, [row])
    with pytest.raises(ImportFormatError, match="cannot tell the domain.*--domain"):
        read_tau_bench(path, strict=True)
    found = read_tau_bench(path, domain="airline")
    assert found.conversations[0].metadata["task_family"] == "airline_test_1"


def test_null_call_ids_in_the_extraction_format_get_synthetic_ids(tmp_path: Path) -> None:
    rows = json.loads(
        Path(str(data_path("tau_airline", "episodes.json"))).read_text(encoding="utf-8")
    )[:2]
    original = import_tau_bench(_write(tmp_path, rows))
    for step in rows[0]["steps"]:
        for item in step["tool_calls"] + step["tool_results"]:
            item["id"] = None
    trace = import_tau_bench(_write(tmp_path, rows), strict=True)
    assert _calls(trace) == _calls(original)
    ids = [e.payload["call_id"] for e in trace.episodes[0] if e.kind == EventKind.TOOL_CALL_STARTED]
    assert ids and all(i.startswith("call_") for i in ids)


RUNNER = CliRunner()


def test_the_cli_warns_counts_and_strict_fails(tmp_path: Path) -> None:
    path = _write(tmp_path, _bad_act_rows())
    out = tmp_path / "t.jsonl"
    result = RUNNER.invoke(import_app, ["tau-bench", str(path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "warning: skipped" in result.stderr and "run 2 (task" in result.stderr
    assert "2 runs (" in result.stdout and "1 skipped" in result.stdout
    strict = RUNNER.invoke(
        import_app, ["tau-bench", str(path), "-o", str(tmp_path / "s.jsonl"), "--strict"]
    )
    assert (
        strict.exit_code == 1 and "error:" in strict.stderr and not (tmp_path / "s.jsonl").exists()
    )


def test_a_partial_reward_is_a_failed_run(tmp_path: Path) -> None:
    row = _rows(SLICE)[1]
    row["reward"] = 0.5
    trace = import_tau_bench(_write(tmp_path, [row]))
    assert trace.episodes[0].succeeded() is False
    from jdsl.compiler import normalize_all

    assert normalize_all(trace.episodes)[0].success is False


@pytest.mark.parametrize("strategy", ["act", "react"])
def test_act_and_react_runs_compile_like_tool_calling(strategy: str) -> None:
    from jdsl.compiler import compile_normalized, normalize_all

    def family(path: Path) -> Any:
        episodes = normalize_all(import_tau_bench(path).episodes)
        return compile_normalized(
            [e for e in episodes if e.metadata["task_family"] == "airline_test_42"], name="t42"
        )

    converted, original = family(FIXTURES / f"{strategy}-airline.json"), family(SLICE)
    assert converted.ok and converted.verification.matched == converted.verification.executed == 3
    assert converted.ir == original.ir


def _garbled_act_rows() -> list[dict[str, Any]]:
    """Run 1 with its first tool action's JSON cut short: tau-bench's environment still
    answered it (the next message is ``API output: ...``)."""
    rows = _rows(FIXTURES / "act-airline.json")[:3]
    bad = copy.deepcopy(rows[1])
    at = next(i for i, m in enumerate(bad["traj"]) if m["content"].startswith("API output: "))
    bad["traj"][at - 1]["content"] = bad["traj"][at - 1]["content"][:-3]
    return [rows[0], bad, rows[2]]


def test_a_garbled_action_that_was_answered_is_a_malformed_run(tmp_path: Path) -> None:
    path = _write(tmp_path, _garbled_act_rows())
    with pytest.warns(ImportSkipWarning, match=r"run 2 .*traj\.\d+\.content: the Action JSON"):
        found = read_tau_bench(path)
    assert len(found.conversations) == 2 and found.skipped[0].index == 1
    with pytest.raises(ImportFormatError, match=r"run 2 .*the Action JSON is not JSON"):
        read_tau_bench(path, strict=True)


def test_a_garbled_action_the_user_answered_is_speech_as_in_tau_bench(tmp_path: Path) -> None:
    rows = _rows(FIXTURES / "act-airline.json")[:1]
    traj = rows[0]["traj"]
    at = next(i for i, m in enumerate(traj) if m["role"] == "assistant")
    assert not traj[at + 1]["content"].startswith("API output: ")
    traj[at]["content"] = 'Action:\n{"name": "respond", "arguments": {"content": "Hi'
    found = read_tau_bench(_write(tmp_path, rows), strict=True)
    assert len(found.conversations) == 1 and not found.skipped


def test_an_unknown_domain_is_an_error_naming_the_domains(tmp_path: Path) -> None:
    path = _write(tmp_path, _rows(SLICE)[:1])
    with pytest.raises(InputError, match=r"'bogus'.*airline, retail"):
        read_tau_bench(path, domain="bogus")
    result = RUNNER.invoke(
        import_app, ["tau-bench", str(path), "-o", str(tmp_path / "t.jsonl"), "--domain", "bogus"]
    )
    assert result.exit_code == 2 and "'bogus' is not one of 'airline', 'retail'" in result.output
    assert not (tmp_path / "t.jsonl").exists()


def test_a_run_without_a_name_is_named_once(tmp_path: Path) -> None:
    path = _write(tmp_path, [["not a run"], {"task_id": 1}])
    with pytest.raises(ImportFormatError) as caught:
        read_tau_bench(path, strict=True)
    assert "run 1 (run 1)" not in str(caught.value) and "run 1: traj:" in str(caught.value)


def test_runs_are_numbered_from_1_as_the_user_counts_them(tmp_path: Path) -> None:
    """A run's number in a warning or an error is its place in the file counted from 1; the
    field of a run that is not an object is the run itself, not a 0-based ``[i]``."""
    rows = _rows(SLICE)[:1]
    path = _write(tmp_path, [rows[0], "not a run", {"task_id": 7, "traj": [{"role": 5}]}])
    with pytest.warns(ImportSkipWarning) as caught:
        found = read_tau_bench(path)
    said = [str(w.message) for w in caught]
    assert said[0].startswith("skipped ") and ": run 2: " in said[0] and "[1]" not in said[0]
    assert ": run 3 (task 7 trial 0): " in said[1]
    assert [s.index for s in found.skipped] == [1, 2]


def test_a_file_of_unreadable_runs_names_the_first_and_the_fix(tmp_path: Path) -> None:
    path = _write(tmp_path, [{"task_id": None, "traj": []}, {"task_id": [1], "traj": 5}])
    with pytest.warns(ImportSkipWarning) as caught, pytest.raises(ImportFormatError):
        read_tau_bench(path)
    assert ": run 2: task_id" in str(caught[1].message)  # not "task [1] trial 0"
    result = RUNNER.invoke(import_app, ["tau-bench", str(path), "-o", str(tmp_path / "t.jsonl")])
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "none of its 2 runs could be read (first: run 1: task_id:" in text
    assert "a tau-bench results file (runs with task_id and traj)" in text
    assert "--strict" in text and not (tmp_path / "t.jsonl").exists()


def test_runs_of_the_same_task_and_trial_are_kept_renamed_and_the_summary_says_so(
    tmp_path: Path,
) -> None:
    """Two results files of the same tasks concatenated (two agents, two `run.py` runs): every
    run is kept, the later ones renamed ``tau_{family}_{trial}_{row}``; the summary counted them
    silently, so held-out lines named episodes like ``tau_retail_train_60_1_156`` unexplained."""
    rows = _rows(SLICE)
    merged = tmp_path / "merged.json"
    merged.write_text(json.dumps(rows + rows), encoding="utf-8")
    found = read_tau_bench(merged)
    ids = [c.episode_id for c in found.conversations]
    assert len(ids) == len(set(ids)) == 2 * len(rows)
    assert ids[len(rows)] == f"{ids[0]}_{len(rows)}"
    assert found.renamed == len(rows)
    assert found.summary().endswith(
        f"0 skipped, {len(rows)} renamed (the same task and trial as an earlier run: "
        f"{ids[len(rows)]} ...)"
    )
    assert "renamed" not in read_tau_bench(SLICE).summary()


def test_an_action_that_is_not_json_says_the_text_after_action_as_tau_bench_does(
    tmp_path: Path,
) -> None:
    """tau-bench's chat_react_agent turns an ``Action:`` that is not JSON into ``respond`` with
    ``content.split("Action:")[-1].strip()``; the import said the whole message, Thought and
    ``Action:`` included."""
    rows = _rows(FIXTURES / "react-airline.json")[:1]
    traj = rows[0]["traj"]
    at = next(
        i for i, m in enumerate(traj) if m["role"] == "assistant" and '"respond"' in m["content"]
    )
    traj[at]["content"] = "Thought:\nI will answer.\nAction:\nSure, I can look that up."
    trace = import_tau_bench(_write(tmp_path, rows))
    said = [e.payload["content"] for e in trace if e.kind == EventKind.ASSISTANT_MESSAGE]
    assert "Sure, I can look that up." in said
    assert not any(s.startswith(("Action:", "Thought:")) for s in said)


def _no_results(row: dict[str, Any]) -> dict[str, Any]:
    """The run with every ``tool`` message removed: no call it made got a result."""
    return dict(row, traj=[m for m in row["traj"] if m["role"] != "tool"])


def _cut_after_an_action(row: dict[str, Any]) -> dict[str, Any]:
    """The act run cut right after its first tool action (its ``API output:`` gone)."""
    at = next(i for i, m in enumerate(row["traj"]) if m["content"].startswith("API output: "))
    return dict(row, traj=row["traj"][:at])


def _steps_without_results(row: dict[str, Any]) -> dict[str, Any]:
    return dict(row, steps=[dict(s, tool_results=[]) for s in row["steps"]])


@pytest.mark.parametrize(
    ("rows", "change"),
    [
        (lambda: _rows(SLICE)[1:4], _no_results),
        (lambda: _rows(FIXTURES / "act-airline.json")[1:4], _cut_after_an_action),
        (lambda: _rows(FIXTURES / "react-airline.json")[1:4], _cut_after_an_action),
        (
            lambda: json.loads(
                Path(str(data_path("tau_airline", "episodes.json"))).read_text(encoding="utf-8")
            )[:3],
            _steps_without_results,
        ),
    ],
    ids=["tool-calling", "act", "react", "episodes"],
)
def test_a_run_whose_calls_got_no_result_is_incomplete_and_skipped(
    tmp_path: Path, rows: Any, change: Any
) -> None:
    """A call without a result (its ``tool`` message / ``API output:`` missing) is a run
    cut short: it is skipped with a named, counted warning (an error under strict), never
    imported as a run whose calls all "succeeded" without results."""
    rows = rows()
    rows[1] = change(copy.deepcopy(rows[1]))
    path = _write(tmp_path, rows)
    with pytest.warns(ImportSkipWarning, match=r"run 2 .*has no result.*incomplete"):
        found = read_tau_bench(path)
    assert len(found.conversations) == 2 and [s.index for s in found.skipped] == [1]
    assert found.summary().endswith("1 skipped")
    with pytest.raises(ImportFormatError, match=r"run 2 .*has no result"):
        read_tau_bench(path, strict=True)
