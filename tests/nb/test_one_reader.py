"""One ``KEY=VALUE`` reader (issue 28): ``%behavior --input`` and ``jdsl run --input`` type the
same items the same way, over the same tree and tools, and refuse the same bad items with the
same message. The magic only splits its line as a shell would (so each item below is given to it
shell-quoted, and to the command as one argv word)."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from IPython.core.error import UsageError
from jdsl.cli import app
from typer.testing import CliRunner

TOOLS = """
def find_user(first_name: str, zip: str) -> dict:
    return {"first_name": first_name, "zip": zip}


def add_items(count: int, meta, note) -> dict:
    return {"count": count, "meta": meta, "note": note}


TOOLS = [find_user, add_items]
"""
BEHAVIOR = """seq
  act find_user(first_name=first_name, zip=zip) -> user
  act add_items(count=count, meta=meta, note=note) -> cart
"""
BASE = {"first_name": "Ada", "zip": "80279", "count": "3", "meta": "m", "note": "n"}


@pytest.fixture
def lesson(tmp_path, monkeypatch, ip):
    """The tree as a file for ``jdsl run``, its tools as a module, both bound in the shell."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "reader_tools.py").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "reader.behavior").write_text(BEHAVIOR, encoding="utf-8")
    (tmp_path / "note.txt").write_text("cancel my order\n", encoding="utf-8")
    (tmp_path / "meta.json").write_text('{"a": [1, 2]}', encoding="utf-8")
    module = __import__("reader_tools")
    ip.user_ns.update(find_user=module.find_user, add_items=module.add_items)
    return tmp_path


def _items(**given: str) -> list[str]:
    """KEY=VALUE items: ``given`` over :data:`BASE` (a key ending in ``_`` is ``KEY:=``)."""
    out = {**{f"{k}=": v for k, v in BASE.items()}}
    for key, value in given.items():
        out.pop(f"{key.rstrip('_')}=", None)
        out[f"{key.rstrip('_')}{':=' if key.endswith('_') else '='}"] = value
    return [f"{k}{v}" for k, v in out.items()]


def _cli(items: list[str]):
    args = ["run", "reader.behavior", "--tools", "reader_tools:TOOLS"]
    for item in items:
        args += ["--input", item]
    return CliRunner().invoke(app, args, env={"COLUMNS": "1000"})


def _magic(ip, items: list[str]) -> dict:
    line = "reader --run --show none " + " ".join(f"--input {shlex.quote(i)}" for i in items)
    ip.run_cell_magic("behavior", line, BEHAVIOR)
    ctx = ip.user_ns["reader_run"]
    assert ctx.status.value == "success", ctx.error
    return json.loads(json.dumps(dict(ctx.blackboard), default=str))


CASES = {
    "numbers": _items(count="3", zip="80279", note="3"),
    "an untyped number is text": _items(note="2.5", first_name="7"),
    "JSON objects": _items(meta_='{"a": [1, 2], "b": {"c": null}}', note_="[1, 2]"),
    "quoted strings": _items(first_name='"Ada Lovelace"', note="cancel my order", meta_='"x"'),
    "@file": _items(note="@note.txt", meta_="@meta.json"),
    "empty strings on purpose": _items(note_='""', zip_='""'),
}


@pytest.mark.parametrize("items", CASES.values(), ids=CASES.keys())
def test_the_magic_and_jdsl_run_type_the_same_items_identically(lesson, ip, items):
    result = _cli(items)
    assert result.exit_code == 0, result.output
    board = json.loads(result.output.split("\n", 1)[1])
    assert _magic(ip, items) == board


def test_what_the_one_reader_gives(lesson, ip):
    board = _magic(ip, _items(count="3", zip="80279", meta_="@meta.json", note="@note.txt"))
    assert board["count"] == 3 and board["zip"] == "80279"
    assert board["meta"] == {"a": [1, 2]} and board["note"] == "cancel my order\n"
    assert _magic(ip, _items(note="3", meta_="3"))["note"] == "3"
    assert _magic(ip, _items(note="3", meta_="3"))["meta"] == 3


BAD = {
    "not the declared type": _items(count="three"),
    "empty where an int is wanted": _items(count=""),
    "an empty value (an unset shell variable)": _items(note=""),
    "bad JSON after :=": _items(meta_="[1"),
    "no such file": _items(note="@missing.txt"),
    "a file that is not JSON after :=": _items(meta_="@note.txt"),
    "no =": [*_items(), "novalue"],
    "a run() parameter": [*_items(), "model=m"],
    "given twice": [*_items(), "note=again"],
}


@pytest.mark.parametrize("items", BAD.values(), ids=BAD.keys())
def test_a_bad_item_is_the_same_error_in_the_magic_and_jdsl_run(lesson, ip, items):
    result = _cli(items)
    assert result.exit_code == 2, result.output
    cli = " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())
    with pytest.raises(UsageError) as raised:
        _magic(ip, items)
    said = str(raised.value)
    assert said.startswith("--input: ")
    message = " ".join(said.removeprefix("--input: ").split())
    assert re.search(r"Invalid value for '?--input'?: " + re.escape(message), cli), (said, cli)


def test_a_file_value_is_named_not_pasted_into_the_error(tmp_path, monkeypatch):
    """Errors about a value read with ``@PATH`` name the file and cut the value short; a
    ``~user`` that does not exist is an InputError, not a RuntimeError."""
    from jdsl.errors import InputError
    from jdsl.inputs import parse_inputs

    monkeypatch.chdir(tmp_path)
    (tmp_path / "big.txt").write_text("x" * 5000, encoding="utf-8")
    with pytest.raises(InputError, match=r"n:=@big.txt is not JSON; write n=@big.txt for its text"):
        parse_inputs(["n:=@big.txt"])
    with pytest.raises(InputError) as raised:
        parse_inputs(["n=@big.txt"], types={"n": [("f.n", {"type": "integer"})]})
    assert "does not fit f.n" in str(raised.value) and len(str(raised.value)) < 400
    with pytest.raises(InputError, match="cannot read it"):
        parse_inputs(["n=@~no_such_user_h27c/x"])
