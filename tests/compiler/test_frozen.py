"""The check every compiled package of these tests passes (``frozen.py``, run by
``conftest.py``) catches what it is for."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from frozen import frozen_problems  # noqa: E402


def _ir(*actions: dict) -> dict:
    return {"root": {"kind": "root", "name": "x", "child": {"kind": "sequence", "id": "s",
                                                          "children": list(actions)}}}  # fmt: skip


def test_a_frozen_id_a_fixed_position_and_a_data_key_are_caught() -> None:
    ir = _ir(
        {"kind": "action", "id": "a", "tool": "cancel_reservation",
         "args": {"reservation_id": {"ref": "user.reservations[5]"}}},
        {"kind": "action", "id": "b", "tool": "update_reservation",
         "args": {"payment_id": {"ref": "user.payment_methods.gift_card_8887175.id"},
                  "flights": {"const": ["HAT110"]}, "who": {"const": "1N99U6"}}},
    )  # fmt: skip
    problems = frozen_problems(ir, [])
    assert len(problems) == 4, problems


def test_a_read_at_a_position_and_a_plain_constant_pass() -> None:
    ir = _ir(
        {"kind": "action", "id": "a", "tool": "get_reservation_details",
         "args": {"reservation_id": {"ref": "user.reservations[0]"}}},
        {"kind": "action", "id": "b", "tool": "cancel_pending_order",
         "args": {"reason": {"const": "no longer needed"}}},
    )  # fmt: skip
    assert frozen_problems(ir, []) == []


def test_the_check_runs_on_every_package_compiled_here() -> None:
    import jdsl.compiler.pipeline as pipeline

    assert pipeline.build_package.__name__ == "checked"  # conftest.py's _nothing_frozen
