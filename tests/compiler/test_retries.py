"""A family that needs a retry (routed paths that make the same writes, a thin arm handing
over, the common part: :func:`jdsl.compiler.pipeline.compile_normalized`) is planned before it is
compiled: a retry planned like a program already compiled is not compiled again, since the
program emitted depends on the plan alone (:func:`jdsl.compiler.staticize.plan_key`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from jdsl.compiler import normalize_all, pipeline
from jdsl.compiler.consolidate import consolidate
from jdsl.compiler.staticize import emit_plan, plan_key, prepare

sys.path.insert(0, str(Path(__file__).parent))
from events import compiled  # noqa: E402
from test_same_writes import READS, _by_reservation, _by_user, _downgrade_all  # noqa: E402
from test_thin_arms import _family as _thin_arm_family  # noqa: E402


def _routed() -> list[Any]:
    return normalize_all([_by_user(), _by_reservation(), _downgrade_all()])


def _compiles(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The plan of every program the pipeline compiles from now on."""
    planned: list[tuple[Any, ...]] = []

    def recording(family: Any, plan: Any, *args: Any, **kwargs: Any) -> Any:
        planned.append(plan_key(plan))
        return emit_plan(family, plan, *args, **kwargs)

    monkeypatch.setattr(pipeline, "emit_plan", recording)
    return planned


@pytest.mark.parametrize("family", [_thin_arm_family, _routed], ids=["thin_arm", "routed"])
def test_each_plan_is_compiled_once(family: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    planned = _compiles(monkeypatch)
    result = compiled(family(), name="f", reads=READS)
    assert result.verification.ok
    assert len(planned) == len(set(planned)) <= 2, planned


@pytest.mark.parametrize("retry", [{"same_writes": True}, {"hand_over": True, "always": True}])
def test_a_retry_planned_alike_emits_the_same_program(retry: dict[str, Any]) -> None:
    """The thin-arm family has a supported way: routing thin paths does not apply, and the
    common part is planned only where no way has the support: both plan as the first compile."""
    runs = _thin_arm_family()
    family = prepare(runs, consolidate(runs))
    base, other = family.plan(), family.plan(**retry)
    same = plan_key(base) == plan_key(other)
    assert same == ("same_writes" in retry)
    if same:
        candidates = consolidate(runs)
        assert emit_plan(family, base, candidates).ir == emit_plan(family, other, candidates).ir
