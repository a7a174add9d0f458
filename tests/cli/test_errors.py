"""Every failure is ``error: <what> — <how to fix>`` and a non-zero exit, never a traceback."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
import typer
from jdsl.cli import app
from jdsl.commands.boundary import MODEL_FIX, cli_advice, cli_errors, cli_fail
from jdsl.compiler.fallback import split_fallback
from jdsl.errors import BindingError
from jdsl.ir import from_ir
from jdsl.package import load_package
from jdsl.text import format_behavior
from typer.testing import CliRunner

TOOLS = "jdsl.envs.fixtures:retail_fixture_tools"


def _probe(exc: BaseException) -> typer.Typer:
    probe = typer.Typer()

    @probe.command()
    @cli_errors
    def fail(name: str = typer.Option("x", "--name")) -> None:
        """A command that raises ``exc``."""
        raise exc

    return probe


@pytest.mark.parametrize(
    ("exc", "line"),
    [
        (BindingError("tool 'x' is not bound; bind it"), "error: tool 'x' is not bound; bind it"),
        (FileExistsError(errno.EEXIST, "File exists", "out"),
         "error: out: File exists — it exists and is a file; pass a new path or a directory"),
        (IsADirectoryError(errno.EISDIR, "Is a directory", "/tmp"),
         "error: /tmp: Is a directory — it is a directory; pass a file path"),
        (OSError(errno.EIO, "I/O error"), "error: I/O error — check the path and its permissions"),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
         "error: the input is not UTF-8 text (invalid start byte at byte 0) — pass a text file"),
    ],
)  # fmt: skip
def test_cli_errors_prints_one_error_line_and_exits_1(exc, line) -> None:
    result = CliRunner().invoke(_probe(exc), ["--name", "y"])
    assert result.exit_code == 1 and result.output.startswith(line)
    assert "Traceback" not in result.output


def test_other_exceptions_are_not_swallowed() -> None:
    result = CliRunner().invoke(_probe(ZeroDivisionError("bug")), [])
    assert isinstance(result.exception, ZeroDivisionError)


def test_cli_fail_and_advice() -> None:
    with pytest.raises(typer.Exit) as info:
        raise cli_fail("no episodes in x", "record some")
    assert info.value.exit_code == 1
    python = ("this tree has a model leaf (predict or react) but the run has no model; pass "
              "model=... to run() (e.g. ScriptedModel('...') from jdsl.testing) or set "
              "root(...).model('model-id')")  # fmt: skip
    assert cli_advice(python).endswith(MODEL_FIX) and "run()" not in cli_advice(python)
    assert cli_advice("unchanged text") == "unchanged text"


def test_a_tool_factory_that_raises_is_named(runner, traces, tmp_path, host_module) -> None:
    module = host_module("raising_tools", "def factory():\n    raise RuntimeError('no db')\n")
    package = tmp_path / "p.jdsl"
    assert runner.invoke(app, ["compile", str(traces(2)), "-o", str(package)]).exit_code == 0
    result = runner.invoke(app, ["package", "run", str(package), "-t", f"{module}:factory"])
    assert result.exit_code == 1
    assert result.output.startswith(
        f"error: the tool factory {module}:factory raised RuntimeError: no db — fix it"
    )
    broken = host_module("broken_tools", "raise RuntimeError('import boom')\n")
    result = runner.invoke(app, ["package", "run", str(package), "-t", f"{broken}:tools"])
    assert result.exit_code == 1
    assert f"error: importing {broken} raised RuntimeError: import boom" in result.output


def test_run_names_the_model_flags_when_a_model_leaf_has_no_model(runner, traces, tmp_path) -> None:
    package = tmp_path / "p.jdsl"
    runner.invoke(app, ["compile", str(traces(2)), "-o", str(package)])
    base = ["package", "run", str(package), "-t", TOOLS, "-i", "email=c1@x.com", "-i", "request=x"]
    result = runner.invoke(app, base)
    assert result.exit_code == 1
    assert "error: model leaves resolve_target, fallback have no model — pass --model ID" in (
        result.output
    )  # the compiled residual and the package's fallback
    assert "--reply TEXT" in result.output and "model=..." not in result.output
    both = runner.invoke(app, [*base, "--model", "gpt-4o", "--reply", "0"])
    assert both.exit_code == 2 and "give --model or --reply, not both" in both.output
    # a missing input is not refused: the compiled program stops where it needs it and the
    # package's fallback takes the rest of the run (here the scripted reply answers it)
    missing = runner.invoke(app, ["package", "run", str(package), "-t", TOOLS, "--reply", "0"])
    assert missing.exit_code == 0, missing.output
    assert "note: missing run inputs: email; request; the package's fallback takes" in (
        missing.stderr
    )
    assert "error:" not in missing.output and '"answer": "0"' in missing.stdout
    assert "note: the compiled program stopped at " in missing.stderr  # where, and why
    assert "the package's fallback (a react agent with the family's tools) took the rest" in (
        missing.stderr
    )
    # the status line says who served the run: a bare "success" would read as the package's
    assert missing.stdout.startswith("status: success (fallback took over at "), missing.stdout
    served = runner.invoke(app, [*base, "--reply", "0"])
    assert "took the rest" not in served.stderr  # the compiled program served it
    assert served.stdout.startswith("status: success\n"), served.stdout


def test_package_run_warns_of_an_unread_input_and_writes_its_trace(
    runner, traces, tmp_path
) -> None:
    package, out = tmp_path / "p.jdsl", tmp_path / "run.jsonl"
    runner.invoke(app, ["compile", str(traces(2)), "-o", str(package)])
    args = ["package", "run", str(package), "-t", TOOLS, "-i", "email=c1@x.com", "-i", "emial=x"]
    result = runner.invoke(app, [*args, "--reply", "0", "--trace", str(out)])
    assert "warning: --input emial: the tree never reads it" in result.stderr
    assert f"trace: {out}" in result.stderr and '"kind":"episode.started"' in out.read_text()


def test_run_resolves_the_model_before_running(
    runner, traces, tmp_path, isolated_env, monkeypatch
) -> None:
    monkeypatch.delenv("OPENAI_COMPATIBLE_BASE_URL", raising=False)
    package = tmp_path / "p.jdsl"
    runner.invoke(app, ["compile", str(traces(2)), "-o", str(package)])
    args = ["package", "run", str(package), "-t", TOOLS, "-i", "email=c1@x.com", "-i", "request=x"]
    result = runner.invoke(app, [*args, "--model", "openai-compatible:llama"])
    assert result.exit_code == 1 and "status:" not in result.output
    assert "has no base URL" in result.output and "OPENAI_COMPATIBLE_BASE_URL" in result.output
    keyless = runner.invoke(app, [*args, "--model", "gpt-4o"])
    assert "error: model 'gpt-4o' needs an API key: set OPENAI_API_KEY" in keyless.output
    assert "ProviderSettings" not in keyless.output
    unknown = runner.invoke(app, [*args, "--model", "mistral-large"])
    assert unknown.exit_code == 1 and "error: unknown model id 'mistral-large'" in unknown.output
    assert "registry=" not in unknown.output


@pytest.mark.parametrize(
    ("model", "said"),
    [
        ("", "error: model id is empty (a shell variable that is not set?)"),
        ("local:", "error: model id 'local:' names no model after 'local:'"),
        ("openai:", "error: model id 'openai:' names no model after 'openai:'"),
    ],
)
def test_an_empty_or_malformed_model_is_refused_not_ignored(
    runner, traces, tmp_path, model, said
) -> None:
    package = tmp_path / "p.jdsl"
    runner.invoke(app, ["compile", str(traces(2)), "-o", str(package)])
    args = ["package", "run", str(package), "-t", TOOLS, "-i", "email=c1@x.com", "-i", "request=x"]
    result = runner.invoke(app, [*args, "--model", model])
    assert result.exit_code == 1 and said in result.stderr, result.output
    assert "status:" not in result.output and "Traceback" not in result.output
    demo = runner.invoke(app, ["demo", "-o", str(tmp_path / "d"), "--model", model])
    assert demo.exit_code == 1 and said in demo.stderr and not (tmp_path / "d").exists()


def test_package_commands_report_a_missing_package(runner, tmp_path: Path) -> None:
    for command in ("inspect", "verify"):
        result = runner.invoke(app, ["package", command, str(tmp_path / "none.jdsl")])
        assert result.exit_code == 1 and result.output.startswith("error: no package at")


def test_demo_refuses_a_file_as_its_folder(runner, tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_text("")
    result = runner.invoke(app, ["demo", "-o", str(target), "--quiet"])
    assert result.exit_code == 1
    assert result.output.startswith(f"error: -o {target} is a file — the demo writes a folder")


def test_run_prints_where_and_why_a_failed_run_stopped(runner, traces, tmp_path) -> None:
    package = tmp_path / "p.jdsl"
    runner.invoke(app, ["compile", str(traces(2)), "-o", str(package)])
    args = ["package", "run", str(package), "-t", TOOLS, "-i", "email=c1@x.com", "-i", "request=x"]
    bare = tmp_path / "bare.behavior"  # the fallback's react would answer: leave it out of the tree
    package_ir = load_package(package).ir
    compiled, _ = split_fallback(package_ir)
    bare.write_text(format_behavior(from_ir(compiled)), encoding="utf-8")
    result = runner.invoke(app, ["run", str(bare), "-t", TOOLS, "-i", "email=c1@x.com",
                                 "-i", "request=x", "--reply", "banana"])  # fmt: skip
    assert result.exit_code == 1 and "status: failure" in result.output
    assert "failed at predict(" in result.output and "'banana' is not a valid int" in result.output
    # the package itself hands the rest of the run to its fallback, which answers
    handed = runner.invoke(app, [*args, "--reply", "banana"])
    assert handed.exit_code == 0 and '"answer": "banana"' in handed.output


def test_every_wording_of_the_strict_false_advice_names_the_flag() -> None:
    line = "pass a jdsl trace, or read with strict=False to skip the line (e.g. one torn)"
    assert "strict=False" not in cli_advice(line) and "--skip-bad-lines" in cli_advice(line)


@pytest.mark.parametrize(
    ("option", "args"),
    [
        ("-o", ["compile", "{trace}", "-o", "{missing}/x.jdsl"]),
        ("-o", ["compile", "{trace}", "-o", "{missing}/families", "--group-by", "task"]),
        ("-o", ["compile", "{trace}", "-o", "{missing}/held", "--holdout", "1"]),
        ("-o", ["import", "openai-chat", "{trace}", "-o", "{missing}/x.jsonl"]),
        ("-o", ["demo", "-o", "{missing}/demo", "--quiet"]),
        ("--trace", ["run", "{behavior}", "-t", TOOLS, "-i", "email=c1@x.com",
                     "--trace", "{missing}/runs.jsonl"]),
        ("--out", ["export", "otel", "{trace}", "--out", "{missing}/x.otlp.json"]),
    ],
)  # fmt: skip
def test_an_output_flag_refuses_a_missing_directory_and_writes_nothing(
    runner, traces, tmp_path: Path, option: str, args: list[str]
) -> None:
    """No command creates the directories on the way to its output: a typo writes nothing."""
    behavior = tmp_path / "r.behavior"
    behavior.write_text("root r\n  act lookup(email=email) -> customer\n")
    missing = tmp_path / "nonexist" / "dir"
    names = {"trace": traces(2), "missing": missing, "behavior": behavior}
    result = runner.invoke(app, [arg.format(**names) for arg in args])
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"error: {option} {missing}/"), result.output
    assert f"the directory {missing} does not exist" in result.output
    assert "mkdir -p" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "nonexist").exists()


def test_an_output_directory_itself_may_be_new(runner, traces, tmp_path: Path) -> None:
    families = tmp_path / "families"  # the named directory is the output: it is created
    runner.invoke(app, ["compile", str(traces(2)), "-o", str(families), "--group-by", "task"])
    assert families.is_dir() and list(families.glob("*.jdsl"))


def test_ctrl_c_is_one_line_and_exit_130() -> None:
    """A Ctrl-C leaving a command says it stopped and where a trace keeps what ran (it used to
    exit 130 without a word)."""
    result = CliRunner().invoke(_probe(KeyboardInterrupt()), [])
    assert result.exit_code == 130, result.output
    assert result.output.startswith("interrupted (Ctrl-C)")
    assert "Traceback" not in result.output


def test_ctrl_c_names_a_trace_only_for_a_command_that_writes_one(tmp_path: Path) -> None:
    """``jdsl compile`` has no --trace and no episode: its Ctrl-C line says it stopped, not
    that "a --trace file keeps what ran" (fresh9 finding 6); a run given --trace names it."""
    plain = CliRunner().invoke(_probe(KeyboardInterrupt()), [])
    assert plain.exit_code == 130 and "trace" not in plain.output, plain.output
    runs = typer.Typer()

    @runs.command()
    @cli_errors
    def run(trace: Path | None = typer.Option(None, "--trace")) -> None:
        """A run interrupted at once."""
        raise KeyboardInterrupt

    traced = CliRunner().invoke(runs, ["--trace", str(tmp_path / "t.jsonl")])
    assert traced.exit_code == 130, traced.output
    assert f"{tmp_path / 't.jsonl'} keeps what ran" in traced.output
    untraced = CliRunner().invoke(runs, [])
    assert "trace" not in untraced.output, untraced.output


def test_ctrl_c_leaves_without_collecting_the_heap(monkeypatch) -> None:
    """After a Ctrl-C the process goes at once: the interpreter's last garbage collection over
    a large heap took seconds of the demo's exit (2.9-5.3 s after a Ctrl-C, 0.3 s without it),
    so the heap is frozen at exit (gc.freeze) and that collection passes it over."""
    import gc

    from jdsl.commands import boundary

    registered: list[object] = []
    monkeypatch.setattr(boundary.atexit, "register", registered.append)
    monkeypatch.setattr(boundary.atexit, "unregister", lambda fn: None)
    assert CliRunner().invoke(_probe(KeyboardInterrupt()), []).exit_code == 130
    assert registered == [gc.freeze]
    registered.clear()
    assert CliRunner().invoke(_probe(BindingError("x — y")), []).exit_code == 1
    assert registered == []  # any other exit collects as before
