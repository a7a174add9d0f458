"""``jdsl demo``: the typer command of the main job (mounted by :mod:`jdsl.cli`; the job is :mod:`jdsl.demo.job`).

Mount it with ``app.command("demo")(demo_command)``::

    jdsl demo                       # offline, no key: the offline teacher answers
    jdsl demo --out DIR             # write the files somewhere else
    jdsl demo --model gpt-4o-mini   # a real provider answers the residual decisions
    jdsl demo --model local:smollm2-135m   # a small local model: package vs the model alone
                                           # as a react agent (jdsl.demo.small_model)
"""

from __future__ import annotations

from pathlib import Path

import typer

from jdsl.commands.boundary import cli_errors, cli_fail, count, require_parent
from jdsl.demo.job import DEFAULT_OUT, run_demo

__all__ = ["demo_command"]


@cli_errors
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
    tasks: int | None = typer.Option(
        None,
        "--tasks",
        parser=count("--tasks", 1),
        metavar="N",
        help="With a local: model, run only the first N held-out tasks.",
    ),
) -> None:
    """Run the main job: retail teacher traces -> a verified package -> held-out tasks scored;
    then the real gpt-4o airline trajectories compiled per task family.
    """
    if tasks is not None and not (model or "").startswith("local:"):
        raise typer.BadParameter(
            "--tasks limits the held-out tasks of a local: model's run (--model "
            "local:smollm2-135m); the offline demo and a provider model run every task: "
            "leave --tasks out, or add --model local:NAME",
            param_hint="--tasks",
        )
    require_parent(out, "-o")
    if model is not None:  # an empty or malformed id is refused, never the offline teacher
        from jdsl.providers.resolve import parse_model_id

        parse_model_id(model)
    if out.exists() and not out.is_dir():
        raise cli_fail(f"-o {out} is a file", "the demo writes a folder; pass a directory path")
    if model is not None and model.startswith("local:"):
        from jdsl.demo.small_model import run_small_model_demo

        run_small_model_demo(model, out, limit=tasks, echo=typer.echo, per_run=not quiet)
        return
    result = run_demo(out, model_id=model, progress=not quiet, echo=typer.echo)
    if result.verification.get("status") != "passed":
        raise cli_fail(
            "the retail package did not pass verification",
            f"see the problems in the report above and in {out / 'report.html'}",
        )
