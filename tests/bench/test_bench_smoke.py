"""Smoke tests: every benchmark measurement runs once at its smallest size, so bench/ cannot rot.

No timing assertions: only that each measurement runs and reports what it says it does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import compiler, corpora, imports, interpreter, machine, notebook, table  # noqa: E402
from bench import run as bench_run  # noqa: E402
from bench.table import Row  # noqa: E402


@pytest.mark.parametrize("key,ticks", [("seq", 11), ("sel", 5)])
def test_interpreter_shapes_tick_the_same_nodes_in_both_libraries(
    tmp_path: Path, key: str, ticks: int
) -> None:
    shape = interpreter.Shape(key, f"tiny {key}", ticks, 1)
    assert sum(1 for _ in interpreter.jdsl_tree(shape).walk()) == ticks + 1  # + the Root
    assert sum(1 for _ in interpreter.py_trees_tree(shape).iterate()) == ticks
    rows = interpreter.measure_shape(shape, repeats=1, tmp=tmp_path)
    judged = key == "sel"  # JSONL tracing is judged on the selector shape, per event on seq
    assert [r.peer_name for r in rows] == [
        "py_trees",
        "py_trees",
        "jdsl untraced",
        "jdsl untraced",
        "jdsl untraced" if judged else None,
        "py_trees + list visitor",
    ]
    assert all(r.value is not None for r in rows)
    assert all(r.value > 0 for r in rows if r.name.endswith("per node tick"))
    assert [r.met is not None for r in rows] == [True, False, True, False, judged, False]
    assert judged or rows[4].name.endswith("added per event")
    assert list(tmp_path.glob("*.jsonl")), "the JSONL-traced runs wrote no file"


@pytest.mark.parametrize("key,ticks", [("seq", 0), ("star", 11)])
def test_a_shape_that_cannot_be_built_is_refused(key: str, ticks: int) -> None:
    with pytest.raises(ValueError, match="ticks"):
        interpreter.Shape(key, "bad", ticks, 1)


def test_compiler_figures_of_a_tiny_retail_corpus(tmp_path: Path) -> None:
    path = corpora.retail_corpus(tmp_path / "retail.jsonl", 3)
    figures = compiler.measure_file(path, repeats=1)
    assert figures["episodes"] == 3
    assert figures["events"] == compiler.parse_json_lines(path) > 0
    assert figures["parse_s"] > 0 and figures["load_s"] > 0 and figures["peak_rss"] > 0
    # Either the compiler ran, or the reason it did not is reported (never a silent None).
    assert (figures["compile_s"] is None) == (figures["error"] is not None)
    assert figures["error"] is None, figures["error"]
    assert figures["families"] == 1 and figures["verified"] == 1
    rows = compiler.corpus_rows("tiny", figures, memory_target=True)
    assert rows[0].peer_name == "json.loads" and rows[2].target == "< 2 GB"


def test_the_compiler_worker_runs_in_a_fresh_interpreter(tmp_path: Path) -> None:
    path = corpora.retail_corpus(tmp_path / "retail.jsonl", 2)
    corpora.retail_corpus(path, 2)  # a second corpus at the same path replaces the first
    figures = compiler.run_worker(path, repeats=1, timeout_s=120)
    assert figures["episodes"] == 2 and figures["events"] == 2 * 31, figures


def test_the_compiler_worker_reports_a_missing_file(tmp_path: Path) -> None:
    figures = compiler.run_worker(tmp_path / "absent.jsonl", repeats=1, timeout_s=120)
    assert "worker failed" in figures["error"]
    row = compiler.corpus_rows("absent", figures, memory_target=True)[0]
    assert row.value is None and table.verdict(row) == "NOT MEASURED"


def test_airline_corpus_compiles_per_task(tmp_path: Path) -> None:
    path = corpora.airline_corpus(tmp_path / "airline.jsonl")
    assert compiler.read_episodes(path) == 54
    assert len(compiler.compile_families(path)) == 26


def test_scale_rows_of_a_tiny_corpus(tmp_path: Path) -> None:
    from bench import scale

    paths = scale.write_shards(tmp_path / "shards", 6, shards=2, processes=1)
    figures = scale.compile_worker(paths)
    assert figures["episodes"] == 6 and figures["ok"] and figures["peak_rss"] > 0
    rows = scale._local_rows(6, figures, target=True)
    # the peak RSS is the whole pytest process's (every earlier test's imports included), so
    # the row is checked for judging its figure against the target, not for meeting it
    assert rows[1].target == "<= 500 MB" and rows[1].value == figures["peak_rss"]
    assert rows[1].met is (figures["peak_rss"] <= scale.MEMORY_TARGET)
    assert "verified True" in rows[0].note
    table = scale.simulate_range((0, 4))
    assert table.episodes == 4 and {c.grade for c in table.candidates()} >= {"E2"}


def test_exponent_is_the_log_log_slope() -> None:
    figures = {100: {"compile_s": 1.0}, 10_000: {"compile_s": 100.0}}
    row = compiler.exponent_row([100, 10_000], figures, quick=False)
    assert row.value == pytest.approx(1.0) and row.met is True
    missing = compiler.exponent_row([100, 10_000], {100: {}, 10_000: {}}, quick=True)
    assert missing.value is None and "--quick" in missing.name


def test_notebook_runview_and_drawing_at_the_smallest_size() -> None:
    pytest.importorskip("ipywidgets")
    ctx = notebook.run_with_events(100)
    assert len(ctx.trace_sink.events) >= 100
    rows = notebook.runview_rows(100, repeats=1, with_targets=True)
    assert rows[2].unit == "B" and rows[2].value is not None and rows[2].value > 0
    assert rows[0].met is not None and rows[2].met is not None
    drawn = notebook.drawing_rows(repeats=1, nodes=20)
    assert drawn and all("20-node drawing" in r.name for r in drawn)


def test_the_drawing_tree_has_exactly_the_nodes_asked_for() -> None:
    assert sum(1 for _ in notebook.drawing_tree(47).walk()) == 47


def test_import_time_in_a_fresh_interpreter() -> None:
    assert 0 < imports.import_seconds("import jdsl_nb", repeats=1) < 60


def test_import_time_of_a_missing_module_raises() -> None:
    with pytest.raises(RuntimeError, match="no_such_module_jdsl"):
        imports.import_seconds("import no_such_module_jdsl", repeats=1)


def test_table_renders_verdicts_and_units() -> None:
    rows = [
        Row("s", "fast", 2e-6, "s", 1e-6, "peer", "<= peer", False),
        Row("s", "small", 1.5e6, "B", target="< 2 GB", met=True),
        Row("t", "unmeasured", None, "s", target="< 1 s"),
    ]
    text = table.text_table(rows)
    assert "2 µs" in text and "2.00x" in text and "MISSED" in text and "1.5 MB" in text
    assert "NOT MEASURED" in text
    md = table.markdown(
        rows, machine=machine.describe_machine(), command="python bench/run.py", elapsed_s=1.0
    )
    assert "## s" in md and "python bench/run.py" in md and "1 met, 2 missed" in md
    assert set(machine.describe_machine()) >= {"cpu", "cores", "memory", "python"}


def test_load_text_gives_three_load_averages() -> None:
    loads = machine.load_text().split(", ")
    assert len(loads) == 3 and all(float(load) >= 0 for load in loads)


def test_run_main_writes_results_and_reports_a_failed_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*, quick: bool) -> list[Row]:
        raise OSError("disk on fire")

    def fine(*, quick: bool) -> list[Row]:
        return [Row("fine", "figure", 1.0, "s", target="< 2 s", met=True, note=json.dumps(quick))]

    monkeypatch.setattr(bench_run, "SECTIONS", {"fine": fine, "broken": broken})
    out = tmp_path / "RESULTS.md"
    assert bench_run.main(["--quick", "--output", str(out)]) == 0
    text = out.read_text()
    assert "section failed" in text and "disk on fire" in text and "--quick" in text
    assert "jdsl commit:" in text
    assert "figure" in capsys.readouterr().out


def test_scale_worker_reports_a_missing_shard_in_one_line_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench import scale

    with pytest.raises(SystemExit) as info:
        scale.main(["--compile", str(tmp_path / "missing.jsonl")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: no trace file at {tmp_path / 'missing.jsonl'}")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_the_readme_shard_command_writes_shards_scale_compiles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench import scale

    paths = scale.write_shards(tmp_path / "shards", 16, processes=1)
    assert sorted(p.name for p in (tmp_path / "shards").glob("*.jsonl")) == [p.name for p in paths]
    scale.main(["--compile", *map(str, paths)])
    assert json.loads(capsys.readouterr().out)["episodes"] == 16


def test_the_default_results_file_is_ignored_by_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """``make bench`` writes where git does not look: the committed RESULTS.md files change
    only when refreshed on purpose (``--output bench/RESULTS.md``)."""
    import subprocess

    default = bench_run.HERE / "out" / "RESULTS.md"
    parser_default = [
        a.default for a in _parser_actions(bench_run) if "--output" in a.option_strings
    ]
    assert parser_default == [default]
    done = subprocess.run(
        ["git", "check-ignore", "-q", str(default)], cwd=bench_run.HERE, check=False
    )
    assert done.returncode == 0, "bench/out/ must be in .gitignore"


def _parser_actions(module):  # type: ignore[no-untyped-def]
    """The argparse actions ``main`` builds (captured by stopping it at parse_args)."""
    import argparse

    captured = []

    class Stop(Exception):
        pass

    def parse_args(self, argv=None):  # type: ignore[no-untyped-def]
        captured.extend(self._actions)
        raise Stop

    real = argparse.ArgumentParser.parse_args
    argparse.ArgumentParser.parse_args = parse_args  # type: ignore[method-assign]
    try:
        module.main([])
    except Stop:
        pass
    finally:
        argparse.ArgumentParser.parse_args = real  # type: ignore[method-assign]
    return captured
