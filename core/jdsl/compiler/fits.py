"""Whether a recorded run fits a compiled path: what replay answers a route decision that may
say no path fits (:data:`OTHER_ROUTE`).

Where every path of a family is too thin to branch alone but the runs that make the same
writes have the support, each path is compiled behind a route decision that may also answer
:data:`OTHER_ROUTE` (:mod:`jdsl.compiler.staticize`): no alternative checks it, so the selector
fails there and the package's fallback takes over. Replay (:mod:`jdsl.compiler.decisions`)
answers it for a run that fits none of the paths: a path fits a run when the run makes the
path's calls in order, the same writes and no other write (a loop's call any number of times),
and at most extra reads between them (reads do not split a family). A run that read its way
differently, or wrote something else, would have left the compiled paths: it is the
fallback's, not a guess at which path it would have taken.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from jdsl.compiler.families import is_write
from jdsl.ir.walk import child_slots

__all__ = ["MAX_PATHS", "OTHER_ROUTE", "Call", "path_calls", "run_fits"]

OTHER_ROUTE = "other"
"""What a route decision over paths too thin to branch alone answers when none fits the run:
no alternative checks it, so the selector fails there and the package's fallback takes over."""

Call = tuple[str, bool, bool]
"""``(tool, in a loop, a write)``: one call of a compiled path."""
MAX_PATHS = 64
"""At most this many call sequences are tried (a tree of nested selectors)."""
RouteOf = Callable[[dict[str, Any]], "list[tuple[str, Any, dict[str, Any] | None]] | None"]


def path_calls(
    node: Mapping[str, Any], routes: Mapping[str, Any], route_of: RouteOf
) -> list[tuple[Call, ...]]:
    """The call sequences the tree can make along ``routes`` (pre-order): at a selector whose
    alternatives check a decided route, the alternative it names; at any other selector, each
    alternative (at most :data:`MAX_PATHS` sequences).

    Args:
        node: an IR node.
        routes: ``{route key: value}`` decided so far.
        route_of: ``alternative -> [(key, value, first action)]`` of an alternative that checks
            a route, else None (``jdsl.compiler.decisions._route``).
    """
    if node.get("kind") == "action":
        tool = str(node.get("tool"))
        return [((tool, False, is_write(tool)),)]
    children = [c for c in child_slots(node) if isinstance(c, dict)]
    if node.get("kind") == "selector" and children:
        decided = [c for c in children
                   if any(k in routes and v == routes[k] for k, v, _ in route_of(c) or ())]  # fmt: skip
        return [p for c in decided[:1] or children for p in path_calls(c, routes, route_of)][
            :MAX_PATHS
        ]
    paths: list[tuple[Call, ...]] = [()]
    for child in children:
        tails = path_calls(child, routes, route_of)
        paths = [head + tail for head in paths for tail in tails][:MAX_PATHS]
    if node.get("kind") == "for_each":
        return [tuple((tool, True, write) for tool, _, write in p) for p in paths]
    return paths


def run_fits(path: Sequence[Call], calls: Sequence[tuple[str, bool]]) -> bool:
    """Whether a run's successful ``calls`` (``(tool, a write)``, in order) fit ``path``: each
    of its calls in order (a loop's any number of times), no other write, extra reads anywhere.
    """

    @cache
    def from_(i: int, j: int) -> bool:
        if i == len(path):
            return not any(write for _, write in calls[j:])
        tool, loop, _ = path[i]
        if loop and from_(i + 1, j):  # a loop over no element
            return True
        if j >= len(calls):
            return False
        if calls[j][0] == tool and (from_(i + 1, j + 1) or (loop and from_(i, j + 1))):
            return True
        return not calls[j][1] and from_(i, j + 1)  # a read the path does not make here

    return from_(0, 0)
