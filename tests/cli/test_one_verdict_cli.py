"""One verdict per (package, run) whichever command asks: the compile (its
``tests/replay.jsonl``), ``jdsl package validate`` and ``jdsl show --diff`` judge each training
run of an imported results file alike (they read the run as the package does:
:mod:`jdsl.compiler.reading`)."""

from __future__ import annotations

import json

import pytest
from jdsl.cli import app
from jdsl.demo.retail_styles import style_runs
from jdsl.package import load_package

pytestmark = pytest.mark.slow

_DIFF_KINDS = {"matched": "matched", "handed": "fallback", "unreplayable": "unreplayable",
               "DIVERGED": "diverged"}  # fmt: skip


def test_compile_validate_and_diff_give_each_training_run_one_verdict(runner, tmp_path) -> None:
    results = tmp_path / "terse.json"
    results.write_text(json.dumps(style_runs("terse")), encoding="utf-8")
    trace = tmp_path / "t.jsonl"
    assert (
        runner.invoke(app, ["import", "tau-bench", str(results), "-o", str(trace)]).exit_code == 0
    )
    out = tmp_path / "pk"
    runner.invoke(app, ["compile", str(trace), "--group-by", "intent", "-o", f"{out}/"])
    package = out / "retail.cancel_pending_order.jdsl"
    compiled = {r["episode"]: r["outcome"] for r in load_package(package).jsonl(
        "tests/replay.jsonl") if r["executed"]}  # fmt: skip
    assert compiled and set(compiled.values()) >= {"matched", "fallback"}
    validated = runner.invoke(app, ["package", "validate", str(package), str(trace)])
    rows = {line.split()[0]: line.split()[1] for line in validated.stdout.splitlines()
            if line.split() and line.split()[0] in compiled}  # fmt: skip
    assert rows == compiled, validated.stdout
    diffed = runner.invoke(app, ["show", "--diff", str(package), str(trace)])
    verdicts = {line.split()[1].rstrip(":"): _DIFF_KINDS[line.split()[2]]
                for line in diffed.stdout.splitlines() if line.startswith("episode ")}  # fmt: skip
    assert verdicts == compiled, diffed.stdout
