"""Static views of compile results and behavior packages, and the rows the CompileView shows.

A compile result is read through its documented parts (docs/design.md appendix B:
``CompileResult(package, compiled, candidates, verification, normalized)``); every part is
optional, so a partial result still shows what it has.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jdsl.drawing import drawing_html
from jdsl.ir.walk import as_ir, ir_nodes_with_ids

from jdsl_nb._coerce import as_events, jsonable
from jdsl_nb._html import esc, page, preview, table, value_html
from jdsl_nb.glossary import abbr, grade_legend, metrics_html

__all__ = [
    "candidate_rows",
    "compile_html",
    "compile_text",
    "compiled_ir",
    "lineage_rows",
    "package_html",
    "package_text",
    "residual_rows",
    "teacher_ir",
    "execution_text",
    "verification_dict",
    "verification_html",
    "verification_line",
]

CANDIDATE_COLUMNS = [
    "candidate_id",
    "type",
    "grade",
    "status",
    "support",
    "applicable",
    "counterexamples",
    "claim",
]


def teacher_ir(trace: Any) -> dict[str, Any] | None:
    """The tree that produced a trace: the first ``episode.started`` payload's ``ir``."""
    if trace is None:
        return None
    try:
        events = as_events(trace)
    except TypeError:
        return None
    for event in events:
        ir = (event.get("payload") or {}).get("ir")
        if event.get("kind") == "episode.started" and isinstance(ir, Mapping):
            return dict(ir)
    return None


def compiled_ir(result: Any) -> dict[str, Any] | None:
    """The compiled IR of a compile result (``compiled.ir``, else the package's), or None."""
    for holder in (getattr(result, "compiled", None), getattr(result, "package", None), result):
        if holder is None:
            continue
        try:
            return as_ir(getattr(holder, "ir", holder))
        except TypeError:
            continue
    return None


def candidate_rows(result: Any) -> list[dict[str, Any]]:
    """One row per candidate: id, type, grade, status, evidence counts, claim preview."""
    rows = []
    for candidate in getattr(result, "candidates", None) or []:
        data = jsonable(candidate)
        if not isinstance(data, Mapping):
            continue
        evidence = data.get("evidence") or {}
        rows.append(
            {
                "candidate_id": data.get("candidate_id", data.get("id", "")),
                "type": data.get("type", ""),
                "grade": data.get("grade", ""),
                "status": data.get("status", ""),
                "support": _count(evidence.get("support", data.get("support"))),
                "applicable": _count(evidence.get("applicable", data.get("applicable"))),
                "counterexamples": _count(
                    evidence.get("counterexamples", data.get("counterexamples"))
                ),
                "claim": preview(data.get("claim"), 100)[0],
            }
        )
    return rows


def _count(value: Any) -> int:
    if isinstance(value, list | tuple | set):
        return len(value)
    return int(value) if isinstance(value, int | float) else 0


def _step_flows(episode: Any) -> list[dict[str, Any]]:
    data = jsonable(episode)
    if not isinstance(data, Mapping):
        return []
    rows = []
    for step in data.get("steps") or []:
        tool = step.get("logical_tool") or step.get("host_tool") or "?"
        where = {"episode": data.get("episode_id", ""), "step": step.get("index", "")}
        for arg, path in sorted((step.get("arg_lineage") or {}).items()):
            if path:
                rows.append({**where, "from": str(path), "to": f"{tool}.{arg}"})
        rows += _list_flows(step, tool, where)
    return rows


def _list_flows(step: Mapping[str, Any], tool: str, where: dict[str, Any]) -> list[dict[str, Any]]:
    """A list argument's lineage: the list it was built from (``xs[*].id`` with the indexes it
    took), then each element's own source (``xs[2].id -> tool.arg[0]``)."""
    rows = []
    for arg, sources in sorted((step.get("list_sources") or {}).items()):
        for source in sources[:1]:
            indexes = ", ".join(str(k) for k in source.get("indexes") or ())
            rows.append({**where, "from": f"{source.get('head')}[*]{source.get('tail')} "
                         f"(elements {indexes})", "to": f"{tool}.{arg}"})  # fmt: skip
    for arg, elements in sorted((step.get("element_sources") or {}).items()):
        for k, paths in enumerate(elements):
            if paths:
                rows.append({**where, "from": str(paths[0]), "to": f"{tool}.{arg}[{k}]"})
    return rows


