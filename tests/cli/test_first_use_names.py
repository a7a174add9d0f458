"""More of what a fresh user met: an ``--input`` without ``=``, a package name that is no file
name, and a missing input path reported before a missing ``-o``."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from jdsl.cli import app
from jdsl.dsl import act, ref, root
from jdsl.envs.fixtures import RetailWorld
from jdsl.trace import JsonlTraceSink

TOOLS = "jdsl.envs.fixtures:retail_fixture_tools"
EXAMPLES = Path(__file__).parents[2] / "core" / "jdsl" / "examples"


def _manifest(package: Path) -> dict:
    with zipfile.ZipFile(package) as archive:
        return json.loads(archive.read("manifest.json"))


def _skill_traces(path: Path, skill: str) -> Path:
    """Three traced runs of a one-step tree whose root (the trace's skill) is ``skill``."""
    sink = JsonlTraceSink(path)
    for i in range(3):
        world = RetailWorld.numbered(i)
        lookup = {t.name: t for t in world.tools()}["lookup"]
        tree = root(skill).do(act(lookup, email=ref("email")) >> "customer")
        tree.run(trace_sink=sink, episode_id=f"ep_{i}", email=world.email)
    sink.close()
    return path


def test_an_input_without_an_equals_sign_says_how_to_write_one(runner) -> None:
    result = runner.invoke(app, ["run", str(EXAMPLES / "retail_lookup.behavior"), "--tools",
                                 TOOLS, "--input", "email"])  # fmt: skip
    assert result.exit_code == 2
    assert "Invalid value for --input: 'email' is not KEY=VALUE" in result.output
    assert "use KEY=VALUE (or KEY:=JSON)" in result.output


def test_an_unsafe_name_given_with_n_is_refused_saying_what_a_name_is(
    runner, traces, tmp_path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    result = runner.invoke(app, ["compile", str(traces(3)), "-n", "../../evil", "-o", str(out)])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "'../../evil' is not a package name" in text
    assert "-n NAME to choose" not in text and "e.g. -n evil" in text
    assert not list(out.iterdir()) and not (tmp_path.parent / "evil.jdsl").exists()


def test_a_skill_that_is_no_file_name_names_the_package_safely(runner, tmp_path) -> None:
    trace = _skill_traces(tmp_path / "t.jsonl", "../../pwned")
    out = tmp_path / "out"
    out.mkdir()
    result = runner.invoke(app, ["compile", str(trace), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert [p.name for p in out.iterdir()] == ["pwned.jdsl"]
    assert _manifest(out / "pwned.jdsl")["name"] == "pwned"
    single = runner.invoke(app, ["compile", str(trace), "-o", str(tmp_path / "one.jdsl")])
    assert single.exit_code == 0, single.output
    assert _manifest(tmp_path / "one.jdsl")["name"] == "pwned"
    families = tmp_path / "families"
    families.mkdir()
    grouped = runner.invoke(app, ["compile", str(trace), "-o", str(families), "--group-by", "task"])
    assert grouped.exit_code == 0, grouped.output
    assert "the package is named" not in grouped.output  # families name their packages


def test_a_missing_input_is_reported_before_a_missing_out(runner, tmp_path) -> None:
    missing = tmp_path / "nothere.json"
    for command in (["import", "tau-bench"], ["import", "openai-chat"], ["compile"]):
        result = runner.invoke(app, [*command, str(missing)])
        assert result.exit_code == 2, (command, result.output)
        assert "does not exist" in result.output and "Missing option" not in result.output


def test_compile_of_a_behavior_file_without_out_points_to_jdsl_run(runner) -> None:
    result = runner.invoke(app, ["compile", str(EXAMPLES / "retail_lookup.behavior")])
    assert result.exit_code != 0
    assert "Missing option" not in result.output and "jdsl run" in result.output


def test_a_name_with_a_slash_is_refused_with_group_by_too(runner, traces, tmp_path) -> None:
    """fresh8: `-n "mé pkg 🙂/x" --group-by ...` took the `/` into the manifest name."""
    out = tmp_path / "out"
    out.mkdir()
    result = runner.invoke(app, ["compile", str(traces(3)), "-n", "mé pkg 🙂/x",
                                 "--group-by", "sequence", "-o", str(out)])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "is not a package name" in " ".join(result.output.split())
    assert not list(out.iterdir())
