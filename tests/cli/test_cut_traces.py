"""A trace cut mid-run (its last episode has tool calls but no ``episode.finished``) is never
compiled from: the cut episodes are left out with a line saying so, and nothing is compiled
when nothing finished remains."""

from __future__ import annotations

import json
from pathlib import Path

from jdsl.cli import app


def _cut_after_first_call(whole: Path, out: Path, episode_id: str) -> Path:
    """``whole`` with ``episode_id`` ending just after its first completed tool call (and its
    blackboard write): a file truncated mid-run, every event before the cut intact."""
    lines = whole.read_text().splitlines(keepends=True)
    kept, seen = [], False
    for line in lines:
        event = json.loads(line)
        if event["episode_id"] != episode_id:
            kept.append(line)
        elif not seen:
            kept.append(line)
            seen = event["kind"] == "blackboard.write" and any(
                json.loads(k)["kind"] == "tool.call.completed"
                for k in kept
                if json.loads(k)["episode_id"] == episode_id
            )
    out.write_text("".join(kept))
    return out


def test_a_lone_episode_cut_after_a_tool_call_is_refused(runner, traces, tmp_path) -> None:
    cut = _cut_after_first_call(traces(1), tmp_path / "cut.jsonl", "ep_success_0")
    assert "tool.call.completed" in cut.read_text() and "episode.finished" not in cut.read_text()
    out = tmp_path / "x.jdsl"
    result = runner.invoke(app, ["compile", str(cut), "-o", str(out)])
    assert result.exit_code == 1, result.output
    assert not out.exists()
    assert "verification passed" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    assert errors[0].startswith(
        "error: the 1 episode(s) to compile from (ep_success_0) end without episode.finished: "
        "they look cut off mid-run"
    )
    assert "pass the complete trace file, or record the runs again" in errors[0]
    assert "Traceback" not in result.output


def test_a_cut_last_episode_is_left_out_and_reported(runner, traces, tmp_path) -> None:
    cut = _cut_after_first_call(traces(3), tmp_path / "cut.jsonl", "ep_success_2")
    out = tmp_path / "x.jdsl"
    result = runner.invoke(app, ["compile", str(cut), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "behavior 'cancel': 2 episode(s)" in result.output
    assert "verification  passed" in result.output
    assert (
        "note          1 episode(s) cut off mid-run (no episode.finished: ep_success_2) left "
        "out; pass the complete trace file, or record the runs again" in result.output
    )
    assert out.exists()


def test_cut_episodes_are_left_out_of_families_and_holdout_too(runner, traces, tmp_path) -> None:
    cut = _cut_after_first_call(traces(4), tmp_path / "cut.jsonl", "ep_success_3")
    for extra in (["--group-by", "sequence"], ["--holdout", "1"]):
        out = tmp_path / extra[0].strip("-")
        result = runner.invoke(app, ["compile", str(cut), "-o", str(out), *extra])
        line = "1 episode(s) cut off mid-run (no episode.finished: ep_success_3) left out"
        assert line in result.output, (extra, result.output)
        assert "ep_success_3" not in result.output.replace(line, ""), (extra, result.output)


def test_show_says_unfinished_in_the_table_as_in_the_detail_line(runner, traces, tmp_path) -> None:
    cut = _cut_after_first_call(traces(2), tmp_path / "cut.jsonl", "ep_success_1")
    result = runner.invoke(app, ["show", str(cut)])
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split()[2] for line in result.output.splitlines()[1:3]}
    assert rows == {"ep_success_0": "success", "ep_success_1": "unfinished"}
    assert "episode ep_success_1  skill=cancel  status=unfinished" in result.output
    assert "None" not in result.output.split("\n\n")[0]


def test_validate_leaves_a_cut_run_out_instead_of_calling_it_unreplayable(
    runner, traces, tmp_path
) -> None:
    whole = traces(3)
    package = tmp_path / "p.jdsl"
    assert runner.invoke(app, ["compile", str(whole), "-o", str(package)]).exit_code == 0
    cut = _cut_after_first_call(whole, tmp_path / "cut.jsonl", "ep_success_2")
    result = runner.invoke(app, ["package", "validate", str(package), str(cut)])
    assert result.exit_code == 0, result.output
    assert "unreplayable" not in result.stdout.replace("0 unreplayable", "")
    assert "ep_success_2" not in result.stdout
    assert "note: 1 episode(s) cut off mid-run (no episode.finished: ep_success_2) left out" in (
        result.stderr
    )
    only_cut = _cut_after_first_call(traces(1, name="one.jsonl"), tmp_path / "c1.jsonl",
                                     "ep_success_0")  # fmt: skip
    refused = runner.invoke(app, ["package", "validate", str(package), str(only_cut)])
    assert refused.exit_code == 1
    assert "error: the 1 episode(s) in " in refused.output
    assert "end without episode.finished: they look cut off mid-run" in refused.output


def test_compile_tells_the_cut_note_on_stderr_as_validate_does(runner, traces, tmp_path) -> None:
    """cli11: `jdsl compile --group-by/--holdout` printed the `note: ... cut off mid-run` line
    on stdout, among the results; `jdsl package validate` and every other note use stderr."""
    cut = _cut_after_first_call(traces(4), tmp_path / "cut.jsonl", "ep_success_3")
    for extra in (["--group-by", "sequence"], ["--holdout", "1"]):
        out = tmp_path / extra[0].strip("-")
        result = runner.invoke(app, ["compile", str(cut), "-o", str(out), *extra])
        assert "note: 1 episode(s) cut off mid-run" in result.stderr, (extra, result.output)
        assert "cut off mid-run" not in result.stdout, (extra, result.stdout)
