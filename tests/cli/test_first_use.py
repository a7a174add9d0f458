"""What a fresh user met on a first afternoon with ``jdsl``: each is one ``error: <what> — <fix>``
line and a non-zero exit (or a line that says what happened), never silence or a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from jdsl.cli import app
from jdsl.errors import InputError
from jdsl.inputs import parse_inputs

TOOLS = "jdsl.envs.fixtures:retail_fixture_tools"
EXAMPLES = Path(__file__).parents[2] / "core" / "jdsl" / "examples"


def _torn(path: Path, middle: bool = False) -> Path:
    """``path`` with a line that is no event: appended (a crash mid-write), or its third event
    torn (an edit gone wrong)."""
    lines = path.read_text().splitlines(keepends=True)
    if middle:
        lines[2] = "{torn\n"
    else:
        lines.append('{"kind": "node.en')
    path.write_text("".join(lines))
    return path


def _one_line(result) -> str:
    assert "Traceback" not in result.output
    return result.output


# 1. --skip-bad-lines says what it skipped


@pytest.mark.parametrize("command", ["compile", "show", "validate", "diff"])
def test_skip_bad_lines_says_how_many_lines_it_skipped_and_why(runner, traces, tmp_path, command):
    trace = traces(4)
    lines = len(trace.read_text().splitlines())
    _torn(trace)
    if command == "compile":
        args = ["compile", str(trace), "-o", str(tmp_path / "c.jdsl")]
    elif command == "show":
        args = ["show", str(trace)]
    else:
        pkg = tmp_path / "c.jdsl"
        made = runner.invoke(app, ["compile", str(traces(3, name="u.jsonl")), "-o", str(pkg)])
        assert made.exit_code == 0
        args = [*(["show", "--diff"] if command == "diff" else ["package", "validate"]),
                str(pkg), str(trace)]  # fmt: skip
    result = runner.invoke(app, [*args, "--skip-bad-lines"])
    assert result.exit_code == 0, result.output
    assert (f"warning: --skip-bad-lines skipped 1 line of {trace} that is not a trace event "
            f"(line {lines + 1}: not a trace event") in result.stderr  # fmt: skip


def test_skipped_lines_are_reported_when_the_command_then_fails(runner, traces, tmp_path) -> None:
    trace = _torn(traces(1), middle=True)  # the chain breaks where the line was
    result = runner.invoke(app, ["compile", str(trace), "-o", str(tmp_path / "c.jdsl"),
                                 "--skip-bad-lines"])  # fmt: skip
    assert result.exit_code == 1  # its one episode lost an event: left out, nothing to compile
    assert "1 episode(s) left out" in result.stderr and "hash chain is broken" in result.stderr
    assert f"skipped 1 line of {trace} that is not a trace event (line 3: " in result.stderr


def test_nothing_skipped_says_nothing(runner, traces, tmp_path) -> None:
    result = runner.invoke(app, ["show", str(traces(1)), "--skip-bad-lines"])
    assert result.exit_code == 0 and "skipped" not in result.stderr


# 2. -o x.jdsl when the result is a directory


@pytest.mark.parametrize("flag", [["--holdout", "1"], ["--group-by", "task"]])
def test_an_output_named_like_one_package_is_refused_for_a_directory_of_them(
    runner, traces, tmp_path, flag
) -> None:
    out = tmp_path / "x.jdsl"
    result = runner.invoke(app, ["compile", str(traces(4)), *flag, "-o", str(out)])
    assert result.exit_code == 1 and not out.exists()
    assert f"error: -o {out} names one package (.jdsl), but {flag[0]} writes one package per " \
           "family into a directory" in _one_line(result)  # fmt: skip
    assert "pass a directory, e.g. -o packages/" in result.stderr


def test_compile_help_says_when_out_is_a_directory(runner) -> None:
    text = " ".join(runner.invoke(app, ["compile", "--help"]).output.split())
    assert "With --holdout or --group-by, a directory (not NAME.jdsl)" in text


# 3. --input KEY= (an empty value)


def test_an_empty_input_value_is_refused_naming_the_key(runner, tmp_path) -> None:
    result = runner.invoke(app, ["run", str(EXAMPLES / "retail_lookup.behavior"), "--tools",
                                 TOOLS, "--input", "email="])  # fmt: skip
    assert result.exit_code == 2
    assert "Invalid value for --input: email= has an empty value" in _one_line(result)
    assert "email:='\"\"'" in result.output  # how to pass an empty string on purpose
    with pytest.raises(InputError, match="email= has an empty value") as info:
        parse_inputs(["email="])
    assert info.value.key == "email"
    assert parse_inputs(['email:=""']) == {"email": ""}


def test_the_run_help_says_an_empty_value_is_refused(runner) -> None:
    for command in (["run"], ["package", "run"]):
        text = " ".join(runner.invoke(app, [*command, "--help"]).output.split())
        assert "An empty VALUE is refused" in text, command


# 4. --holdout abc, and the other counts


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--holdout", "abc"], "--holdout abc is not a number; pass --holdout N"),
        (["--min-support", "two"], "--min-support two is not a number; pass --min-support N"),
        (["--holdout", "1.5"], "--holdout 1.5 is not a number; pass --holdout N"),
    ],
)
def test_a_count_that_is_not_a_number_is_worded_by_jdsl(runner, traces, tmp_path, args, said):
    result = runner.invoke(app, ["compile", str(traces(1)), "-o", str(tmp_path / "p"), *args])
    assert result.exit_code == 2
    assert said in " ".join(result.output.split())
    assert "Input should be" not in result.output and "valid integer" not in result.output


def test_demo_tasks_that_is_not_a_number_is_worded_by_jdsl(runner, tmp_path) -> None:
    result = runner.invoke(app, ["demo", "--tasks", "x", "-o", str(tmp_path / "d")])
    assert result.exit_code == 2 and "--tasks x is not a number" in result.output


@pytest.mark.parametrize("model", [[], ["--model", "gpt-4o-mini"]])
def test_demo_tasks_without_a_local_model_is_refused_not_ignored(runner, tmp_path, model) -> None:
    result = runner.invoke(app, ["demo", "--tasks", "3", "-o", str(tmp_path / "d"), *model])
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and "--tasks limits the held-out tasks of a local: model" in said
    assert not (tmp_path / "d").exists()  # nothing ran


# 5. and 6. jdsl package run on a .behavior file, and the path before --tools


@pytest.mark.parametrize("command", ["run", "inspect", "verify"])
def test_a_behavior_file_given_as_a_package_points_to_jdsl_run(runner, command) -> None:
    behavior = EXAMPLES / "retail_cancel.behavior"
    result = runner.invoke(app, ["package", command, str(behavior), "--tools", TOOLS][
        : 3 if command != "run" else 5])  # fmt: skip
    assert result.exit_code == 1
    said = " ".join(_one_line(result).split())
    assert f"{behavior} is behavior text, but `jdsl package {command}` takes a behavior " \
           "package" in said  # fmt: skip
    assert f"run it with `jdsl run {behavior} --tools module:NAME`" in said


@pytest.mark.parametrize("path", ["nothing.jdsl", "cancel.behavior", "t.jsonl"])
def test_package_run_looks_at_the_path_before_asking_for_tools(runner, traces, tmp_path, path):
    if path == "t.jsonl":
        path = str(traces(1))
    elif path == "cancel.behavior":
        path = str(EXAMPLES / "retail_cancel.behavior")
    result = runner.invoke(app, ["package", "run", path])
    assert result.exit_code == 1, result.output
    assert "--tools" not in result.output.split("—")[0]  # the path is what is wrong
    assert "Missing option" not in result.output


def test_package_run_without_tools_names_what_to_bind(runner, traces, tmp_path) -> None:
    pkg = tmp_path / "c.jdsl"
    assert runner.invoke(app, ["compile", str(traces(3)), "-o", str(pkg)]).exit_code == 0
    result = runner.invoke(app, ["package", "run", str(pkg)])
    assert result.exit_code == 1
    said = " ".join(_one_line(result).split())
    assert "--tools" in said and "lookup" in said  # names the tools the package calls


# 8. every timeline line keeps its closing parenthesis


def test_every_timeline_line_closes_what_it_opens(runner, tmp_path) -> None:
    from jdsl.dsl import act, ref, root, seq
    from jdsl.testing import ScriptedModel
    from jdsl.trace import JsonlTraceSink

    def a_tool_with_a_long_descriptive_name_for_lookups(query: str) -> dict:
        return {"found": query}

    inner = act(a_tool_with_a_long_descriptive_name_for_lookups, query=ref("q")) >> "r"
    tree = root("deep").do(seq(seq(seq(seq(inner)))))
    sink = JsonlTraceSink(tmp_path / "t.jsonl")
    tree.run(model=ScriptedModel("x"), trace_sink=sink, q="y" * 200)
    sink.close()
    result = runner.invoke(app, ["show", str(tmp_path / "t.jsonl")])
    assert result.exit_code == 0
    for line in result.output.splitlines():
        assert line.count("(") == line.count(")"), line


def test_a_bad_chat_log_line_names_the_fix(runner, tmp_path) -> None:
    log = tmp_path / "chat.jsonl"
    log.write_text('{"messages": [{"role": "user", "content": "hi"}]}\n{"messages": [{"ro\n')
    result = runner.invoke(app, ["import", "openai-chat", str(log), "-o", str(tmp_path / "t")])
    assert result.exit_code == 1
    assert "line 2: not JSON" in result.stderr and "fix or remove the line" in result.stderr


@pytest.mark.parametrize("command", ["compile", "validate", "export", "diff"])
def test_a_behavior_file_given_as_traces_points_to_jdsl_run(runner, traces, tmp_path, command):
    """Behavior text given where traces go was read as a trace with a bad first line, and the
    advice was --skip-bad-lines."""
    behavior = EXAMPLES / "retail_cancel.behavior"
    pkg = tmp_path / "c.jdsl"
    assert runner.invoke(app, ["compile", str(traces(3)), "-o", str(pkg)]).exit_code == 0
    args = {
        "compile": ["compile", str(behavior), "-o", str(tmp_path / "x.jdsl")],
        "validate": ["package", "validate", str(pkg), str(behavior)],
        "export": ["export", "otel", str(behavior), "--out", str(tmp_path / "o.json")],
        "diff": ["show", "--diff", str(pkg), str(behavior)],
    }[command]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    said = " ".join(_one_line(result).split())
    assert f"{behavior} is behavior text, not a trace" in said
    assert f"record one with `jdsl run {behavior} --tools module:NAME --trace TRACES.jsonl`" in said
    assert "--skip-bad-lines" not in said
