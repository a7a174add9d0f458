"""Runs of one domain never stand in for another's: a package compiled from imported retail
runs refuses airline runs as ``jdsl package validate`` traces (fresh8 finding 1), airline
packages are the same bytes with retail runs mixed into the corpus (finding 3), and
``--initial-state`` of another domain than the runs record is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jdsl.cli import app
from jdsl.demo.retail_styles import style_runs
from jdsl.envs.data import data_path
from jdsl.importers import import_tau_bench
from jdsl.trace import JsonlTraceSink
from typer.testing import CliRunner

pytestmark = pytest.mark.slow

AIRLINE_TASKS = {12, 20}  # 12_0 calls get_user_details, as retail runs do; task 20: two families


def _airline_rows() -> list[dict]:
    rows = json.loads(data_path("tau_airline", "raw", "gpt-4o-airline.dev.json").read_text())
    return [r for r in rows if r["task_id"] in AIRLINE_TASKS]


def _import(rows: list[dict], tmp_path: Path, name: str) -> Path:
    raw = tmp_path / f"{name}.json"
    raw.write_text(json.dumps(rows), encoding="utf-8")
    traces = tmp_path / f"{name}.jsonl"
    import_tau_bench(str(raw), sink=JsonlTraceSink(traces, resume=False))
    return traces


def test_an_imported_retail_package_refuses_airline_runs(tmp_path: Path) -> None:
    runner = CliRunner()
    retail = _import(style_runs("direct"), tmp_path, "retail")
    airline = _import(_airline_rows(), tmp_path, "airline")
    out = tmp_path / "rp"
    assert runner.invoke(app, ["compile", str(retail), "-o", f"{out}/"]).exit_code == 0
    package = out / "retail.cancel_pending_order.jdsl"
    result = runner.invoke(app, ["package", "validate", str(package), str(airline)])
    assert result.exit_code == 1, result.output
    assert "is of family 'retail.cancel_pending_order'" in result.stderr
    assert "domain" in result.stderr
    diff = runner.invoke(app, ["show", "--diff", str(package), str(airline)])
    assert diff.exit_code == 1, diff.output
    # its own runs still validate
    own = runner.invoke(app, ["package", "validate", str(package), str(retail)])
    assert own.exit_code == 0, own.output


def test_retail_runs_mixed_in_leave_the_airline_packages_unchanged(tmp_path: Path) -> None:
    runner = CliRunner()
    airline = _airline_rows()
    alone = _import(airline, tmp_path, "airline")
    mixed = _import(airline + style_runs("direct"), tmp_path, "mixed")
    for traces, out, extra in [(alone, "a", []), (mixed, "m", []),
                               (alone, "ah", ["--holdout", "1"]),
                               (mixed, "mh", ["--holdout", "1"])]:  # fmt: skip
        result = runner.invoke(app, ["compile", str(traces), "-o", f"{tmp_path / out}/", *extra])
        assert result.exit_code in (0, 1), result.output
    for one, other in [("a", "m"), ("ah", "mh")]:
        packages = sorted(p.name for p in (tmp_path / one).glob("airline.*.jdsl"))
        assert packages, one
        for name in packages:
            assert (tmp_path / one / name).read_bytes() == (tmp_path / other / name).read_bytes(), (
                name
            )


def test_an_initial_state_of_another_domain_is_refused(tmp_path: Path) -> None:
    runner = CliRunner()
    airline = _import(_airline_rows(), tmp_path, "airline")
    out = tmp_path / "pk"
    wrong = runner.invoke(app, ["compile", str(airline), "-o", f"{out}/", "--holdout", "1",
                                "--initial-state", "tau_retail"])  # fmt: skip
    assert wrong.exit_code != 0, wrong.output
    assert "tau_retail" in wrong.output and "tau_airline" in wrong.output
    assert "Traceback" not in wrong.output
    assert runner.invoke(app, ["compile", str(airline), "-o", f"{out}/"]).exit_code in (0, 1)
    package = next(out.glob("airline.*.jdsl"))
    validated = runner.invoke(app, ["package", "validate", str(package), str(airline),
                                    "--initial-state", "tau_retail"])  # fmt: skip
    assert validated.exit_code != 0 and "tau_airline" in validated.output, validated.output
    fine = runner.invoke(app, ["package", "validate", str(package), str(airline),
                               "--initial-state", "tau_airline"])  # fmt: skip
    assert "tau_airline" not in fine.stderr or fine.exit_code in (0, 1)


def test_a_package_records_only_a_domain_its_runs_name(runner, traces, tmp_path: Path) -> None:
    """Imported runs name their domain (``retail``): the manifest keeps it; runs naming none
    (host tools, a skill only) give no domain, so no run is refused by a skill's name."""
    from jdsl.package import load_package

    package = tmp_path / "p.jdsl"
    assert runner.invoke(app, ["compile", str(traces(3)), "-o", str(package)]).exit_code == 0
    assert "domain" not in load_package(package).manifest["source"]
    retail = _import(style_runs("direct")[:12], tmp_path, "retail")
    out = tmp_path / "rp"
    assert runner.invoke(app, ["compile", str(retail), "-o", f"{out}/"]).exit_code in (0, 1)
    for one in out.glob("*.jdsl"):
        assert load_package(one).manifest["source"]["domain"] == "retail"


def test_a_package_with_domain_ids_refuses_another_domains_runs(tmp_path: Path) -> None:
    """The demo's kind of package (capability ids, ``retail.get_user_details``) on airline runs:
    validate reads the runs with the package's ids, which turned airline's
    ``get_user_details`` into ``retail.get_user_details`` and the run into a retail one; the
    domain its importer recorded (``airline``) says otherwise, and the runs are refused
    (fresh9 finding 2; was: 'validated', every run diverged with a BehaviorCheckError)."""
    from jdsl.compiler import compile_behavior
    from jdsl.demo import GoldChoice, offline_teacher, split_family, teacher_tree
    from jdsl.demo.retail_job import canonical_names, record_teacher, tool_effects
    from jdsl.package import export_jdsl
    from jdsl.trace import read_events

    runner = CliRunner()
    teacher = tmp_path / "teacher.jsonl"
    record_teacher(teacher_tree(), split_family().compile[:6], teacher,
                   lambda t: offline_teacher(GoldChoice.of(t)), progress=False)  # fmt: skip
    result = compile_behavior(read_events(teacher).episodes, name="retail_cancel",
                              task_family="retail.cancel_pending_order",
                              canonical=canonical_names(), effects=tool_effects())  # fmt: skip
    assert result.ok
    package = export_jdsl(result.package, tmp_path / "retail_cancel.jdsl")
    airline = _import(_airline_rows(), tmp_path, "airline")
    for command in (["package", "validate"], ["show", "--diff"]):
        refused = runner.invoke(app, [*command, str(package), str(airline)])
        assert refused.exit_code == 1, refused.output
        assert "is of family 'retail.cancel_pending_order' of domain retail" in refused.stderr
        assert "diverged" not in refused.output and "Traceback" not in refused.output
    own = runner.invoke(app, ["package", "validate", str(package), str(teacher)])
    assert own.exit_code == 0, own.output