def lineage_rows(result: Any) -> list[dict[str, Any]]:
    """Exact value flows ``path -> tool.argument`` per episode and step (the lineage)."""
    rows: list[dict[str, Any]] = []
    for episode in getattr(result, "normalized", None) or []:
        rows.extend(_step_flows(episode))
    if rows:
        return rows
    for candidate in getattr(result, "candidates", None) or []:
        data = jsonable(candidate)
        claim = data.get("claim") if isinstance(data, Mapping) else None
        if (
            isinstance(data, Mapping)
            and data.get("type") == "DATAFLOW"
            and isinstance(claim, Mapping)
        ):
            target = claim.get("target") or {}
            rows.append(
                {
                    "episode": ", ".join((data.get("evidence") or {}).get("episodes", [])),
                    "step": target.get("index", ""),
                    "from": str(claim.get("source")),
                    "to": f"{target.get('tool')}.{target.get('argument')}",
                }
            )
    return rows


def residual_rows(result: Any) -> list[dict[str, Any]]:
    """Residual decisions the compiled tree leaves to a model: predict and react leaves."""
    ir = compiled_ir(result)
    if ir is None:
        return []
    rows: list[dict[str, Any]] = []
    for node_id, node in ir_nodes_with_ids(ir):
        if node.get("kind") in ("predict", "react"):
            rows.append(
                {
                    "node": node_id,
                    "kind": node["kind"],
                    "signature": node.get("signature", ""),
                    "instructions": preview(node.get("instructions") or "", 120)[0],
                    "tools": ", ".join(node.get("tools") or []),
                }
            )
    return rows


def verification_dict(result: Any) -> dict[str, Any]:
    """The verification report as a dict (``to_dict()`` of the report), or ``{}``."""
    report = getattr(result, "verification", None)
    if report is None:
        manifest = getattr(getattr(result, "package", None), "manifest", None)
        report = getattr(manifest, "verification", None)
    data = jsonable(report) if report is not None else {}
    return dict(data) if isinstance(data, Mapping) else {"report": data}


_VERIFICATION_KEYS = (
    "status",
    "structural_ok",
    "replay_checks",
    "replay_passed",
    "replay_coverage",
    "problems",
    "problems_omitted",
    "executed",
    "matched",
    "first_divergence",
)


def verification_line(data: Mapping[str, Any]) -> str:
    """The verification report in one line, e.g. ``passed: structure ok, 42/42 replay checks
    passed, executed 24 episodes, 24 matched``; other fields follow as
    ``key value``."""
    if not data:
        return "no verification report"
    parts = []
    if "structural_ok" in data:
        parts.append("structure ok" if data["structural_ok"] else "structure has problems")
    if "replay_checks" in data:  # replay_coverage is this ratio: "coverage" is the code's share
        parts.append(f"{data.get('replay_passed', 0)}/{data['replay_checks']} replay checks passed")
    if "executed" in data:
        parts.append(execution_text(data))
    parts += [f"{k} {preview(v, 60)[0]}" for k, v in data.items() if k not in _VERIFICATION_KEYS]
    return f"{data.get('status', '?')}: " + ", ".join(parts)


def verification_html(data: Mapping[str, Any]) -> str:
    """The verification report: a status badge, the line, then each problem on its own line."""
    status = str(data.get("status", "?"))
    badge = {"passed": "success", "failed": "failure"}.get(status, "running")
    line = esc(verification_line(data).partition(": ")[2])
    problems = [esc(p) for p in data.get("problems") or []]
    if data.get("problems_omitted"):
        problems.append(f"… {esc(data['problems_omitted'])} more")
    listing = "".join(f"<li>{p}</li>" for p in problems)
    return (
        f"<div class='jdsl-verification'><span class='jdsl-badge jdsl-status-{badge}'>"
        f"{esc(status)}</span> {line}{f'<ul>{listing}</ul>' if listing else ''}</div>"
    )


def _rows_table(rows: list[dict[str, Any]], cls: str, columns: list[str] | None = None) -> str:
    if not rows:
        return "<div class='jdsl-note'>(none)</div>"
    cols = columns or list(rows[0])
    return table(cols, ([esc(r.get(c, "")) for c in cols] for r in rows), cls=cls)


def execution_text(verification: Mapping[str, Any]) -> str:
    """``executed 24 episodes, 24 matched`` (and the first divergence when one did not)."""
    text = (
        f"executed {verification.get('executed', 0)} episodes, "
        f"{verification.get('matched', 0)} matched"
    )
    first = verification.get("first_divergence")
    if isinstance(first, Mapping):
        text += (
            f"; first divergence: episode {first.get('episode_id')!r}, node "
            f"{first.get('node_id')!r}: {first.get('reason')}"
        )
    return text


def _fold(title: str, body: str, *, open: bool = False) -> str:
    """A section that folds (``<details>``, no script), its body scrolling past one pane."""
    return (
        f"<details class='jdsl-section'{' open' if open else ''}><summary><b>{esc(title)}</b>"
        f"</summary><div class='jdsl-pane'>{body}</div></details>"
    )


def _candidates_table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "<div class='jdsl-note'>(none)</div>"
    cells = ([abbr(str(r.get(c, ""))) if c == "grade" else esc(r.get(c, ""))
              for c in CANDIDATE_COLUMNS] for r in rows)  # fmt: skip
    return table(CANDIDATE_COLUMNS, cells, cls="jdsl-candidates")


