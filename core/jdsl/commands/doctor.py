"""``jdsl doctor``: what this installation can do (:func:`jdsl.doctor.doctor_report`)."""

from __future__ import annotations

import typer

from jdsl.doctor import doctor_report, doctor_text

__all__ = ["doctor_command"]


def doctor_command() -> None:
    """Versions, the `dot` / wasm renderers, notebook front ends, SDK extras, and which
    provider keys are set (by name only)."""
    typer.echo(doctor_text(doctor_report()))
