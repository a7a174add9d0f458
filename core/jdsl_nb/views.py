"""Static views of trees, runs and traces: self-contained HTML and readable text.

Every function here returns a string and never displays anything. The HTML has inline CSS only
(no script, no CDN, no iframe), so it reads the same in JupyterLab, VS Code, nbconvert and on
GitHub. Large tables are capped; capped values open whole in a ``<details>``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jdsl.drawing import drawing_html, node_label
from jdsl.ir.walk import as_ir, labelled_children, structural_ids

from jdsl_nb._coerce import as_events
from jdsl_nb._html import STATIC_FULL_CHARS, esc, page, preview, table, value_html
from jdsl_nb.provenance import ModelChoice, WriteRecord
from jdsl_nb.rundata import RunData
from jdsl_nb.timeline import Span, event_node, event_summary, node_spans

__all__ = [
    "blackboard_html",
    "check_html",
    "events_html",
    "choices_html",
    "failure_text",
    "gantt_html",
    "payload_html",
    "provenance_html",
    "run_header",
    "run_html",
    "run_text",
    "trace_html",
    "trace_text",
    "tree_html",
    "tree_text",
]

STEP_NOTE = (
    "This is the final state. In JupyterLab or Notebook 7 the live view steps "
    "through the run: the slider (or the ←/→ keys) recolours the tree and moves the "
    "timeline's cursor, and the jump buttons go to the next model call, tool call, "
    "write or failure."
)
MAX_ROWS = 200
MAX_BARS = 120
TABLE_FULL_CHARS = 2000


def tree_text(tree: Any) -> str:
    """An indented outline: one node per line, its label and effective id."""
    ir = as_ir(tree)
    ids = structural_ids(ir)
    lines: list[str] = []

    def visit(node: Mapping[str, Any], depth: int, edge: str) -> None:
        prefix = f"{edge}: " if edge else ""
        lines.append(f"{'  ' * depth}{prefix}{node_label(node)}  [{ids[id(node)]}]")
        for child_edge, child in labelled_children(node):
            visit(child, depth + 1, child_edge)

    visit(ir, 0, "")
    return "\n".join(lines)


def tree_html(tree: Any, statuses: Mapping[str, str] | None = None) -> str:
    """The tree's drawing (SVG, or outline plus DOT source) in a view."""
    ir = as_ir(tree)
    return page(f"behavior {ir.get('name') or ir.get('kind')}", drawing_html(ir, statuses))


def _writer_cell(record: WriteRecord) -> str:
    label = f"<br><span class='jdsl-note'>{esc(record.writer_label)}</span>"
    shown = label if record.writer_label and record.writer_label != record.writer else ""
    if record.source is not None:
        shown += f"<br><span class='jdsl-note jdsl-pass'>{esc(record.pass_text())}</span>"
    return f'<code class="jdsl-writer">{esc(record.writer)}</code>{shown}'


def provenance_html(
    records: Sequence[WriteRecord], *, limit: int = MAX_ROWS, full_limit: int = TABLE_FULL_CHARS
) -> str:
    """Every blackboard write: key, value, writer node, previous value, later consumers."""
    rows = []
    for record in records[:limit]:
        consumers = "<br>".join(esc(c.describe()) for c in record.consumers[:20])
        more = len(record.consumers) - 20
        consumers += f"<br><span class='jdsl-note'>+{more} more</span>" if more > 0 else ""
        previous = (
            value_html(record.previous, full_limit=full_limit)
            if record.previous is not None
            else ""
        )
        clobber = " <span class='jdsl-badge jdsl-status-failure'>overwrote</span>"
        rows.append(
            [
                str(record.step),
                f"<code>{esc(record.key)}</code>",
                value_html(record.value, full_limit=full_limit),
                _writer_cell(record),
                previous + (clobber if record.overwrote else ""),
                consumers,
            ]
        )
    note = ""
    if len(records) > limit:
        note = f"<div class='jdsl-note'>{len(records) - limit} more writes not shown</div>"
    headers = ["step", "key", "value", "writer", "previous", "consumed by"]
    return table(headers, rows, cls="jdsl-provenance") + note


