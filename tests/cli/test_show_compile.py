"""``jdsl show TRACES --compile`` previews what ``jdsl compile`` gives: the same grouping
(the importer's recommendation: intent for tau-bench runs) and the same families."""

from __future__ import annotations

from pathlib import Path

from jdsl.cli import app
from jdsl.importers import import_tau_bench
from jdsl.trace import JsonlTraceSink
from typer.testing import CliRunner

SLICE = Path(__file__).parents[1] / "fixtures" / "tau_bench" / "gpt-4o-airline.slice.json"


def _rows(output: str) -> dict[str, tuple[str, str]]:
    """family -> (ok/runs, verify) of a family table."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("family "))
    rows = {}
    for line in lines[start + 1 :]:
        parts = line.split()
        if len(parts) < 3 or not parts[1].replace("/", "").isdigit():
            continue
        rows[parts[0]] = (parts[1], parts[2])
    return rows


def test_show_compile_groups_as_compile_does(tmp_path: Path) -> None:
    traces = tmp_path / "runs.jsonl"
    with JsonlTraceSink(traces) as sink:
        import_tau_bench(SLICE, sink=sink)
    runner = CliRunner()
    compiled = runner.invoke(app, ["compile", str(traces), "-o", str(tmp_path / "pk")])
    preview = runner.invoke(app, ["show", str(traces), "--compile"])
    assert preview.exit_code == 0, preview.output
    assert "grouping by intent" in preview.output
    assert "0 follow the compiled path" not in preview.output
    assert _rows(preview.stdout) == _rows(compiled.stdout) != {}
