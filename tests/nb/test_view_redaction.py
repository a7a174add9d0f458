"""Issue 26 item 2: a RunView shows no secret the trace would hide (its HTML and text are kept
in the saved notebook)."""

from __future__ import annotations

from typing import Any

from jdsl.dsl import act, predict, ref, root, seq
from jdsl.testing import ScriptedModel
from jdsl.trace import ListTraceSink
from jdsl_nb.widgets import RunView

KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 2
SECRET = "hunter2-correct-horse"


def get_password(user: str) -> str:
    """Fetch the user's password."""
    return SECRET


def get_key(user: str) -> dict[str, Any]:
    """Fetch an API key."""
    return {"note": f"use {KEY}"}


def login(user: str, pw: str) -> dict:
    """Log in."""
    raise RuntimeError(f"login failed for {user} with {pw}")


def _run() -> Any:
    tree = root("t", model="m").do(seq(
        act(get_key, user=ref("user")) >> "config",
        act(get_password, user=ref("user")) >> "password",
        predict("user, password, config -> note", id="think"),
        act(login, user=ref("user"), pw=ref("password")) >> "session",
    ))  # fmt: skip
    return tree.run(
        model=ScriptedModel("ok"), trace_sink=ListTraceSink(), raise_errors=False, user="bob"
    )


def _shown(view: RunView) -> str:
    parts = [view.static_html(), view.static_text()]
    for step in range(view.slider.max + 1):
        view.slider.value = step
        parts += [view.payload.value, view.blackboard.value, view.provenance.value]
    return "\n".join(parts)


def test_a_run_view_hides_keys_and_followed_secrets() -> None:
    shown = _shown(RunView(_run()))
    assert KEY not in shown and KEY[:16] not in shown
    assert SECRET not in shown
    assert "«redacted»" in shown


def test_a_run_view_of_a_context_without_a_sink_hides_them_too() -> None:
    tree = root("t").do(
        seq(
            act(get_password, user=ref("user")) >> "password",
            act(login, user=ref("user"), pw=ref("password")) >> "session",
        )
    )
    ctx = tree.run(raise_errors=False, user="bob")
    shown = _shown(RunView(ctx))
    assert SECRET not in shown
