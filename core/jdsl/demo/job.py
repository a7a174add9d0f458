"""The main job end to end: :func:`run_demo` (what ``jdsl demo`` and ``make demo`` run).

Offline and without a key by default: the teacher's residual decisions are answered by the
offline teacher (:func:`jdsl.demo.teacher.offline_teacher`, a stand-in for a teacher LLM).
``model_id`` puts a real provider (``jdsl.providers.resolve_model``) in its place, for the
teacher runs and the held-out runs alike.

Then the held-out figures: tau-bench's own airline results file compiled per family with one
run held out (:mod:`jdsl.demo.heldout_job`), the retail return family's list path
(:mod:`jdsl.demo.returns_job`) and the same held-out figures on retail results files of
scripted agents of four styles (:mod:`jdsl.demo.styles_job`).

Files written to ``out``: ``retail_teacher.jsonl`` (teacher traces), ``retail_cancel.jdsl``
(the package), ``airline_traces.jsonl`` (the imported gpt-4o episodes), ``retail_returns.json``
(the scripted return runs), ``teacher.svg`` and
``package.svg`` (drawings; ``.dot`` sources instead when no Graphviz renderer works),
``report.txt`` and ``report.html``.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jdsl.compiler.fallback import compiled_program
from jdsl.demo.airline_job import FamilyRow, compile_airline, ir_tool_text
from jdsl.demo.family import FamilySplit, split_family
from jdsl.demo.heldout_job import HoldoutFigures, airline_holdout
from jdsl.demo.report import draw, html_report, text_report
from jdsl.demo.retail_job import (
    LOGICAL_PREFIX,
    ModelFor,
    TaskOutcome,
    compile_retail,
    input_alternatives,
    inputs_text,
    package_inputs,
    record_teacher,
    serve_held_out,
)
from jdsl.demo.returns_job import ReturnFigures, compile_returns
from jdsl.demo.teacher import (
    OFFLINE_TEACHER_ID,
    GoldChoice,
    offline_teacher,
    teacher_file,
    teacher_text,
    teacher_tree,
)
from jdsl.drawing import node_statuses
from jdsl.envs.tau_retail import RetailTask
from jdsl.text import format_behavior
from jdsl.trace import read_events

__all__ = ["DEFAULT_OUT", "DemoResult", "model_chooser", "run_demo"]

DEFAULT_OUT = Path("jdsl-demo-out")


@dataclass
class DemoResult:
    """Everything the demo produced; :func:`jdsl.demo.report.text_report` prints it."""

    out: Path
    model_label: str
    split: FamilySplit
    teacher: list[TaskOutcome]
    trace_path: Path
    compile_result: Any
    package_path: Path
    package: Any
    held_out: list[TaskOutcome]
    airline: list[FamilyRow]
    airline_episodes: int
    notes: list[str] = field(default_factory=list)
    holdout: HoldoutFigures | None = None
    returns: ReturnFigures | None = None
    styles: tuple[Any, ...] = ()
    """:class:`jdsl.demo.styles_job.StyleFigures` of each retail style."""

    @property
    def report_data(self) -> dict[str, Any]:
        """``CompileResult.report()`` of the retail compile."""
        data: dict[str, Any] = self.compile_result.report()
        return data

    @property
    def verification(self) -> dict[str, Any]:
        """The retail compile's verification summary (``status``, ``replay_coverage``, ...)."""
        return dict(self.report_data.get("verification") or {})

    @property
    def metrics(self) -> dict[str, Any]:
        """The retail package's metrics (``residual_decision_burden``, ``exact_dataflow_refs``)."""
        return dict(self.report_data.get("metrics") or {})

    @property
    def inputs(self) -> list[str]:
        """The run inputs every path of the reloaded package needs (``source.inputs``)."""
        return package_inputs(self.package)

    @property
    def input_alternatives(self) -> list[list[list[str]]]:
        """Per compiled branch, the run inputs of each alternative (one must be given)."""
        return input_alternatives(self.package)

    @property
    def inputs_text(self) -> str:
        """``request; one of: email | first_name, last_name, zip``."""
        return inputs_text(self.package)

    @property
    def package_tool_text(self) -> str:
        """The package's tools in order, alternatives in parentheses, ``retail.`` left off:
        ``(find_user_id_by_email | find_user_id_by_name_zip) -> get_user_details -> ...``
        (the compiled program's: the fallback is left out)."""
        return ir_tool_text(compiled_program(self.package.ir), LOGICAL_PREFIX)

    @property
    def branch_lines(self) -> list[str]:
        """One line per compiled branch with each alternative's support and guard
        (``CompileResult.report()["branch_text"]``)."""
        return [str(line) for line in self.report_data.get("branch_text") or ()]

    @property
    def served(self) -> list[TaskOutcome]:
        """The held-out tasks the package ran."""
        return [o for o in self.held_out if o.served]

    @property
    def passed(self) -> list[TaskOutcome]:
        """The held-out tasks with reward 1.0."""
        return [o for o in self.held_out if o.reward == 1.0]

    @property
    def pass_rate(self) -> float:
        """Held-out tasks with reward 1.0 / all held-out tasks (unserved count as failures)."""
        return len(self.passed) / max(1, len(self.held_out))

    @property
    def unserved(self) -> list[TaskOutcome]:
        """The held-out tasks the package could not serve."""
        return [o for o in self.held_out if not o.served]

    @property
    def held_out_splits(self) -> str:
        counts = collections.Counter(o.task.split("/")[0] for o in self.held_out)
        return ", ".join(f"{counts[s]} {s}" for s in ("train", "dev", "test") if counts[s])

    @property
    def teacher_file(self) -> str:
        return teacher_file()

    @property
    def teacher_text(self) -> str:
        return teacher_text()

    @property
    def package_text(self) -> str:
        return format_behavior(self.package.ir)