def choices_html(
    choices: Sequence[ModelChoice], *, limit: int = MAX_ROWS, full_limit: int = TABLE_FULL_CHARS
) -> str:
    """Tool calls whose arguments the model chose (react leaves): no blackboard key fed them."""
    rows = [
        [
            str(c.step),
            f"<code>{esc(c.node_id)}</code>",
            f"<code>{esc(c.tool)}</code>",
            value_html(dict(c.arguments), full_limit=full_limit),
            "chosen by the model",
        ]
        for c in choices[:limit]
    ]
    more = len(choices) - limit
    note = f"<div class='jdsl-note'>{more} more calls not shown</div>" if more > 0 else ""
    headers = ["step", "react node", "tool", "arguments", "source"]
    return table(headers, rows, cls="jdsl-model-choices") + note


def blackboard_html(state: Mapping[str, WriteRecord], *, full_limit: int = TABLE_FULL_CHARS) -> str:
    """The blackboard at one moment: key, value and who wrote it."""
    rows = [
        [
            f"<code>{esc(k)}</code>",
            value_html(r.value, full_limit=full_limit),
            _writer_cell(r),
            str(r.step),
        ]
        for k, r in sorted(state.items())
    ]
    if not rows:
        return "<div class='jdsl-note jdsl-blackboard'>(blackboard empty)</div>"
    return table(["key", "value", "writer", "written at step"], rows, cls="jdsl-blackboard")


def _bars(spans: Sequence[Span], total: int) -> str:
    bars = []
    for span in spans[:MAX_BARS]:
        left = 100.0 * span.start / total
        width = max(100.0 * (span.end - span.start + 1) / total, 0.4)
        title = f"steps {span.start}-{span.end} {span.status}"
        bars.append(
            f'<span class="jdsl-status-{esc(span.status)}" title="{esc(title)}" '
            f'style="left:{left:.2f}%;width:{width:.2f}%"></span>'
        )
    return "".join(bars)


def gantt_html(
    events: Sequence[Mapping[str, Any]], *, limit: int = MAX_ROWS, cursor: bool = False
) -> str:
    """The timeline by node: one row per node, a bar per visit (enter to exit), by status.

    ``cursor``: each row gets a hidden ``.jdsl-cursor`` line that the live view's step style
    sheet shows and moves (:func:`jdsl_nb.stepping.step_css`).
    """
    mark = '<i class="jdsl-cursor"></i>' if cursor else ""
    spans = node_spans(events)
    total = max(len(events), 1)
    labels = {str((e.get("payload") or {}).get("node_id")): str((e.get("payload") or {}).get("label") or "")
              for e in events if e.get("kind") == "node.enter"}  # fmt: skip
    rows = []
    for node_id, node_spans_ in list(spans.items())[:limit]:
        more = len(node_spans_) - MAX_BARS
        extra = f" <span class='jdsl-note'>+{more}</span>" if more > 0 else ""
        statuses = esc(", ".join(sorted({s.status for s in node_spans_})))
        label = labels.get(node_id) or node_id  # what the node does, its id under it
        name = (
            f"{esc(label)}<br><small><code>{esc(node_id)}</code></small>"
            if label != node_id
            else f"<code>{esc(node_id)}</code>"
        )
        status = (f"<span class='jdsl-tl-final'>{statuses}</span>"
                  f"<span class='jdsl-tl-now' data-node='{esc(node_id)}'></span>"
                  if cursor else statuses)  # fmt: skip
        rows.append(
            [
                f"{name}{extra}",
                str(len(node_spans_)),
                status,
                f'<div class="jdsl-gantt">{_bars(node_spans_, total)}{mark}</div>',
            ]
        )
    return table(["node", "visits", "status", f"steps 0-{total - 1}"], rows, cls="jdsl-timeline")


