"""Which runs ``jdsl package validate`` and ``jdsl show --diff`` check a package against."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from jdsl.commands.families import family_runs
from jdsl.compiler import normalize_all
from jdsl.package import BehaviorPackage

sys.path.insert(0, str(Path(__file__).parents[1] / "compiler"))
from events import EpisodeBuilder  # noqa: E402


def _run(eid: str, *tools: str, domain: str = "retail") -> Any:
    b = EpisodeBuilder(eid, inputs={"user_id": "u1"}, domain=domain)
    for k, tool in enumerate(tools):
        b.call(tool, {"ok": k}, store=f"r{k}", n=k)
    return normalize_all([b.done(True)])[0]


def _package(family: str) -> BehaviorPackage:
    return cast(BehaviorPackage, SimpleNamespace(manifest={"task_family": family}))


def test_family_runs_keeps_the_package_family_and_says_what_it_skipped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    runs = [_run("a", "get_user", "cancel_order"), _run("b", "get_user", "think")]
    kept = family_runs(
        runs, _package("retail.cancel_order"), doing="diffing", all_does="diffs them too"
    )
    assert [e.episode_id for e in kept] == ["a"]
    assert capsys.readouterr().err == (
        "diffing the 1 run(s) of family 'retail.cancel_order' (grouped by intent); "
        "1 run(s) of other families skipped (--all diffs them too)\n"
    )


def test_family_runs_keeps_every_run_when_no_grouping_names_the_family(
    capsys: pytest.CaptureFixture[str],
) -> None:
    runs = [_run("a", "get_user", "cancel_order"), _run("b", "get_user", "think")]
    kept = family_runs(runs, _package("unknown"), doing="validating on", all_does="checks them too")
    assert [e.episode_id for e in kept] == ["a", "b"]
    assert capsys.readouterr().err == ""


def test_runs_that_call_none_of_the_package_tools_are_refused() -> None:
    """An airline package validated on retail runs counted 16 of them "served" (the family
    filter fell away when no grouping named the family); none of the runs belongs to it."""
    from jdsl.commands.families import NoFamilyRunsError

    runs = [_run("a", "get_user", "cancel_order"), _run("b", "get_user", "think")]
    pkg = cast(
        BehaviorPackage,
        SimpleNamespace(
            manifest={"task_family": "airline.cancel_reservation"},
            required_capabilities=("airline.get_reservation_details", "airline.cancel_reservation"),
        ),
    )
    with pytest.raises(NoFamilyRunsError, match=r"none of the 2 run.*airline\.cancel_reservation"):
        family_runs(runs, pkg, doing="validating on", all_does="checks them too")


def test_runs_of_another_domain_sharing_a_tool_name_are_refused() -> None:
    """The demo's retail package validated on airline runs counted them as its family's (both
    domains have get_user_details): a tool of another domain is another tool."""
    from jdsl.commands.families import NoFamilyRunsError

    runs = [_run("a", "airline.get_user_details", "airline.think")]
    pkg = cast(
        BehaviorPackage,
        SimpleNamespace(
            manifest={"task_family": "retail.cancel_pending_order"},
            required_capabilities=("retail.get_user_details", "retail.cancel_pending_order"),
        ),
    )
    with pytest.raises(NoFamilyRunsError, match=r"none of the 1 run"):
        family_runs(runs, pkg, doing="validating on", all_does="checks them too")
    bare = [_run("c", "get_user_details", "think", domain="airline")]  # as tau-bench imports
    with pytest.raises(NoFamilyRunsError, match=r"none of the 1 run"):
        family_runs(bare, pkg, doing="validating on", all_does="checks them too")
    same = [_run("b", "retail.get_user_details", "retail.cancel_pending_order")]
    assert family_runs(same, pkg, doing="validating on", all_does="checks them too") == same
