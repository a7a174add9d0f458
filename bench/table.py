"""Benchmark rows and their rendering as a plain-text table and as RESULTS.md."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Row", "format_value", "markdown", "text_table", "verdict"]

_SCALES = {
    "s": ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")),
    "B": ((1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B")),
}


@dataclass
class Row:
    """One measured figure.

    Attributes:
        section: the table section ("interpreter", "compiler", ...).
        name: what was measured, e.g. ``"seq of 1,000 no-op actions, untraced, per node"``.
        value: the figure, in ``unit``.
        unit: ``"s"`` (seconds), ``"B"`` (bytes), ``"x"`` (a ratio) or ``""`` (a plain number).
        peer: the peer's figure in the same unit, measured in the same run, or None.
        peer_name: who the peer is (``"py_trees"``, ``"json.loads"``, ...).
        target: the target in words, e.g. ``"<= py_trees"``, or None when there is none.
        met: whether the target is met (None when there is no target).
        note: how it was measured, or why a figure is missing.
    """

    section: str
    name: str
    value: float | None
    unit: str = "s"
    peer: float | None = None
    peer_name: str | None = None
    target: str | None = None
    met: bool | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        """``value / peer`` when both are known and the peer is not zero."""
        if self.value is None or not self.peer:
            return None
        return self.value / self.peer


def format_value(value: float | None, unit: str) -> str:
    """A figure for display: ``12.3 µs``, ``4.1 MB``, ``1.52x``, ``0.983``; ``-`` when None."""
    if value is None:
        return "-"
    if unit == "x":
        return f"{value:.2f}x"
    if unit in _SCALES:
        for scale, label in _SCALES[unit]:
            if abs(value) >= scale or scale == _SCALES[unit][-1][0]:
                return f"{value / scale:.3g} {label}"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def verdict(row: Row) -> str:
    """``met``, ``MISSED``, or ``""`` when the row has no target (or could not be measured)."""
    if row.target is None:
        return ""
    if row.met is None:
        return "NOT MEASURED"
    return "met" if row.met else "MISSED"


def _cells(row: Row) -> list[str]:
    peer = format_value(row.peer, row.unit) if row.peer is not None else ""
    if peer and row.peer_name:
        peer = f"{peer} ({row.peer_name})"
    ratio = f"{row.ratio:.2f}x" if row.ratio is not None else ""
    target = f"{row.target}: {verdict(row)}" if row.target else ""
    return [row.name, format_value(row.value, row.unit), peer, ratio, target, row.note]


_HEADER = ["measure", "jdsl", "peer", "ratio", "target", "note"]


def text_table(rows: Sequence[Row]) -> str:
    """The rows as an aligned plain-text table, one block per section."""
    lines: list[str] = []
    for section, block in _sections(rows):
        cells = [_HEADER, *(_cells(r) for r in block)]
        widths = [max(len(c[i]) for c in cells) for i in range(len(_HEADER))]
        lines.append(f"== {section} ==")
        for c in cells:
            lines.append("  ".join(v.ljust(w) for v, w in zip(c, widths, strict=True)).rstrip())
        lines.append("")
    return "\n".join(lines)


def markdown(
    rows: Sequence[Row],
    *,
    machine: Mapping[str, str],
    command: str,
    elapsed_s: float,
    notes: Iterable[str] = (),
) -> str:
    """RESULTS.md: the command, the machine, one table per section, and the notes."""
    out = ["# jdsl benchmark results", "", f"Command: `{command}` (took {elapsed_s:.0f} s)", ""]
    out += ["Machine:", ""] + [f"- {k}: {v}" for k, v in machine.items()] + [""]
    missed = [r for r in rows if r.target and r.met is not True]
    out.append(
        f"Targets: {sum(1 for r in rows if r.met)} met, {len(missed)} missed or not measured."
    )
    out.append("")
    for section, block in _sections(rows):
        out += [f"## {section}", "", "| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in _cells(r)) + " |" for r in block]
        out.append("")
    extra = list(notes)
    if extra:
        out += ["## Notes", ""] + [f"- {n}" for n in extra] + [""]
    return "\n".join(out)


def _sections(rows: Sequence[Row]) -> list[tuple[str, list[Row]]]:
    order: dict[str, list[Row]] = {}
    for row in rows:
        order.setdefault(row.section, []).append(row)
    return list(order.items())