def events_html(
    events: Sequence[Mapping[str, Any]],
    start: int = 0,
    stop: int | None = None,
    current: int | None = None,
) -> str:
    """Events ``start:stop`` as rows: step, sequence, kind, node and a one-line summary."""
    stop = min(len(events), start + MAX_ROWS if stop is None else stop)
    rows = []
    for step in range(max(start, 0), stop):
        event = events[step]
        mark = "▶ " if step == current else ""
        rows.append(
            [
                f"{mark}{step}",
                esc(event.get("sequence", "")),
                f"<code>{esc(event.get('kind', ''))}</code>",
                f"<code>{esc(event_node(event))}</code>",
                esc(preview(event_summary(event), 160)[0]),
            ]
        )
    note = ""
    if stop < len(events) or start > 0:
        note = f"<div class='jdsl-note'>events {start}-{stop - 1} of {len(events)}</div>"
    return table(["step", "seq", "kind", "node", "summary"], rows, cls="jdsl-events") + note


def payload_html(event: Mapping[str, Any], *, full_limit: int = STATIC_FULL_CHARS) -> str:
    """One event in full: its envelope line, then each payload field (prompt, output, ...)."""
    payload = event.get("payload") or {}
    head = (
        f"<div><code>{esc(event.get('kind', ''))}</code> seq {esc(event.get('sequence', ''))}"
        f" actor {esc(event.get('actor', ''))} node <code>{esc(event_node(event))}</code></div>"
    )
    rows = [
        [f"<code>{esc(k)}</code>", value_html(v, 300, full_limit)]
        for k, v in sorted(payload.items())
    ]
    return head + table(["field", "value"], rows, cls="jdsl-payload")


def run_header(run: RunData) -> str:
    """One line: how the run ended (one word, as ``episode.finished`` says it), where and why
    a failed run stopped, the exception of a run that raised, and the event and write counts."""
    badge = (
        f"<span class='jdsl-badge jdsl-status-{esc(run.status)}'>{esc(run.status or '?')}</span>"
    )
    where = ""
    if run.failure and run.status != "success":
        failure = run.failure
        reason = "" if run.error else f": {esc(failure.get('reason', ''))}"  # raised: see below
        where = (
            f" · stopped at <code>{esc(failure.get('label', ''))}</code> "
            f"[<code>{esc(failure.get('node_id', ''))}</code>]{reason}"
        )
    error = ""
    if run.error:
        error = (
            f"<pre class='jdsl-error'>{esc(run.error)}</pre><div class='jdsl-note'>The run "
            "ended in error: it raised, and <code>ctx.error</code> holds the exception "
            "(an error is the FAILURE of <code>ctx.status</code> with <code>ctx.error</code> "
            "set).</div>"
        )
    counts = f"{len(run.events)} events · {len(run.records)} writes"
    notes = "".join(f"<div class='jdsl-note'>{esc(note)}</div>" for note in run.notes)
    return f"<div>run: {badge}{where} · {counts}</div>{notes}{error}"


def failure_text(run: RunData) -> str:
    """``"stopped at LABEL [NODE]: REASON"`` for a failed run, else ``""``."""
    if not run.failure or run.status == "success":
        return ""
    f = run.failure
    reason = "" if run.error else f": {f.get('reason', '')}"
    return f"stopped at {f.get('label', '')} [{f.get('node_id', '')}]{reason}"


def check_html(report: Any, rewrite: Callable[[str], str] | None = None) -> str:
    """A static check report (:class:`jdsl.CheckReport`): a summary line, the run inputs the
    tree reads, and one row per finding (severity, check, node, finding, fix). ``rewrite``
    rewords each finding and fix (the magics put their flags in the fixes)."""
    say = rewrite or (lambda text: text)
    rows = [
        [
            f"<span class='jdsl-badge jdsl-status-{'failure' if p.severity == 'error' else 'running'}'>"
            f"{esc(p.severity)}</span>",
            f"<code>{esc(p.code)}</code>",
            f"<code>{esc(p.node_id)}</code>",
            esc(say(p.message)),
            esc(say(p.hint)),
        ]
        for p in report.problems
    ]
    inputs = ", ".join(report.inputs) or "none"
    body = (
        f"<div>{esc(report.summary())} · run inputs the tree reads: <code>{esc(inputs)}</code>"
        f"</div>" + (table(["", "check", "node", "finding", "fix"], rows) if rows else "")
    )
    return page("static check", body)


