"""``jdsl demo``: the typer command of the main job (mounted by :mod:`jdsl.cli`).

Mount it with ``app.command("demo")(demo_command)``::

    jdsl demo                       # offline, no key: the offline teacher answers
    jdsl demo --out DIR             # write the files somewhere else
    jdsl demo --model gpt-4o-mini   # a real provider answers the residual decisions
"""

from __future__ import annotations

from pathlib import Path

import typer

from jdsl.demo.job import DEFAULT_OUT, run_demo
from jdsl.errors import JdslError

__all__ = ["demo_command"]


def demo_command(
    out: Path = typer.Option(
        DEFAULT_OUT, "--out", "-o", help="Output folder (traces, package, drawings, report.html)."
    ),
    model: str | None = typer.Option(
        None,
        "--model",
        help="A provider model id (e.g. claude-sonnet-4-5, gpt-4o-mini) for the residual "
        "decisions instead of the offline teacher; needs its API key.",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars."),
) -> None:
    """Run the main job: retail teacher traces -> a verified package -> held-out tasks scored;
    then the real gpt-4o airline trajectories compiled per task family.
    """
    try:
        result = run_demo(out, model_id=model, progress=not quiet, echo=typer.echo)
    except JdslError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=1) from exc
    if result.verification.get("status") != "passed":
        typer.echo("error: the retail package did not pass verification", err=True)
        raise typer.Exit(code=1)
