"""`jdsl show --diff` reads runs as `jdsl package validate` does: a run cut off mid-run (its
episode.finished line torn away) did not end, so it is left out under validate's note, never
called a match (fresh clone, 2026-12-04: 'matched ... package success' where validate refused)."""

from __future__ import annotations

from jdsl.cli import app


def _cut_last_run(trace, tmp_path):
    """``trace`` with its last episode.finished line (its last run's end) torn in half."""
    lines = trace.read_text().splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if '"episode.finished"' in line)
    lines[last] = lines[last][: len(lines[last]) // 2] + "\n"
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines))
    return cut


def test_show_diff_leaves_out_a_run_cut_off_mid_run_as_validate_does(runner, traces, tmp_path):
    package = tmp_path / "p.jdsl"
    made = runner.invoke(app, ["compile", str(traces(3, name="c.jsonl")), "-o", str(package)])
    assert made.exit_code == 0, made.output
    trace = traces(3, name="w.jsonl")
    whole = runner.invoke(app, ["show", "--diff", str(package), str(trace)])
    assert whole.exit_code == 0, whole.output
    compared = int(whole.stdout.rsplit(" episode(s):", 1)[0].rsplit("\n", 1)[-1])
    cut = _cut_last_run(trace, tmp_path)
    args = [str(package), str(cut), "--skip-bad-lines"]
    diff = runner.invoke(app, ["show", "--diff", *args])
    validate = runner.invoke(app, ["package", "validate", *args])
    note = [line for line in validate.stderr.splitlines() if "cut off mid-run" in line]
    assert note, validate.stderr
    assert note[0] in diff.stderr.splitlines(), diff.stderr
    assert f"\n{compared - 1} episode(s):" in diff.stdout, diff.stdout  # the cut run is not one
