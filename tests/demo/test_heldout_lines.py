"""The held-out figures' lines add up: every family is counted once, every held-out run once."""

from __future__ import annotations

from jdsl.demo.heldout_job import HoldoutFigures


def _figures(**changes: object) -> HoldoutFigures:
    values: dict[str, object] = dict(
        runs=87, successful=54, families=10, compiled=8, verified=6, too_few=1, no_success=1,
        held_out=8, served=6, matched=6, unreplayable=0, fallback=0, refused=2, divergences=0,
        constants=0, contradicted=0, model_calls=13, assistant_turns=81,
        scalar_elements=(0, 0), dict_elements=(31, 31),
        unverified=("airline.cancel_reservation", "airline.update_reservation_flights"),
    )  # fmt: skip
    values.update(changes)
    return HoldoutFigures(**values)  # type: ignore[arg-type]


def test_the_families_line_counts_every_family() -> None:
    lines = _figures().lines()
    assert lines[1] == (
        "  10 families: 8 compiled (6 verified), 1 with one successful run (nothing left to "
        "compile from), 1 with no successful run"
    )


def test_refused_runs_name_the_families_without_a_verified_package() -> None:
    line = _figures().lines()[2]
    assert line.startswith("  held-out runs 8: served end to end 6/8 (75%), fallback 0, refused 2")
    assert line.endswith(
        "(their family's package failed verification: airline.cancel_reservation, "
        "airline.update_reservation_flights)"
    )
    assert "refused 0" in _figures(refused=0, unverified=()).lines()[2]
    assert "failed verification" not in _figures(refused=0, unverified=()).lines()[2]


def test_the_family_table_shows_fallback_hand_overs_next_to_matched() -> None:
    from types import SimpleNamespace

    from jdsl.demo.airline_job import FamilyRow
    from jdsl.demo.report import _airline_lines

    row = FamilyRow(family="airline.cancel_reservation", episodes=3, tools=(), lineage_refs=(),
                    dataflow_refs=0, model_output_refs=0, inputs=(), verification="passed",
                    replay_coverage=1.0, residual_decision_burden=0.0, id_like_constants=(),
                    executed=3, matched=2, fallback=1)  # fmt: skip
    lines = _airline_lines(SimpleNamespace(airline=[row], airline_episodes=3))  # type: ignore[arg-type]
    header, [line] = lines[2], lines[3:]
    assert "matched" in header and "fallback" in header
    assert "passed" in line and " 2/3 " in line and line.split()[-3:-1] == ["1", "0.00"]
