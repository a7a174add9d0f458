"""The main job end to end (offline, no key): teacher -> traces -> package -> held-out runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from jdsl.demo.airline_job import id_like_constants, ir_refs
from jdsl.demo.cli import demo_command
from jdsl.demo.family import split_family, task_name
from jdsl.demo.job import DemoResult, run_demo
from jdsl.demo.retail_job import compile_retail, package_inputs
from jdsl.errors import PackageError
from jdsl.package import load_package, package_digest
from jdsl.trace import read_events, verify_chain
from typer.testing import CliRunner


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoResult:
    return run_demo(tmp_path_factory.mktemp("demo"), progress=False)


def test_teacher_traces_compile_to_a_verified_package(demo: DemoResult) -> None:
    assert all(o.reward == 1.0 for o in demo.teacher) and len(demo.teacher) == 24
    trace = read_events(demo.trace_path)
    assert len(trace.episodes) == 24 and verify_chain(trace) == []
    assert demo.verification["status"] == "passed"
    assert demo.verification["replay_coverage"] == 1.0
    assert demo.metrics["model_dependent_decisions"] == 2  # the two residual signatures
    text = demo.package_text
    assert "retail.cancel_pending_order(order_id=user.orders[$order_index], reason=reason)" in text
    assert 'guard order.status == "pending"' in text


def test_reloaded_package_serves_held_out_tasks(demo: DemoResult) -> None:
    names = [o.task for o in demo.held_out]
    assert names == [task_name(t) for t in split_family().held_out]
    served = [o for o in demo.held_out if o.served]
    assert served and all(o.reward == 1.0 for o in served)
    assert demo.pass_rate == len(served) / 64
    assert load_package(demo.package_path).manifest["name"] == "retail_cancel"
    assert package_inputs(demo.package) == ["email", "request"]


def test_every_unserved_task_is_named_with_its_reason(demo: DemoResult) -> None:
    report = (demo.out / "report.txt").read_text()
    unserved = demo.unserved
    assert {o.identity for o in unserved} == {"name+zip", "none"}
    for outcome in unserved:
        assert re.search(rf"\b{re.escape(outcome.task)}\b", report), outcome.task
        assert outcome.note.startswith("missing run input email")
    assert "dev/6" in report and "states no single email" in report
    assert f"reward pass rate {sum(o.reward == 1.0 for o in demo.held_out)}/64" in report


def test_report_files_and_airline_families(demo: DemoResult) -> None:
    page = (demo.out / "report.html").read_text()
    assert page.count("<svg") == 2 and "cdn" not in page.lower() and "<script" not in page
    assert (demo.out / "teacher.svg").exists() and (demo.out / "package.svg").exists()
    assert "an offline stand-in for a teacher LLM" in page
    assert "a deterministic stand-in for the user simulator" in page
    rows = {row.family: row for row in demo.airline}
    assert len(rows) == 26 and demo.airline_episodes == 54
    big = [row for row in demo.airline if row.episodes >= 3]
    assert len(big) == 8 and all(row.verification == "passed" for row in big)
    assert rows["airline_test_18"].lineage_refs  # e.g. a reservation id from get_user_details
    # an identifier the model repeated from the user is a run input, never a frozen constant
    assert rows["airline_test_18"].inputs == ("user_id",)
    assert not rows["airline_test_18"].id_like_constants


def test_compiling_is_deterministic(demo: DemoResult, tmp_path: Path) -> None:
    """The same trace file compiles to the same bytes; a new run gives the same behavior
    (only the trace digests in manifest.json and tests/replay.jsonl name the new traces)."""
    first = compile_retail(demo.trace_path, tmp_path / "a.jdsl")[1]
    second = compile_retail(demo.trace_path, tmp_path / "b.jdsl")[1]
    assert (tmp_path / "a.jdsl").read_bytes() == (tmp_path / "b.jdsl").read_bytes()
    assert package_digest(first) == package_digest(second)
    again = run_demo(tmp_path / "again", progress=False)
    changed = {f for f in demo.package.files if demo.package.files[f] != again.package.files[f]}
    assert changed <= {"manifest.json", "tests/replay.jsonl"}


def test_id_like_constants_and_refs() -> None:
    ir = {"kind": "sequence", "children": [
        {"kind": "action", "tool": "get", "args": {"id": {"const": "4WQ150"},
                                                   "cabin": {"const": "economy"},
                                                   "date": {"const": "2024-05-15"}}},
        {"kind": "action", "tool": "put", "args": {"id": {"ref": "user.reservations[0]"},
                                                   "who": {"ref": "user_id"}}},
    ]}  # fmt: skip
    assert id_like_constants(ir) == ['get.id = "4WQ150"']
    assert id_like_constants(ir, [{"rid": "4WQ150"}, {"rid": "4WQ150"}]) == [
        'get.id = "4WQ150" (= run input rid)'
    ]
    assert id_like_constants(ir, [{"rid": "4WQ150"}, {"rid": "X"}]) == ['get.id = "4WQ150"']
    assert ir_refs(ir, {"user_id"}) == ["put.id <- user.reservations[0]"]


def test_package_without_declared_inputs_is_refused(demo: DemoResult) -> None:
    class Bare:
        name = "bare"
        manifest: dict = {"source": {}}

    with pytest.raises(PackageError, match="declares no run inputs"):
        package_inputs(Bare())


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command("demo")(demo_command)
    app.command("other")(lambda: None)  # a second command keeps "demo" a named sub-command
    return app


def test_cli_prints_the_report(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(_app(), ["demo", "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "verification passed" in result.output
    assert "reward pass rate" in result.output and "cannot serve" in result.output
    assert "airline_test_18" in result.output
    assert (out / "report.html").exists() and (out / "retail_cancel.jdsl").exists()


@pytest.mark.parametrize(
    ("model", "message"),
    [("claude-sonnet-4-5", "ANTHROPIC_API_KEY"), ("no-such-model", "no-such-model")],
)
def test_cli_model_errors_are_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str, message: str
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    result = CliRunner().invoke(_app(), ["demo", "--out", str(tmp_path / "o"), "--model", model])
    assert result.exit_code == 1
    assert message in result.output
