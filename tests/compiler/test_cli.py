"""The ``jdsl`` command: compile, --group-by, package inspect|verify|run; determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from jdsl.cli import app, parse_inputs
from jdsl.trace import JsonlTraceSink
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402

runner = CliRunner()
TOOLS = "jdsl.envs.fixtures:retail_fixture_tools"  # no required parameter: world 1


def test_compile_prints_the_report_and_writes_the_package(retail_trace, tmp_path) -> None:
    traces = retail_trace(5)
    out = tmp_path / "retail.jdsl"
    result = runner.invoke(app, ["compile", str(traces), "-o", str(out), "--name", "retail"])
    assert result.exit_code == 0, result.output
    assert "verification  passed" in result.output and "orders[$selected_index].id" in result.output
    inspect = runner.invoke(app, ["package", "inspect", str(out)])
    assert inspect.exit_code == 0 and "run inputs    email (string), request" in inspect.output
    assert "act get_order(order_id=orders[$selected_index].id)" in inspect.output
    verify = runner.invoke(app, ["package", "verify", str(out)])
    assert verify.exit_code == 0 and verify.output.startswith("ok: retail")


def test_package_run_binds_host_tools(retail_trace, tmp_path) -> None:
    out = tmp_path / "r.jdsl"
    runner.invoke(app, ["compile", str(retail_trace(3)), "-o", str(out)])
    args = ["package", "run", str(out), "--tools", TOOLS, "--input", "email=c1@x.com",
            "--input", "request=cancel", "--input", "note:=[1, 2]", "--reply", "0"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    board = json.loads(result.stdout.split("\n", 1)[1])
    assert board["order"]["id"] == "#W10" and board["note"] == [1, 2]
    fallback = runner.invoke(app, args[:-1] + ["7"])  # out of range: the fallback answers
    assert (
        fallback.exit_code == 0 and json.loads(fallback.stdout.split("\n", 1)[1])["answer"] == "7"
    )
    assert "the package's fallback (a react agent" in fallback.stderr  # says who answered
    missing = runner.invoke(app, ["package", "run", str(out), "--tools", "jdsl.envs:nothing"])
    assert missing.exit_code != 0


def test_verify_refuses_a_tampered_package(retail_trace, tmp_path) -> None:
    out = tmp_path / "r.jdsl"
    runner.invoke(app, ["compile", str(retail_trace(2)), "-o", str(out)])
    data = bytearray(out.read_bytes())
    data[len(data) // 3] ^= 0xFF
    out.write_bytes(bytes(data))
    result = runner.invoke(app, ["package", "verify", str(out)])
    assert result.exit_code == 1 and "error:" in result.output


def _failed_trace(path: Path) -> Path:
    b = EpisodeBuilder("e")
    b.call("x", error="boom", a="bb")
    sink = JsonlTraceSink(path)
    from jdsl.trace import TraceEvent

    for event in b.done(success=False)["events"]:
        sink.emit(TraceEvent(kind=event["kind"], episode_id="e", payload=event["payload"]))
    return path


def test_compile_without_a_successful_episode_exits_1_and_writes_nothing(tmp_path) -> None:
    path = _failed_trace(tmp_path / "failed.jsonl")
    out = tmp_path / "f.jdsl"
    result = runner.invoke(app, ["compile", str(path), "-o", str(out)])
    assert result.exit_code == 1 and not out.exists()
    assert (
        "error: no successful episode in" in result.output
        and "(1 failed or cancelled)" in result.output
    )


def _with_verification(monkeypatch, report) -> None:
    """Make the CLI's compile see ``report`` as its verification."""
    import dataclasses

    import jdsl.commands.compile as cli

    real = cli.compile_normalized

    def compile_normalized(normalized, **kw):
        return dataclasses.replace(real(normalized, **kw), verification=report)

    monkeypatch.setattr(cli, "compile_normalized", compile_normalized)


def test_compile_exits_1_without_a_package_when_verification_fails(
    retail_trace, tmp_path, monkeypatch
) -> None:
    """A compile whose verification fails prints the report, names the failure, writes nothing."""
    from jdsl.compiler import VerificationReport

    _with_verification(monkeypatch, VerificationReport(("injected structural problem",)))
    out = tmp_path / "f.jdsl"
    result = runner.invoke(app, ["compile", str(retail_trace(2)), "-o", str(out)])
    assert result.exit_code == 1 and not out.exists()
    assert "verification  failed" in result.output
    assert (
        "error: verification failed; no package written — see the problems above" in result.output
    )


def test_compile_exits_1_without_a_package_when_nothing_was_replayed(
    retail_trace, tmp_path, monkeypatch
) -> None:
    """0 replay checks is ``unverified`` (coverage n/a), never ``passed``: exit 1, no package."""
    from jdsl.compiler import VerificationReport

    _with_verification(monkeypatch, VerificationReport(()))
    out = tmp_path / "u.jdsl"
    result = runner.invoke(app, ["compile", str(retail_trace(2)), "-o", str(out)])
    assert result.exit_code == 1 and not out.exists()
    assert "verification  unverified (structure ok, replay 0/0, coverage n/a;" in result.output
    assert "error: unverified: nothing to replay or execute" in result.output


def test_compile_refuses_a_trace_with_an_edited_event(retail_trace, tmp_path) -> None:
    path = retail_trace(2)
    lines = path.read_text(encoding="utf-8").splitlines()
    i = next(i for i, line in enumerate(lines) if '"blackboard.write"' in line)
    event = json.loads(lines[i])
    event["payload"]["value"] = "edited"
    lines[i] = json.dumps(event)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "t.jdsl"
    result = runner.invoke(app, ["compile", str(path), "-o", str(out)])
    assert result.exit_code == 1 and not out.exists()
    assert "hash chain is broken" in result.output and "event_hash does not match" in result.output


def test_group_by_writes_one_package_per_family(retail_trace, tmp_path) -> None:
    first, second = retail_trace(3, "a.jsonl"), retail_trace(2, "b.jsonl", start=10)
    out = tmp_path / "families"
    result = runner.invoke(app, ["compile", str(first), str(second), "-o", str(out),
                                 "--group-by", "sequence"])  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("seq-")]
    assert len(rows) == 1 and " 5/5 passed" in rows[0] and rows[0].count(" 5/5 ") == 2
    assert [p.name for p in out.iterdir()] == ["seq-lookup-list_orders-get_order.jdsl"]
    by_task = runner.invoke(app, ["compile", str(first), "-o", str(out), "--group-by", "task"])
    assert by_task.exit_code == 0


def test_parse_inputs() -> None:
    assert parse_inputs(["a=1", "b=x y", "c:={\"k\": true}", 'd:=""', "e:=1"]) == {
        "a": "1", "b": "x y", "c": {"k": True}, "d": "", "e": 1}  # fmt: skip
    with pytest.raises(Exception, match="KEY=VALUE"):
        parse_inputs(["novalue"])
    with pytest.raises(Exception, match="d= has an empty value"):
        parse_inputs(["d="])


_COMPILE = """
import sys
from jdsl.compiler import compile_behavior
from jdsl.trace import read_events
result = compile_behavior(read_events(sys.argv[1]).episodes, name="retail")
for name, data in sorted(result.package.files.items()):
    sys.stdout.write(name + " " + data.hex() + "\\n")
"""


def test_compiling_twice_under_other_hash_seeds_is_byte_identical(retail_trace) -> None:
    traces = retail_trace(4)
    outputs = []
    for seed in ("1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", _COMPILE, str(traces)], env=env,
                              capture_output=True, text=True, check=True)  # fmt: skip
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and "behavior.json" in outputs[0]
