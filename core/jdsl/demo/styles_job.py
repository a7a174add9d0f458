"""The held-out figures on results files of agents jdsl has never seen (:mod:`.retail_styles`).

Each style's corpus is written as a tau-bench results file, imported with
:func:`jdsl.importers.import_tau_bench`, grouped by intent and measured as the airline demo is
(:func:`jdsl.demo.heldout_job.holdout_figures`: each family compiled without its last successful
run, the package validated on it). Every compiled package is also searched for what must vary
but was frozen (:func:`frozen_values`): a constant list or id-like string, a fixed list position
(``orders[2]``) or a path through a record id (``payment_methods.credit_card_7952624``).

Run ``python -m jdsl.demo.styles_job [style ...]`` for the table (``--help``: the styles).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jdsl.demo.heldout_job import HoldoutFigures, holdout_figures
from jdsl.demo.retail_styles import STYLES, Style, style_runs
from jdsl.importers import import_tau_bench
from jdsl.ir.walk import CHILD_SLOTS, walk_ir
from jdsl.trace.filenames import path_inside, safe_file_name

__all__ = ["StyleFigures", "frozen_values", "style_figures", "styles_lines"]

_POSITION = re.compile(r"\[\d+\]")
_RECORD_ID = re.compile(r"\.[A-Za-z_]*\d{4,}\w*")
_ID_LIKE = re.compile(r"\d{3,}|^#")


def frozen_values(ir: Mapping[str, Any]) -> list[str]:
    """What a package froze that must vary: ``node: what`` for each constant argument that is
    a list or an id-like string, and each reference with a fixed list position or a record id
    in its path (action arguments, guard and check expressions, loop lists)."""
    found: list[str] = []
    root = ir.get("root", ir)
    for node in walk_ir(root):
        where = str(node.get("id") or node.get("kind"))
        for arg, spec in (node.get("args") or {}).items():
            if not isinstance(spec, Mapping):
                continue
            const = spec.get("const")
            if isinstance(const, list) or (isinstance(const, str) and _ID_LIKE.search(const)):
                found.append(f"{where}: {arg} = constant {const!r}")
        skip = {
            "id",
            "store",
            "signature",
            "instructions",
            *CHILD_SLOTS.get(str(node.get("kind")), ()),
        }
        texts = {k: v for k, v in node.items() if k not in skip}
        text = json.dumps(texts, default=str)
        for pattern, what in ((_POSITION, "a fixed list position"), (_RECORD_ID, "a record id")):
            found += [f"{where}: {what} {m.group(0)!r}" for m in pattern.finditer(text)]
    return found


@dataclass(frozen=True)
class StyleFigures:
    """One style's held-out figures and what its packages froze."""

    style: Style
    runs: int
    figures: HoldoutFigures
    frozen: tuple[str, ...]

    def row(self) -> str:
        f = self.figures
        return (f"{self.style.name:<9} {self.style.strategy:<12} {self.runs:>4} {f.successful:>4} "
                f"{f.families:>4} {f.compiled:>4} {f.verified:>4} {f.held_out:>4} {f.served:>6} "
                f"{f.matched:>7} {f.fallback:>8} {f.refused:>7} {f.contradicted:>6} "
                f"{len(self.frozen):>6}")  # fmt: skip


HEADER = ("style     strategy     runs   ok fams comp veri held served matched fallback "
          "refused contra frozen")  # fmt: skip


def style_figures(style: Style | str, work: Path | None = None) -> StyleFigures:
    """Write ``style``'s corpus to a results file (in ``work``, else a temporary folder),
    import it and measure it (module docstring)."""
    style = STYLES[style] if isinstance(style, str) else style
    rows = style_runs(style)
    frozen: list[str] = []

    def scan(family: str, result: Any) -> None:
        frozen.extend(f"{family}: {what}" for what in frozen_values(result.ir))

    with tempfile.TemporaryDirectory() as tmp:
        path = path_inside(work or tmp, safe_file_name(f"{style.name}-retail", suffix=".json"))
        path.write_text(json.dumps(rows), encoding="utf-8")
        raw = import_tau_bench(str(path)).episodes
    figures = holdout_figures(raw, on_compiled=scan)
    return StyleFigures(style, len(rows), figures, tuple(frozen))


def styles_lines(found: Sequence[StyleFigures]) -> list[str]:
    """The report lines: one row per style, then each frozen value."""
    lines = [
        "Other agents (retail results files of scripted agents of four styles, never seen by "
        "jdsl: jdsl.demo.retail_styles; by intent, each family's last successful run held out):",
        f"  {HEADER}",
        *(f"  {f.row()}" for f in found),
    ]
    return lines + [f"  frozen: {f.style.name}: {what}" for f in found for what in f.frozen]


def main(argv: list[str]) -> None:
    """``python -m jdsl.demo.styles_job [--tasks-per-family N] [STYLE ...]``: the figures of
    each style (all by default), its corpus over ``N`` tasks per family (default: the
    style's own; 10 makes the 40-task corpora); an unknown style is a usage error (exit 2)."""
    parser = argparse.ArgumentParser(
        prog="python -m jdsl.demo.styles_job",
        description="The held-out figures of jdsl on tau-bench retail results files written by "
        "scripted agents of several styles (jdsl.demo.retail_styles); takes a minute a style.",
    )
    parser.add_argument(
        "styles", nargs="*", metavar="STYLE", help=f"of {', '.join(STYLES)} (default: all)"
    )
    parser.add_argument(
        "--tasks-per-family",
        type=int,
        metavar="N",
        help="tasks per family in each corpus (default: the style's own; 10: 40-task corpora)",
    )
    args = parser.parse_args(argv)
    names = args.styles or list(STYLES)
    unknown = [name for name in names if name not in STYLES]
    if unknown:
        parser.error(f"no style {unknown[0]!r}: pass one of {', '.join(STYLES)}")
    styles = [STYLES[name] for name in names]
    if args.tasks_per_family is not None:
        styles = [
            dataclasses.replace(style, tasks_per_family=args.tasks_per_family) for style in styles
        ]
    print("\n".join(styles_lines([style_figures(style) for style in styles])))


if __name__ == "__main__":
    main(sys.argv[1:])
