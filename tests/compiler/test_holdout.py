"""Held-out validation: would a package have served runs it never saw, and done what they did?"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jdsl.cli import app
from jdsl.compiler import compile_normalized, holdout_split, normalize_all, validate_package
from jdsl.compiler.errors import CompileError
from jdsl.compiler.fallback import compiled_program
from jdsl.compiler.holdout import holdout_families, ir_paths
from jdsl.envs.data import data_path
from jdsl.importers import import_tau_bench
from jdsl.package import export_jdsl
from jdsl.trace import JsonlTraceSink
from typer.testing import CliRunner

FIXTURES = Path(__file__).parents[1] / "fixtures" / "tau_bench"
RAW = Path(str(data_path("tau_airline", "raw", "gpt-4o-airline.dev.json")))
RUNNER = CliRunner()


@pytest.fixture(scope="module")
def airline() -> dict[str, list[Any]]:
    families: dict[str, list[Any]] = {}
    for episode in normalize_all(import_tau_bench(RAW).episodes):
        families.setdefault(episode.metadata["task_family"], []).append(episode)
    return families


def test_the_raw_airline_file_with_holdout_1_contradicts_no_constant(
    airline: dict[str, list[Any]],
) -> None:
    held = served = matched = contradicted = diverged = 0
    for episodes in airline.values():
        kept, out = holdout_split(episodes, 1)
        if not any(e.success for e in kept):
            continue
        report = validate_package(compile_normalized(kept, name="f").package, out)
        held += len(report.rows)
        served, matched = served + report.served, matched + report.matched
        contradicted, diverged = contradicted + report.contradicted, diverged + report.divergences
    # by task, a family mixes intents (a run that transfers next to one that does not): those
    # held-out runs diverge; by intent they do not (test_intent_families_on_the_raw_file)
    assert held == 20 and served >= 7 and matched >= 9 and contradicted == 0


def _nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    found = [node]
    for child in [node.get("child"), *(node.get("children") or [])]:
        found += _nodes(child) if isinstance(child, dict) else []
    return found


class _Edited:
    """A package with its IR changed on purpose (everything else as compiled)."""

    def __init__(self, package: Any, ir: dict[str, Any]) -> None:
        self.package, self.ir, self.name = package, ir, package.name
        self.manifest = package.manifest

    def missing_inputs(self, given: Any) -> list[str]:
        return self.package.missing_inputs(given)


def test_a_frozen_summary_is_contradicted_by_held_out_runs(airline: dict[str, list[Any]]) -> None:
    kept, out = holdout_split(airline["airline_test_42"], 1)
    package = compile_normalized(kept, name="t42").package
    ir = copy.deepcopy(compiled_program(package.ir))  # before E2: one run's text as a constant
    nodes = _nodes(ir["root"])
    for node in nodes:
        if node.get("children"):
            node["children"] = [n for n in node["children"] if n["kind"] != "predict"]
    written = kept[0].ok_steps()[-1].arguments["summary"]
    transfer = next(n for n in nodes if n.get("tool") == "transfer_to_human_agents")
    transfer["args"]["summary"] = {"const": written}
    report = validate_package(_Edited(package, ir), out)
    assert report.contradicted == 1 and report.divergences == 1 and not report.ok
    row = report.rows[0]
    assert row.outcome == "diverged" and "transfer_to_human_agents.summary" in row.contradicted[0]
    assert "different arguments" in row.divergence.reason
    honest = validate_package(package, out)
    assert honest.ok and honest.matched == 1 and honest.contradicted == 0


def test_unserved_and_failed_runs_are_reported_not_compared(airline: dict[str, list[Any]]) -> None:
    package = compile_normalized(airline["airline_test_48"], name="t48").package
    other = airline["airline_test_1"]  # one success on another path, three failed runs
    report = validate_package(package, other)
    outcomes = [r.outcome for r in report.rows]
    assert outcomes.count("failed run") == 3 and outcomes.count("fallback") == 1
    unserved = next(r for r in report.rows if r.outcome == "fallback")
    assert unserved.fallback is not None and "run inputs missing" in unserved.fallback.reason
    assert report.ok and report.served == 0 and "0 served" in report.summary()


def test_a_stated_input_the_user_never_said_is_missing(tmp_path: Path) -> None:
    rows = [
        r
        for r in json.loads((FIXTURES / "gpt-4o-airline.slice.json").read_text())
        if r["task_id"] == 48
    ]
    rows = [r for r in rows if r["reward"] == 1.0]
    package = compile_normalized(
        normalize_all(import_tau_bench(_write(tmp_path, rows[:2])).episodes), name="t"
    ).package
    quiet = copy.deepcopy(rows[2])
    rid = json.loads(
        next(m for m in quiet["traj"] if m.get("tool_calls"))["tool_calls"][0]["function"][
            "arguments"
        ]
    )
    for message in quiet["traj"]:
        if message["role"] == "user":
            message["content"] = message["content"].replace(rid["reservation_id"], "my booking")
    report = validate_package(
        package, normalize_all(import_tau_bench(_write(tmp_path, [quiet])).episodes)
    )
    row = report.rows[0]
    assert row.outcome == "fallback" and "run inputs missing: reservation_id" in str(row.fallback)


def _write(tmp_path: Path, rows: list[Any], name: str = "runs.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def _returns(tmp_path: Path) -> tuple[Path, Path]:
    """A retail return package (7 runs), a held-out run and that run returning another order
    than the one it looked up (the payment method is one the user states: not a divergence)."""
    rows = json.loads((FIXTURES / "retail-returns.json").read_text(encoding="utf-8"))
    kept = normalize_all(import_tau_bench(_write(tmp_path, rows[:6] + rows[7:])).episodes)
    package = compile_normalized(kept, name="returns").package
    target = export_jdsl(package, tmp_path / "returns.jdsl", add_suffix=False)
    other = copy.deepcopy(rows[6])  # a tool-calling run
    for message in other["traj"]:
        for call in message.get("tool_calls") or ():
            arguments = json.loads(call["function"]["arguments"])
            if "payment_method_id" in arguments:
                arguments["order_id"] = "#W0000001"
                call["function"]["arguments"] = json.dumps(arguments)
    traces = tmp_path / "held.jsonl"
    import_tau_bench(
        _write(tmp_path, [rows[6], other], "held.json"), sink=JsonlTraceSink(traces, resume=False)
    )
    return target, traces


def test_the_cli_validates_and_exits_1_on_a_divergence(tmp_path: Path) -> None:
    package, traces = _returns(tmp_path)
    result = RUNNER.invoke(app, ["package", "validate", str(package), str(traces)])
    assert result.exit_code == 1, result.output
    assert "matched" in result.stdout and "diverged" in result.stdout
    assert (
        "2 episodes (2 references): 2 served, 1 matched, 0 unreplayable, 0 fallback, 0 refused, 1 divergence"
        in result.stdout
    )
    assert "#W0000001" in result.stdout and "1 episode(s) diverged" in result.stderr


def test_compile_holdout_compiles_validates_and_writes(tmp_path: Path) -> None:
    traces = tmp_path / "slice.jsonl"
    import_tau_bench(
        FIXTURES / "gpt-4o-airline.slice.json", sink=JsonlTraceSink(traces, resume=False)
    )
    out = tmp_path / "pk"
    result = RUNNER.invoke(
        app, ["compile", str(traces), "--group-by", "task", "--holdout", "1", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:7] == [
        "family",
        "ok/runs",
        "verify",
        "held",
        "served",
        "matched",
        "unrepl",
    ]
    assert any(line.startswith("airline_test_1 ") and "too few" in line for line in lines)
    assert "constants contradicted" in lines[-1] and (out / "airline_test_48.jdsl").exists()
    bad = RUNNER.invoke(app, ["compile", str(traces), "--holdout", "0", "-o", str(out)])
    assert bad.exit_code == 2


def test_holdout_split_and_paths() -> None:
    with pytest.raises(CompileError, match="at least 1"):
        holdout_split([], 0)
    ir = {"kind": "sequence", "children": [{"kind": "action", "tool": "a"},
                                           {"kind": "guard", "expression": {"exists": "x"}}]}  # fmt: skip
    assert ir_paths(ir) == {("a",)}


def test_the_notebook_view_shows_each_episode(airline: dict[str, list[Any]]) -> None:
    from jdsl_nb.holdout_views import holdout_html, holdout_text
    from jdsl_nb.hooks import HOOKED

    assert ("jdsl.compiler.holdout", "HeldOutReport") in {(m, c) for m, c, *_ in HOOKED}
    kept, out = holdout_split(airline["airline_test_42"], 1)
    report = validate_package(
        compile_normalized(kept, name="t42").package, out + airline["airline_test_1"][:1]
    )
    page = holdout_html(report)
    assert "<script" not in page and "jdsl-status-success" in page and "failed run" in page
    assert report.summary() in holdout_text(report) and "matched" in holdout_text(report)


def test_rows_keep_the_input_order_when_raw_and_normalized_episodes_mix() -> None:
    raw = import_tau_bench(RAW).episodes
    norm = normalize_all(raw[:6])
    package = compile_normalized(
        [e for e in normalize_all(raw) if e.success][:3], name="any"
    ).package
    mixed = [raw[5], norm[1], raw[4], norm[0]]
    report = validate_package(package, mixed)
    assert [r.episode_id for r in report.rows] == [
        raw[5].episode_id,
        norm[1].episode_id,
        raw[4].episode_id,
        norm[0].episode_id,
    ]


def test_validate_canonicalizes_host_names_as_compile_did(tmp_path: Path) -> None:
    """A package compiled with host -> ``retail.<name>`` names serves the runs recorded with the
    host's names, without --canonical (the demo's package against its own teacher trace)."""
    rows = json.loads((FIXTURES / "retail-returns.json").read_text(encoding="utf-8"))
    episodes = import_tau_bench(_write(tmp_path, rows)).episodes
    names = {c.host_name for e in episodes for c in e.tool_calls()}
    canonical = {name: f"retail.{name}" for name in names}
    package = compile_normalized(
        normalize_all(episodes, canonical=canonical), name="returns"
    ).package
    target = export_jdsl(package, tmp_path / "returns.jdsl", add_suffix=False)
    traces = tmp_path / "all.jsonl"
    import_tau_bench(_write(tmp_path, rows, "all.json"), sink=JsonlTraceSink(traces, resume=False))
    result = RUNNER.invoke(app, ["package", "validate", str(target), str(traces)])
    assert " 0 served" not in result.stdout, result.output
    assert f"{len(rows)} episodes" in result.stdout and "served" in result.stdout, result.output


def test_a_missing_input_is_refused_only_by_a_package_without_a_fallback(
    airline: dict[str, list[Any]],
) -> None:
    kept = airline["airline_test_48"]
    other = [e for e in airline["airline_test_1"] if e.success]  # another path, no reservation
    with_fallback = compile_normalized(kept, name="t48").package
    assert validate_package(with_fallback, other).rows[0].outcome == "fallback"
    bare = compile_normalized(kept, name="t48", fallback=False).package
    report = validate_package(bare, other)
    row = report.rows[0]
    assert row.outcome == "refused" and "run inputs missing: reservation_id" in row.reason
    assert report.refused == 1 and report.fallbacks == 0 and "1 refused" in report.summary()


def test_holdout_cli_boundaries_name_the_fix(tmp_path: Path) -> None:
    traces = tmp_path / "slice.jsonl"
    import_tau_bench(
        FIXTURES / "gpt-4o-airline.slice.json", sink=JsonlTraceSink(traces, resume=False)
    )
    base = ["compile", str(traces), "--group-by", "intent"]
    big = RUNNER.invoke(app, [*base, "--holdout", "50", "-o", str(tmp_path / "big")])
    assert big.exit_code == 1 and "--holdout 50 held out no run" in big.stderr
    assert "use --holdout" in big.stdout  # each 'too few' family says what would fit
    one = RUNNER.invoke(app, [*base, "-o", str(tmp_path / "one.jdsl")])
    assert one.exit_code == 1 and "writes one package per family into a directory" in one.stderr
    assert not (tmp_path / "one.jdsl").exists()
    out = tmp_path / "pk"
    held = RUNNER.invoke(app, [*base, "--holdout", "1", "-o", str(out)])
    assert "    held out: tau_airline_test_" in held.stdout  # the held-out runs are named
    package = next(out.glob("*.jdsl"))
    family = package.name.removesuffix(".jdsl")
    only = RUNNER.invoke(app, ["package", "validate", str(package), str(traces)])
    assert f"of family {family!r} (grouped by intent)" in only.stderr
    every = RUNNER.invoke(app, ["package", "validate", str(package), str(traces), "--all"])
    assert "of family" not in every.stderr
    assert every.stdout.count("\n") > only.stdout.count("\n")
    unknown = RUNNER.invoke(app, ["package", "validate", str(package), str(traces), "-e", "x"])
    assert unknown.exit_code == 1 and "no episode 'x' in the traces" in unknown.stderr


def test_holdout_families_splits_compiles_and_validates_each_family(
    airline: dict[str, list[Any]],
) -> None:
    one = next(f for f, es in sorted(airline.items()) if sum(e.success is True for e in es) == 1)
    compiled: list[str] = []

    def compile_family(family: str, kept: list[Any], peers: list[Any]) -> Any:
        compiled.append(family)
        return compile_normalized(kept, name="f", peers=peers)

    chosen = [(one, airline[one]), ("airline_test_42", airline["airline_test_42"])]
    too_few, done = holdout_families(chosen, 1, compile_family)
    assert compiled == [one, "airline_test_42"]  # the compile decides what is too few
    assert too_few.result is None and too_few.report is None and too_few.references == 1
    assert done.result is not None and done.result.ok and done.report is not None
    assert [r.episode_id for r in done.report.rows] == [e.episode_id for e in done.held]
    assert done.held == tuple(holdout_split(airline["airline_test_42"], 1)[1])


def test_holdout_families_hands_each_compile_the_other_families_kept_runs_as_peers(
    airline: dict[str, list[Any]],
) -> None:
    """The CLI's ``--holdout`` and the demo chain one call: both compile a family with the
    other families' successful kept runs as ``peers`` (never a held-out run), as plain
    ``--group-by`` does (fresh7: the CLI passed none and its figures differed)."""
    chosen = sorted(airline.items())[:3]
    seen: dict[str, set[str]] = {}

    def compile_family(family: str, kept: list[Any], peers: list[Any]) -> Any:
        seen[family] = {e.episode_id for e in peers}
        return compile_normalized(kept, name="f", peers=peers)

    done = list(holdout_families(chosen, 1, compile_family))
    for family, _members in chosen:
        want = {e.episode_id for other, eps in chosen if other != family
                for e in holdout_split(eps, 1)[0] if e.success}  # fmt: skip
        assert seen[family] == want
        held = {e.episode_id for one in done for e in one.held}
        assert not seen[family] & held