def model_chooser(model_id: str | None) -> tuple[ModelFor, str]:
    """The per-task model and its label: the offline teacher, or one real provider model."""
    if model_id is None:
        label = f"{OFFLINE_TEACHER_ID}: answers the residual signatures from the prompt and the task's gold choice"

        def offline(task: RetailTask) -> Any:
            return offline_teacher(GoldChoice.of(task))

        return offline, label
    from jdsl.providers import resolve_model

    model = resolve_model(model_id)
    return (lambda task: model), f"{model_id} (a real provider)"


def _drawings(result: DemoResult) -> None:
    first = read_events(result.trace_path).episodes[0]
    statuses = node_statuses(event.to_dict() for event in first)
    notes = {
        draw(teacher_tree(), result.out / "teacher.svg", statuses),
        draw(result.package.ir, result.out / "package.svg"),
    }
    result.notes.extend(sorted(note for note in notes if note))


def run_demo(
    out: Path = DEFAULT_OUT,
    *,
    model_id: str | None = None,
    progress: bool = True,
    echo: Callable[[str], None] | None = None,
) -> DemoResult:
    """Run the main job and write its files and reports to ``out``.

    Args:
        out: the output folder (created; files in it are replaced).
        model_id: a provider model id for the residual decisions; None = the offline teacher.
        progress: show tqdm progress bars on the long steps.
        echo: where to print the text report (None: do not print).

    Returns:
        The :class:`DemoResult`; ``result.pass_rate`` and ``result.unserved`` hold the headline.
    """
    from jdsl.demo.retail_styles import STYLES  # not at import: ``python -m`` runs styles_job
    from jdsl.demo.styles_job import style_figures

    out.mkdir(parents=True, exist_ok=True)
    model_for, label = model_chooser(model_id)
    split = split_family()
    trace_path = out / "retail_teacher.jsonl"
    teacher = record_teacher(
        teacher_tree(), split.compile, trace_path, model_for, progress=progress
    )
    compiled, package = compile_retail(trace_path, out / "retail_cancel.jdsl")
    held_out = serve_held_out(package, split.held_out, model_for, progress=progress)
    airline_path = out / "airline_traces.jsonl"
    airline = compile_airline(airline_path, progress=progress)
    result = DemoResult(
        out=out,
        model_label=label,
        split=split,
        teacher=teacher,
        trace_path=trace_path,
        compile_result=compiled,
        package_path=out / "retail_cancel.jdsl",
        package=package,
        held_out=held_out,
        airline=airline,
        airline_episodes=sum(r.episodes for r in airline),
        holdout=airline_holdout(),
        returns=compile_returns(out),
        styles=tuple(style_figures(name) for name in STYLES),
    )
    _drawings(result)
    (out / "report.txt").write_text(text_report(result), encoding="utf-8")
    (out / "report.html").write_text(html_report(result), encoding="utf-8")
    if echo is not None:
        echo(text_report(result))
    return result