def compile_summary_html(result: Any) -> str:
    """The compile in a few lines: verification, candidates by grade, RDB and coverage."""
    grades: dict[str, int] = {}
    for row in candidate_rows(result):
        grades[str(row["grade"])] = grades.get(str(row["grade"]), 0) + 1
    counts = ", ".join(f"{abbr(g)} {n}" for g, n in sorted(grades.items())) or "none"
    residuals = len(residual_rows(result))
    return (
        "<div class='jdsl-summary'>"
        + verification_html(verification_dict(result))
        + f"<div>{sum(grades.values())} candidates ({counts}) · {residuals} model leaf"
        f"{'s' * (residuals != 1)} left</div>"
        + metrics_html(getattr(result, "metrics", None))
        + grade_legend()
        + "</div>"
    )


def compile_html(result: Any, trace: Any = None) -> str:
    """A compile report: the summary first (verification, grades, metrics explained), then
    folded: the compiled tree (open), the teacher tree, candidates, lineage, residuals."""
    teacher, compiled = teacher_ir(trace), compiled_ir(result)
    right = drawing_html(compiled) if compiled else "<div class='jdsl-note'>(no IR)</div>"
    body = [compile_summary_html(result), _fold("compiled tree", right, open=True)]
    if teacher:
        body.append(_fold("teacher tree", drawing_html(teacher)))
    else:
        body.append(
            "<div class='jdsl-note'>To see the teacher tree too, display "
            "<code>CompileView(result, trace=TRACE)</code> with the compiled trace.</div>"
        )
    candidates = candidate_rows(result)
    lineage = lineage_rows(result)
    residuals = residual_rows(result)
    body += [
        _fold(f"candidates ({len(candidates)})", _candidates_table(candidates[:200])),
        _fold(f"lineage flows ({len(lineage)})", _rows_table(lineage[:200], "jdsl-lineage")),
        _fold(f"residual signatures ({len(residuals)})", _rows_table(residuals, "jdsl-residuals")),
    ]
    return page("compile result", "".join(body), cls="jdsl-compile")


def compile_text(result: Any) -> str:
    """A compile result as text: verification status, candidate grades, residual signatures."""
    verification = verification_dict(result)
    grades: dict[str, int] = {}
    for row in candidate_rows(result):
        grades[str(row["grade"])] = grades.get(str(row["grade"]), 0) + 1
    lines = [
        f"compile result: verification {verification.get('status', '?')} "
        f"({execution_text(verification)}), "
        f"{sum(grades.values())} candidates {dict(sorted(grades.items()))}"
    ]
    lines += [
        f"  residual {r['node']}: {r['kind']} {r['signature']!r}" for r in residual_rows(result)
    ]
    return "\n".join(lines)


def _manifest(package: Any) -> dict[str, Any]:
    data = jsonable(getattr(package, "manifest", None) or {})
    return dict(data) if isinstance(data, Mapping) else {}


def package_html(package: Any) -> str:
    """A behavior package: a summary line first, the tree, then folded: manifest, files."""
    manifest = _manifest(package)
    facts = [
        [esc(k), value_html(manifest.get(k), 300)]
        for k in (
            "name",
            "version",
            "task_family",
            "required_capabilities",
            "verification",
            "source",
        )
        if k in manifest
    ]
    files = manifest.get("files") or {}
    file_rows = [
        [f"<code>{esc(k)}</code>", f"<code>{esc(v)}</code>"] for k, v in sorted(files.items())
    ]
    try:
        drawing = drawing_html(as_ir(package))
    except TypeError:
        drawing = "<div class='jdsl-note'>(no tree)</div>"
    summary = f"<div class='jdsl-summary'>{esc(package_text(package))}</div>"
    body = (
        summary
        + _fold("tree", drawing, open=True)
        + _fold("manifest", table(["field", "value"], facts, cls="jdsl-manifest"))
        + _fold(f"files ({len(file_rows)})", table(["file", "digest"], file_rows, cls="jdsl-files"))
    )
    return page(f"package {manifest.get('name', '')} {manifest.get('version', '')}", body)


def package_text(package: Any) -> str:
    """A package as text: name, version, capabilities, verification status."""
    manifest = _manifest(package)
    verification = manifest.get("verification") or {}
    status = verification.get("status", "?") if isinstance(verification, Mapping) else verification
    if isinstance(verification, Mapping) and "executed" in verification:
        status = f"{status} ({execution_text(verification)})"
    caps = ", ".join(manifest.get("required_capabilities") or [])
    return (
        f"package {manifest.get('name', '?')} {manifest.get('version', '')}: "
        f"verification {status}; requires [{caps}]"
    )
