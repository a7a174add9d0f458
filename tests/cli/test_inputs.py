"""Run inputs: ``KEY=VALUE`` is a string unless the package records KEY's type; ``KEY:=JSON``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from jdsl import tool_spec
from jdsl.cli import app, parse_inputs
from jdsl.dsl import act, predict, ref, root, seq
from jdsl.package import BehaviorPackage, export_jdsl, input_types, load_package, package_from_root

HOST = """
from jdsl import tool


@tool
def find_user(first_name: str, zip: str) -> dict:
    if zip != "77209":
        raise ValueError(f"no user named {first_name} with zip {zip!r}")
    return {"id": "u1", "name": first_name}


@tool
def add_items(user_id: str, count: int) -> dict:
    return {"user": user_id, "count": count, "twice": count * 2}


def tools():
    return [find_user, add_items]
"""


@pytest.fixture
def shop(host_module, tmp_path: Path) -> tuple[Path, str]:
    """A package reading first_name, zip (str) and count (int); its host tools spec."""
    name = host_module("shop_tools", HOST)
    module = __import__(name)
    tree = root("shop").do(
        seq(
            act(module.find_user, first_name=ref("first_name"), zip=ref("zip")) >> "user",
            act(module.add_items, user_id=ref("user.id"), count=ref("count")) >> "cart",
        )
    )
    contracts = {
        fn.name: {"input_schema": tool_spec(fn).parameters}
        for fn in (module.find_user, module.add_items)
    }
    package = package_from_root(tree, tool_contracts=contracts)
    return export_jdsl(package, tmp_path / "shop.jdsl"), f"{name}:tools"


def _run(runner, shop, *inputs: str):
    path, tools = shop
    args = ["package", "run", str(path), "--tools", tools]
    for item in inputs:
        args += ["--input", item]
    return runner.invoke(app, args)


def test_recorded_types_pick_string_or_integer(runner, shop) -> None:
    result = _run(runner, shop, "first_name=Ana", "zip=77209", "count=3")
    assert result.exit_code == 0, result.output
    board = json.loads(result.output.split("\n", 1)[1])
    assert board["zip"] == "77209" and board["count"] == 3 and board["cart"]["twice"] == 6


def test_a_value_that_does_not_fit_its_type_is_a_usage_error(runner, shop) -> None:
    result = _run(runner, shop, "first_name=Ana", "zip=77209", "count=three")
    assert result.exit_code == 2
    assert "count='three' does not fit add_items.count" in result.output
    assert "count:=JSON" in result.output


def test_colon_equals_passes_json_unchecked(runner, shop) -> None:
    result = _run(runner, shop, "first_name=Ana", "zip:=77209", "count:=3")
    assert result.exit_code == 1  # the tool gets the integer 77209 and finds nobody
    assert "no user named Ana with zip 77209" in result.output


def test_input_types_come_from_tool_contracts_and_typed_signature_fields(shop) -> None:
    types = input_types(load_package(shop[0]))
    assert sorted(types) == ["count", "first_name", "zip"]
    assert types["zip"] == [("find_user.zip", {"type": "string"})]
    assert types["count"] == [("add_items.count", {"type": "integer"})]
    tree = root("ask").do(
        predict("n: int, note -> answer", id="ask_n", input_sources={"n": "limit"})
    )
    typed = input_types(package_from_root(tree))
    assert typed == {"limit": [("ask_n input n", {"type": "integer"})]}  # untyped note: str


def test_parse_inputs_rules() -> None:
    types = {"n": [("t.n", {"type": "integer"})], "tags": [("t.tags", {"type": "array"})]}
    assert parse_inputs(["zip=02134", "n=7", "tags=[1]", "o:={\"a\": 1}", 'e:=""'], types=types) == {
        "zip": "02134", "n": 7, "tags": [1], "o": {"a": 1}, "e": ""}  # fmt: skip
    with pytest.raises(typer.BadParameter, match="is not KEY=VALUE") as info:
        parse_inputs(["=x"], option="--canonical")
    assert info.value.param_hint == "--canonical"
    with pytest.raises(typer.BadParameter, match="a:=nope is not JSON; write a=nope for a string"):
        parse_inputs(["a:=nope"])
    with pytest.raises(typer.BadParameter, match="does not fit t.n"):
        parse_inputs(["n=1.5"], types=types)


def test_run_help_documents_the_input_rule(runner) -> None:
    result = runner.invoke(app, ["package", "run", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "KEY=VALUE is a string" in text and "KEY:=JSON is a JSON value" in text


def test_inspect_shows_input_types_and_alternatives(runner, shop, tmp_path) -> None:
    package = load_package(shop[0])
    manifest = {**package.manifest, "source": {"inputs": ["count"], "input_alternatives": [
        [["zip"], ["first_name", "nickname"]]]}}  # fmt: skip
    rebuilt = BehaviorPackage.assemble(manifest, behavior=package.ir, tools=package.tools.values())
    path = export_jdsl(rebuilt, tmp_path / "alt.jdsl")
    result = runner.invoke(app, ["package", "inspect", str(path)])
    assert result.exit_code == 0, result.output
    assert (
        "run inputs    count (integer); one of: zip (string) | first_name (string), nickname"
        in result.output
    )
    missing = runner.invoke(app, ["package", "run", str(path), "-t", shop[1], "-i", "count=1"])
    assert missing.exit_code == 1
    assert "missing run inputs: one of: zip | first_name, nickname" in missing.output


def test_a_branch_with_an_alternative_that_needs_nothing_lists_optional_inputs(
    runner, shop, tmp_path
) -> None:
    """A compiled branch one of whose ways reads no run input requires nothing (a run without
    those inputs takes that way): `inspect` said `one of:  | destination` and, for a branch whose
    ways all need nothing, `one of:  | ` (seen on tau-bench's gpt-4o airline families)."""
    package = load_package(shop[0])
    manifest = {**package.manifest, "source": {"inputs": ["count"], "input_alternatives": [
        [[], []], [[], ["destination"]], [["reservation_id"], [], []]]}}  # fmt: skip
    rebuilt = BehaviorPackage.assemble(manifest, behavior=package.ir, tools=package.tools.values())
    path = export_jdsl(rebuilt, tmp_path / "alt.jdsl")
    result = runner.invoke(app, ["package", "inspect", str(path)])
    assert result.exit_code == 0, result.output
    assert "run inputs    count (integer); optional: destination, reservation_id\n" in result.output
    assert rebuilt.missing_inputs({"count"}) == []


def test_an_input_given_twice_is_an_error_not_a_silent_last_wins() -> None:
    with pytest.raises(typer.BadParameter, match="'email' is given twice"):
        parse_inputs(["email=a@b.c", "email=x@y.z"])


def test_tools_from_a_python_file_path(tmp_path, monkeypatch) -> None:
    """`--tools path/to/tools.py:NAME` loads that file (a module name only worked from the
    file's own directory: 'No module named /path/tools')."""
    import typer
    from jdsl.commands.inputs import read_tools

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "air_tools.py").write_text(
        "def lookup(user_id: str) -> dict:\n    return {'id': user_id}\n\nTOOLS = {'lookup': lookup}\n"
    )
    monkeypatch.chdir(tmp_path)
    tools = read_tools(f"{elsewhere / 'air_tools.py'}:TOOLS")
    assert tools["lookup"]("u1") == {"id": "u1"}
    assert read_tools("elsewhere/air_tools.py:TOOLS")["lookup"]("u2") == {"id": "u2"}
    with pytest.raises(typer.BadParameter, match="no file 'elsewhere/none.py'"):
        read_tools("elsewhere/none.py:TOOLS")
