"""A trace never chooses where a file is written (notes fresh7 finding 1c): every file name a
command derives from data (a skill, a family, ``-n``) is one safe path component inside ``-o``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jdsl.cli import app
from typer.testing import CliRunner

RUNNER = CliRunner()


def _chat_rows(skill: str) -> str:
    rows = []
    for i in range(3):
        arguments = json.dumps({"q": f"item{i}x"})
        rows.append({
            "metadata": {"skill": skill, "inputs": {"q": f"item{i}x"}},
            "tools": [{"type": "function", "function": {
                "name": "lookup",
                "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
            }}],
            "messages": [
                {"role": "user", "content": f"find item{i}x"},
                {"role": "assistant", "content": None, "tool_calls": [{
                    "id": "c1", "type": "function",
                    "function": {"name": "lookup", "arguments": arguments},
                }]},
                {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"id": "ID099"})},
                {"role": "assistant", "content": "done"},
            ],
        })  # fmt: skip
    return "".join(json.dumps(row) + "\n" for row in rows)


def _imported(tmp_path: Path, skill: str) -> Path:
    chat = tmp_path / "chat.jsonl"
    chat.write_text(_chat_rows(skill), encoding="utf-8")
    trace = tmp_path / "chat_tr.jsonl"
    result = RUNNER.invoke(app, ["import", "openai-chat", str(chat), "-o", str(trace)])
    assert result.exit_code == 0, result.output
    return trace


def _written(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.jdsl"))


@pytest.mark.parametrize(
    ("skill", "extra"),
    [
        ("../../pwned", []),
        ("{tmp}/abs/pwned", []),
        ("..", []),
        ("../../pwned", ["--holdout", "1"]),
    ],
    ids=["skill ..", "skill absolute", "skill is ..", "holdout skill .."],
)
def test_a_name_from_the_trace_stays_inside_the_output_directory(
    tmp_path: Path, skill: str, extra: list[str]
) -> None:
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    trace = _imported(work, skill.format(tmp=tmp_path))
    out = work / "out"
    out.mkdir()
    result = RUNNER.invoke(app, ["compile", str(trace), "-o", f"{out}/", *extra])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    written = _written(tmp_path)
    assert written, result.output
    assert all(p.parent == out for p in written), (written, result.output)


def test_the_package_and_its_file_get_the_safe_name(tmp_path: Path) -> None:
    trace = _imported(tmp_path, "../../pwned")
    out = tmp_path / "out"
    out.mkdir()
    result = RUNNER.invoke(app, ["compile", str(trace), "-o", f"{out}/"])
    assert result.exit_code == 0, result.output
    (package,) = _written(tmp_path)
    assert package.parent == out and not package.name.startswith(".")
    assert ".." not in package.name and "/" not in package.name
    assert "skill '../../pwned' is not a safe file name; the package is named 'pwned'" in (
        result.output
    )


@pytest.mark.parametrize("extra", [[], ["--holdout", "1"]])
def test_n_names_each_family_package_and_its_file_name_family(runner, traces, tmp_path, extra):
    """``-n NAME`` with --group-by (and --holdout): the help says packages are named
    NAME-FAMILY; so are their files, and two compiles with two names into one directory keep
    both (fresh9 finding 4; was: files FAMILY.jdsl whatever -n said, --holdout ignored -n)."""
    from jdsl.package import load_package

    trace, out = traces(3), tmp_path / "out"
    for name in ("first", "second"):
        result = runner.invoke(app, ["compile", str(trace), "--group-by", "intent", "-n", name,
                                     "-o", f"{out}/", *extra])  # fmt: skip
        assert result.exit_code == 0, result.output
    files = sorted(p.name for p in out.glob("*.jdsl"))
    assert len(files) == 2 and [f.split("-", 1)[0] for f in files] == ["first", "second"], files
    for file in files:
        assert load_package(out / file).manifest["name"] == file.removesuffix(".jdsl")
    help_text = runner.invoke(app, ["compile", "--help"]).output
    assert "NAME-FAMILY" in " ".join(help_text.split())


@pytest.mark.parametrize("extra", [[], ["--holdout", "1"]])
def test_a_long_n_is_cut_in_a_family_file_name_never_the_family(runner, traces, tmp_path, extra):
    """cli11: the longest -n (115 bytes) with --group-by made ``nnn...-9c256c56.jdsl``: the
    cut kept the name and dropped the family it holds. The name's end is cut instead, and the
    package is named as its file."""
    from jdsl.package import load_package

    name, out = "n" * 115, tmp_path / "out"
    result = runner.invoke(app, ["compile", str(traces(3)), "--group-by", "sequence", "-n", name,
                                 "-o", f"{out}/", *extra])  # fmt: skip
    assert result.exit_code == 0, result.output
    (file,) = out.glob("*.jdsl")
    assert file.name.endswith("-seq-lookup-list_orders-get_order.jdsl"), file.name
    assert file.name.startswith("n" * 40) and len(file.name.encode()) <= 120
    assert load_package(file).manifest["name"] == file.name.removesuffix(".jdsl")