def _fold(title: str, body: str, *, open: bool = False, pane: str = "jdsl-pane") -> str:
    """A section that folds (``<details>``: no script), its body scrolling past one pane."""
    return (
        f"<details class='jdsl-section'{' open' if open else ''}><summary><b>{esc(title)}</b>"
        f"</summary><div class='{pane}'>{body}</div></details>"
    )


def run_html(run: RunData) -> str:
    """A run: status, the coloured tree, the timeline, then folded: provenance, model-chosen
    tool calls, the events. About one screen tall until a section is opened."""
    parts = [run_header(run)]
    if run.ir is not None:
        parts.append(
            _fold(
                "tree (the run's final state)",
                drawing_html(run.ir, run.statuses) + f"<div class='jdsl-note'>{STEP_NOTE}</div>",
                open=True,
                pane="jdsl-pane-tall",
            )
        )
    parts.append(_fold("timeline by node", gantt_html(run.events), open=True))
    parts.append(_fold("blackboard provenance", provenance_html(run.records, limit=100)))
    if run.choices:
        parts.append(_fold("tool calls chosen by the model", choices_html(run.choices)))
    parts.append(_fold("events", events_html(run.events)))
    return page("run", "".join(parts), cls="jdsl-run")


def run_text(run: RunData) -> str:
    """A run as text: status, error, final blackboard with writers and consumers."""
    lines = [f"run: {run.status or '?'} ({len(run.events)} events, {len(run.records)} writes)"]
    if failure_text(run):
        lines.append(failure_text(run))
    lines.extend(run.notes)
    if run.error:
        lines.append(f"raised: {run.error}")
        lines.append(
            "(the run ended in error: ctx.error holds the exception; an error is the "
            "FAILURE of ctx.status with ctx.error set)"
        )
    final: dict[str, WriteRecord] = {r.key: r for r in run.records}
    for key, record in sorted(final.items()):
        lines.append(f"  {key} = {preview(record.value, 80)[0]}  (by {record.writer})")
        lines.extend(f"      -> {c.describe()}" for c in record.consumers[:5])
    lines.extend(f"  tool call {c.describe()}" for c in run.choices[:20])
    return "\n".join(lines)


def _episode_rows(events: list[dict[str, Any]]) -> list[list[str]]:
    order: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        order.setdefault(str(event.get("episode_id", "")), []).append(event)
    rows = []
    for episode_id, evs in order.items():
        started = next((e for e in evs if e.get("kind") == "episode.started"), {})
        finished = next((e for e in evs if e.get("kind") == "episode.finished"), {})
        calls = sum(1 for e in evs if e.get("kind") == "tool.call.started")
        rows.append(
            [
                episode_id,
                str((started.get("payload") or {}).get("skill", "")),
                str((finished.get("payload") or {}).get("status", "")),
                str(len(evs)),
                str(calls),
            ]
        )
    return rows


def trace_html(trace: Any) -> str:
    """A trace: one row per episode, then the last episode as a run view."""
    events = as_events(trace)
    rows = _episode_rows(events)[:MAX_ROWS]
    head = table(["episode", "skill", "status", "events", "tool calls"], rows, raw=False)
    return page(f"trace ({len(events)} events)", head) + run_html(RunData.build(events))


def trace_text(trace: Any) -> str:
    """A trace as text: one line per episode."""
    events = as_events(trace)
    lines = [f"trace: {len(events)} events"]
    lines += [
        f"  {r[0]}: {r[1]} {r[2]} ({r[3]} events, {r[4]} tool calls)" for r in _episode_rows(events)
    ]
    return "\n".join(lines)
