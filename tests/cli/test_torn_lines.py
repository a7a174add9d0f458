"""A torn line in the middle of a trace: the error advises --skip-bad-lines, and following the
advice must compile the rest, leaving out (under a note naming it) the episode the torn line
belonged to, whose hash chain the missing event breaks (fresh9: it stopped at "the hash chain
is broken ... compile from Python: compile_behavior(..., allow_broken_chain=True)")."""

from __future__ import annotations

import json

import pytest
from jdsl.cli import app


def test_skip_bad_lines_leaves_out_the_episode_a_torn_line_broke(runner, traces, tmp_path):
    torn = _torn_middle(traces, tmp_path)
    out = tmp_path / "p.jdsl"
    strict = runner.invoke(app, ["compile", str(torn), "-o", str(out)])
    assert strict.exit_code == 1 and "--skip-bad-lines" in strict.stderr, strict.output
    result = runner.invoke(app, ["compile", str(torn), "--skip-bad-lines", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "ep_success_1" in result.stderr and "left out" in result.stderr, result.stderr
    assert "3 episode(s)" in result.stdout and out.exists()


def test_an_edited_event_is_still_refused_with_or_without_skip_bad_lines(runner, traces, tmp_path):
    """Nothing skipped: a broken chain is an edit, not a torn line; it stays an error."""
    text = traces(3).read_text()
    edited = tmp_path / "edited.jsonl"
    edited.write_text(text.replace('"request":"cancel my order"', '"request":"cancel it"', 1))
    assert edited.read_text() != text
    for extra in ([], ["--skip-bad-lines"]):
        out = str(tmp_path / "e.jdsl")
        result = runner.invoke(app, ["compile", str(edited), "-o", out, *extra])
        assert result.exit_code == 1 and "hash chain is broken" in result.stderr, result.output


def test_validate_and_diff_warn_of_an_edited_run(runner, traces, tmp_path):
    """fresh9 finding 13: compile refuses an edited event; validate and show --diff judged the
    edited run without a word. They still judge it, under a warning naming it."""
    package = tmp_path / "p.jdsl"
    clean = traces(3)
    assert runner.invoke(app, ["compile", str(clean), "-o", str(package)]).exit_code == 0
    edited = tmp_path / "edited.jsonl"
    edited.write_text(clean.read_text().replace('"cancel my order"', '"cancel it"', 1))
    for command in (["package", "validate"], ["show", "--diff"]):
        result = runner.invoke(app, [*command, str(package), str(edited)])
        assert "broken hash chain" in result.stderr and "ep_success_0" in result.stderr, (
            result.output
        )
        plain = runner.invoke(app, [*command, str(package), str(clean)])
        assert "hash chain" not in plain.stderr, plain.output


def test_show_trace_warns_of_an_edited_run(runner, traces, tmp_path):
    """fresh9, left after finding 13: `jdsl show TRACE` showed an edited run without a word.
    It still shows it, under the warning validate and show --diff give (the same function)."""
    clean = traces(3)
    edited = tmp_path / "edited.jsonl"
    edited.write_text(clean.read_text().replace('"cancel my order"', '"cancel it"', 1))
    result = runner.invoke(app, ["show", str(edited)])
    assert result.exit_code == 0, result.output
    assert "broken hash chain" in result.stderr and "ep_success_0" in result.stderr, result.output
    assert "shown as they are now" in result.stderr, result.stderr
    assert "ep_success_1" in result.stdout  # the trace is still shown
    plain = runner.invoke(app, ["show", str(clean)])
    assert plain.exit_code == 0 and "hash chain" not in plain.stderr, plain.output


def _torn_middle(traces, tmp_path):
    """A trace of 4 runs whose ep_success_1 lost a line, torn mid-write."""
    lines = traces(4).read_text().splitlines(keepends=True)
    middle = next(i for i, line in enumerate(lines)
                  if '"ep_success_1"' in line and '"tool.call.completed"' in line)  # fmt: skip
    lines[middle] = lines[middle][: len(lines[middle]) // 2] + "\n"
    torn = tmp_path / "torn.jsonl"
    torn.write_text("".join(lines))
    return torn


def test_show_compile_leaves_out_the_episode_a_torn_line_broke_as_compile_does(
    runner, traces, tmp_path
):
    """cli11: `jdsl show --compile --skip-bad-lines` failed on the torn episode ("the trace's
    hash chain is broken ... allow_broken_chain=True"); it previews what `jdsl compile
    --skip-bad-lines` compiles, under its note."""
    torn = _torn_middle(traces, tmp_path)
    result = runner.invoke(app, ["show", str(torn), "--compile", "--skip-bad-lines"])
    assert result.exit_code == 0, result.output
    compiled = runner.invoke(app, ["compile", str(torn), "--skip-bad-lines",
                                   "-o", str(torn.with_suffix(".jdsl"))])  # fmt: skip
    note = next(line for line in compiled.stderr.splitlines() if line.startswith("note:"))
    assert "ep_success_1" in note and note in result.stderr.splitlines(), result.stderr
    assert "3 episode(s)" in result.stdout and "hash chain is broken (episode" not in result.stderr
    alone = runner.invoke(app, ["show", str(torn), "-e", "ep_success_1", "--compile",
                                "--skip-bad-lines"])  # fmt: skip
    assert alone.exit_code == 1 and "nothing left to compile" in alone.stderr, alone.output


def test_export_otel_takes_skip_bad_lines_and_leaves_out_the_torn_episode(runner, traces, tmp_path):
    """cli11: `jdsl export otel` advised --skip-bad-lines for a torn line, then refused the flag
    ("No such option"). It takes it: the skip told, the torn episode left out under compile's
    note, the other runs exported."""
    pytest.importorskip("opentelemetry.sdk")
    torn, out = _torn_middle(traces, tmp_path), tmp_path / "spans.json"
    strict = runner.invoke(app, ["export", "otel", str(torn), "-o", str(out)])
    assert strict.exit_code == 1 and "pass --skip-bad-lines" in strict.stderr, strict.output
    result = runner.invoke(app, ["export", "otel", str(torn), "-o", str(out), "--skip-bad-lines"])
    assert result.exit_code == 0, result.output
    assert "1 episode(s) left out" in result.stderr and "ep_success_1" in result.stderr
    assert f"warning: --skip-bad-lines skipped 1 line of {torn}" in result.stderr
    exported = json.dumps(json.loads(out.read_text()))
    assert "ep_success_0" in exported and "ep_success_1" not in exported


_COMMANDS = {
    "compile": ["compile", "TORN", "-o", "OUT/c.jdsl"],
    "show": ["show", "TORN"],
    "show --compile": ["show", "TORN", "--compile"],
    "export otel": ["export", "otel", "TORN", "-o", "OUT/s.json"],
    # cli11: these two judged the torn run and failed on a false divergence ("recorded failure
    # of lookup: error: call did not finish", its completion being the line skipped)
    "show --diff": ["show", "--diff", "PKG", "TORN"],
    "package validate": ["package", "validate", "PKG", "TORN"],
}


@pytest.mark.parametrize("command", sorted(_COMMANDS))
def test_every_command_advising_skip_bad_lines_takes_it(runner, traces, tmp_path, command):
    """The advice a torn line gives is a flag of the command that gave it, and following it
    ends well (the torn episode left out, or shown under a warning)."""
    if "otel" in command:
        pytest.importorskip("opentelemetry.sdk")
    package = tmp_path / "p.jdsl"
    made = runner.invoke(app, ["compile", str(traces(3, name="c.jsonl")), "-o", str(package)])
    assert made.exit_code == 0, made.output
    torn = _torn_middle(traces, tmp_path)
    names = {"TORN": str(torn), "PKG": str(package)}
    args = [names.get(a, a.replace("OUT", str(tmp_path))) for a in _COMMANDS[command]]
    strict = runner.invoke(app, args)
    assert strict.exit_code == 1 and "pass --skip-bad-lines" in strict.stderr, strict.output
    followed = runner.invoke(app, [*args, "--skip-bad-lines"])
    assert followed.exit_code == 0, followed.output
    if command != "show":  # the timeline shows every run, the others leave the torn one out
        assert "1 episode(s) left out" in followed.stderr, followed.stderr


def test_show_trace_says_what_compile_does_with_a_torn_episode(runner, traces, tmp_path):
    """cli11: `jdsl show TRACE --skip-bad-lines` said compile "refuses" the torn episode, which
    `jdsl compile --skip-bad-lines` leaves out; an edited one it still refuses."""
    result = runner.invoke(app, ["show", str(_torn_middle(traces, tmp_path)), "--skip-bad-lines"])
    assert result.exit_code == 0, result.output
    assert "(`jdsl compile --skip-bad-lines` leaves them out)" in result.stderr, result.stderr
    assert "refuses them" not in result.stderr


@pytest.mark.parametrize("command", sorted(set(_COMMANDS) - {"compile", "show"}))
def test_a_command_left_with_no_whole_episode_says_so(runner, traces, tmp_path, command):
    """Every episode given lost an event to a skipped line: the command says there is nothing
    left to do (one message, commands/torn.without_torn), not 'no episodes' or a crash."""
    if "otel" in command:
        pytest.importorskip("opentelemetry.sdk")
    package = tmp_path / "p.jdsl"
    made = runner.invoke(app, ["compile", str(traces(3, name="c.jsonl")), "-o", str(package)])
    assert made.exit_code == 0, made.output
    torn = _torn_middle(traces, tmp_path)
    alone = tmp_path / "alone.jsonl"  # the torn episode's lines only
    alone.write_text("".join(line for line in torn.read_text().splitlines(keepends=True)
                             if '"ep_success_1"' in line))  # fmt: skip
    names = {"TORN": str(alone), "PKG": str(package)}
    args = [names.get(a, a.replace("OUT", str(tmp_path))) for a in _COMMANDS[command]]
    result = runner.invoke(app, [*args, "--skip-bad-lines"])
    doing = command.split()[-1].removeprefix("--").replace("otel", "export")
    assert result.exit_code == 1, result.output
    assert f"nothing left to {doing} in " in result.stderr, result.stderr
    assert "pass traces whose lines are whole" in result.stderr
