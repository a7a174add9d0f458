"""A constant needs support from >= 3 runs spanning >= 2 users and >= 2 tasks (docs/design.md
§6): two tasks of one user are one scenario (tau-bench airline tasks 45 and 46, both
``noah_muller_9847``, send a $50 certificate; task 16's user gets $150)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import compile_behavior

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _certificate(eid: str, *, user: str, task: int | None, amount: int = 50) -> dict[str, Any]:
    meta: dict[str, Any] = {"user_id": user}
    if task is not None:
        meta["task_id"] = task
    b = EpisodeBuilder(eid, inputs={"user_id": user}, **meta)
    b.call("get_user_details", {"user_id": user, "membership": "gold"}, store="user",
           node_id="agent", node_type="react", user_id=user)  # fmt: skip
    b.call("send_certificate", {"ok": True}, node_id="agent", node_type="react",
           user_id=user, amount=amount)  # fmt: skip
    return b.done(True)


def _amount(episodes: list[dict[str, Any]]) -> tuple[str, Any]:
    result = compile_behavior(episodes, name="certificate")
    send = next(a for a in result.compiled.actions if a.tool == "send_certificate")
    choice = next(c for c in send.choices if c.argument == "amount")
    return choice.how, choice.spec


def test_two_tasks_of_one_user_do_not_support_a_constant() -> None:
    runs = [_certificate(f"e{t}_{k}", user="noah_muller_9847", task=t) for t in (45, 46)
            for k in range(2)]  # fmt: skip
    how, _ = _amount(runs)
    assert how != "const"


def test_two_users_of_one_task_do_not_support_a_constant() -> None:
    runs = [_certificate(f"e{k}", user=f"user_{k}", task=45) for k in range(3)]
    how, _ = _amount(runs)
    assert how != "const"


def test_three_runs_of_two_users_and_two_tasks_support_a_constant() -> None:
    runs = [_certificate("a", user="noah_muller_9847", task=45),
            _certificate("b", user="noah_muller_9847", task=45),
            _certificate("c", user="ethan_martin_2396", task=16)]  # fmt: skip
    assert _amount(runs) == ("const", {"const": 50})


def test_without_a_user_id_the_task_stands_for_the_user() -> None:
    runs = [_certificate(f"e{t}_{k}", user="", task=t) for t in (45, 46) for k in range(2)]
    for run in runs:
        del run["events"][0]["payload"]["user_id"]
    assert _amount(runs) == ("const", {"const": 50})


def test_the_report_lists_a_constant_with_its_users_and_tasks() -> None:
    runs = [_certificate("a", user="noah_muller_9847", task=45),
            _certificate("b", user="noah_muller_9847", task=46),
            _certificate("c", user="ethan_martin_2396", task=16)]  # fmt: skip
    report = compile_behavior(runs, name="certificate").report()
    assert report["constants"] == [
        "send_certificate.amount = 50: 3 of 3 episodes, 2 users, 3 tasks (E2)"
    ]
