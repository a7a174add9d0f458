"""The recorded model decisions and run inputs an executed tree is given (:mod:`.replay`).

:func:`decision_model` builds the :class:`~jdsl.providers.replay.ReplayModel` that answers a
tree's predict leaves from one episode; :func:`run_inputs` gives the run inputs, including the
synthesized inputs a compiled tree reads; :class:`TreeShape` is what both need to know about
the tree, computed once.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jdsl.compiler.arms import Arms, handing
from jdsl.compiler.families import is_write
from jdsl.compiler.fits import OTHER_ROUTE, path_calls, run_fits
from jdsl.compiler.lineage import element_index, selected_indexes
from jdsl.compiler.loop_answers import loop_selections, skips_scan
from jdsl.compiler.normalized import NormEpisode, NormStep
from jdsl.compiler.ways import agreement, collapsed, collapsed_positions, never_holds
from jdsl.errors import JdslError
from jdsl.expr import resolve_path
from jdsl.ir.walk import child_slots, walk_ir
from jdsl.providers.replay import ReplayModel
from jdsl.signature import Signature
from jdsl.tree import Root

__all__ = ["OTHER_ROUTE", "TreeShape", "decision_model", "run_inputs"]


def _walk(node: Any) -> list[dict[str, Any]]:
    """Every node dict under ``node``, pre-order (:func:`jdsl.ir.walk.walk_ir`)."""
    return list(walk_ir(node)) if isinstance(node, dict) else []


@dataclass(frozen=True)
class TreeShape:
    """What execution needs to know about a tree, computed once per tree (pass it instead of
    the tree to :func:`decision_model` and :func:`run_inputs` when running many episodes).

    Attributes:
        nodes: every IR node dict, pre-order.
        tools / predicates: the action tools and guard_call predicates, in tree order.
        failing: the tools of ``on_error="fail"`` actions.
        predicts: ``(node id, output keys)`` per predict leaf, in tree order.
        produced: the keys some node writes (action stores and predict outputs).
        arms: the subtree walks and route checks of the tree's nodes (:mod:`.arms`).
    """

    nodes: tuple[dict[str, Any], ...]
    tools: tuple[str, ...]
    predicates: tuple[str, ...]
    failing: tuple[str, ...]
    predicts: tuple[tuple[str, tuple[str, ...]], ...]
    produced: frozenset[str]
    arms: Arms = field(default_factory=Arms, compare=False, repr=False)

    @classmethod
    def of(cls, tree: Root | Mapping[str, Any]) -> TreeShape:
        """The shape of a :class:`~jdsl.tree.Root` or an IR document."""
        nodes = tuple(_walk(_root_dict(tree)))
        actions = [n for n in nodes if n.get("kind") == "action"]
        predicts = tuple(
            (str(n.get("id") or ""), Signature.parse(str(n["signature"])).output_names)
            for n in nodes
            if n.get("kind") == "predict" and n.get("signature")
        )
        stores = {str(n["store"]) for n in actions if n.get("store")}
        return cls(
            nodes=nodes,
            tools=tuple(str(n["tool"]) for n in actions),
            predicates=tuple(str(n["predicate"]) for n in nodes if n.get("kind") == "guard_call"),
            failing=tuple(str(n["tool"]) for n in actions if n.get("on_error") == "fail"),
            predicts=predicts,
            produced=frozenset(stores.union(*(set(outputs) for _, outputs in predicts))),
        )


def _root_dict(tree: Root | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(tree, Root):
        return tree.to_ir()
    data = dict(tree)
    return dict(data.get("root", data))


def decision_model(tree: Root | Mapping[str, Any] | TreeShape, episode: NormEpisode) -> ReplayModel:
    """A :class:`ReplayModel` answering the tree's predict leaves with the episode's decisions.

    Each predict leaf (pre-order) gets one recorded ``model.responded`` answer when the episode
    holds a value for every output key it writes: the output of a recorded model decision
    (in order, when several decisions wrote the key), else the argument of the call whose
    action refs the key directly (a residual for a model-chosen argument), or the indexes a
    recorded list argument took for a selection ``xs[$key].id``. A leaf without such values
    gets no answer, so calling it is a divergence (``ReplayDivergence``).
    """
    shape = tree if isinstance(tree, TreeShape) else TreeShape.of(tree)
    nodes = shape.nodes
    written: dict[str, list[Any]] = {}
    for decision in episode.decisions:
        for key, value in decision.outputs.items():
            written.setdefault(key, []).append(value)
    arms = shape.arms
    routes = _routes(nodes, episode, arms)
    reached = _reached(nodes[0], routes, arms) if nodes else set()
    chosen = {**routes, **_chosen_arguments(nodes, episode, arms, reached),
              **loop_selections(nodes, episode, reached)}  # fmt: skip
    events: list[dict[str, Any]] = []
    for node_id, outputs in shape.predicts:
        if node_id not in reached:  # an alternative the run did not take: never answered
            continue
        values = {}
        for key in outputs:
            if written.get(key):
                values[key] = written[key].pop(0)
            elif key in chosen:
                values[key] = chosen[key]
        if len(values) == len(outputs):
            events += _answer_events(node_id, values, len(events))
    return ReplayModel(events, strict=True)


def _routes(nodes: Sequence[dict[str, Any]], episode: NormEpisode, arms: Arms) -> dict[str, Any]:
    """``{key: value}`` for route decisions: a selector whose alternatives each check
    ``key == value`` gets the value of the alternative whose first call the episode made
    first (the path the teacher took). An alternative's first call is the k-th call of its
    tool, k counted along the path to it (:func:`_numbered`): an alternative that starts with a
    second product lookup is not the path of a run that made one lookup, before the selector.
    Selectors are decided top down, inside the alternative taken only: two alternatives may
    each hold a selector on the same key. An alternative that hands over to the fallback
    (:meth:`.arms.Arms.handing_checks`) names the tools its runs called there: a run that made that call
    first took it. Where two alternatives' first calls are the same call, one that starts with a
    loop over every element of a list (``for_each x in xs``) is not the way of a run that did
    not make that call for every element there."""
    if not nodes:
        return {}
    at: dict[str, list[int]] = {}
    for position, step in enumerate(episode.ok_steps()):
        at.setdefault(step.logical_tool, []).append(position)
    counted = {str(n.get("id")): k for n, k in _numbered(nodes[0], {}, arms)}
    found: dict[str, Any] = {}
    calls = tuple((s.logical_tool, is_write(s.logical_tool)) for s in episode.ok_steps())
    fit = _Fit(nodes[0], _other_keys(nodes), calls, arms)
    writes = sum(1 for _, write in calls if write)

    def again() -> bool:  # the run made more writes than the path it took so far
        return writes > _writes_reached(nodes[0], found, arms)

    tools = tuple(collapsed(tool for tool, _ in calls))
    _decide(nodes[0], at, counted, found, episode.ok_steps(), fit, _Run(tools, again), arms)
    return found


@dataclass(frozen=True)
class _Run:
    """What else deciding a run's routes reads: its calls' tools with repeats collapsed, and
    whether it wrote more than the path taken so far (``again()``)."""

    tools: Sequence[str]
    again: Callable[[], bool]


@dataclass(frozen=True)
class _Fit:
    """What answering :data:`OTHER_ROUTE` needs (:mod:`jdsl.compiler.fits`): the tree, the route
    keys that offer it, and the run's successful calls (``(tool, a write)``, in order)."""

    root: Mapping[str, Any]
    keys: frozenset[str]
    calls: tuple[tuple[str, bool], ...]
    arms: Arms

    def fits(self, routes: Mapping[str, Any]) -> bool:
        """Whether the run fits the tree's path along ``routes``."""
        return any(run_fits(p, self.calls) for p in path_calls(self.root, routes, self.arms.route))


def _other_keys(nodes: Sequence[dict[str, Any]]) -> frozenset[str]:
    """The outputs of route decisions that may answer that no path fits (a ``Literal`` with
    :data:`OTHER_ROUTE`)."""
    found = set()
    for node in nodes:
        if node.get("kind") == "predict" and node.get("signature"):
            for field in Signature.parse(str(node["signature"])).outputs:
                if f'"{OTHER_ROUTE}"' in str(field.type) and str(field.type).startswith("Literal"):
                    found.add(field.name)
    return frozenset(found)


def _decide(node: Mapping[str, Any], at: Mapping[str, list[int]], counted: Mapping[str, int],
            found: dict[str, Any], steps: Sequence[NormStep], fit: _Fit,
            run: _Run, arms: Arms) -> None:  # fmt: skip
    """Decide the route selectors under ``node`` as the run took them; a route that offers
    :data:`OTHER_ROUTE` takes the alternative (in the order the run made their first calls)
    whose path the run fits (:func:`jdsl.compiler.fits.run_fits`), else answers it. An
    alternative without a call is taken when it hands over (a guard that never holds) and the
    run writes again (``run.again()``), else when no other alternative's first call was made
    (the run ends there: :mod:`jdsl.compiler.staticize.again`). Of alternatives whose first call
    is the same call of the run, the one whose calls the run went on to make in order the
    furthest."""
    children = [c for c in child_slots(node) if isinstance(c, dict)]
    routes = [arms.route(child) for child in children] if node.get("kind") == "selector" else []
    if routes and all(r is not None for r in routes):
        firsts: list[tuple[float, bool, int, int, str, Any]] = []
        collapsed_at = collapsed_positions(at)
        for n, ways in enumerate(routes):
            for key, value, action in ways or ():
                if action is None:
                    hands = any(never_holds(c) for c in arms.walk(children[n]))
                    if not hands or run.again():
                        firsts.append((-1.0 if hands else math.inf, False, 0, n, key, value))
                    continue
                made = []  # the first calls the run made of the ways the alternative starts
                for first in arms.firsts(action, children[n]):
                    calls = at.get(str(first["tool"])) or []
                    k = counted.get(str(first.get("id")), 0)
                    if k < len(calls):
                        made.append(calls[k])
                if made:
                    skips = _skips_loop(children[n], min(made), steps, arms)
                    agree = agreement(children[n], run.tools, collapsed_at.get(min(made), 0))
                    firsts.append((min(made), skips, -agree, n, key, value))
        key = str(routes[0][0][0]) if routes[0] else ""
        if key in fit.keys and key not in found:
            firsts = [f for f in sorted(firsts) if fit.fits({**found, key: f[5]})][:1]
            if not firsts:
                found[key] = OTHER_ROUTE
                return
        if firsts:
            _, _, _, n, key, value = min(firsts)
            found.setdefault(key, value)
            children = [children[n]]
    for child in children:
        _decide(child, at, counted, found, steps, fit, run, arms)


def _writes_reached(root: Mapping[str, Any], routes: Mapping[str, Any], arms: Arms) -> int:
    """The writes a run with these route decisions makes (a recovery's failing first try, an
    action ``on_error=fail``, does not count: its backup does)."""
    reached = _reached(root, routes, arms)
    return sum(1 for n in arms.walk(root) if n.get("kind") == "action" and n.get("on_error") != "fail"
               and str(n.get("id") or "") in reached and is_write(str(n.get("tool"))))  # fmt: skip


def _skips_loop(
    alternative: Mapping[str, Any], position: int, steps: Sequence[NormStep], arms: Arms
) -> bool:
    """Whether ``alternative`` starts with a loop over every element of a list and the run,
    from its call at ``position``, did not call the loop's tool once per element; or with a
    scan (:func:`~jdsl.compiler.loop_answers.skips_scan`) and the run's call there did not take
    the list's first element."""
    for node in arms.walk(alternative):
        if node.get("kind") == "action":
            return False
        scan = skips_scan(node, arms.walk(alternative), steps[position])
        if scan is not None:
            return scan
        if node.get("kind") != "for_each" or "[$" in str(node.get("items", "")):
            continue
        tool = next((n.get("tool") for n in arms.walk(node.get("child")) if n.get("kind") == "action"),
                    None)  # fmt: skip
        try:
            elements = resolve_path(str(node.get("items")), steps[position].state_before)
        except JdslError:
            return False
        if not isinstance(elements, list):
            return False
        made = position
        while made < len(steps) and steps[made].logical_tool == tool:
            made += 1
        return made - position < len(elements)
    return False


def _reached(node: Mapping[str, Any], routes: Mapping[str, Any], arms: Arms) -> set[str]:
    """The ids of the predict leaves and actions a run with these route decisions can reach: a
    selector whose alternatives check a decided route is entered only through the matching
    one."""
    found = {str(node.get("id") or "")} if node.get("kind") in ("predict", "action") else set()
    children = [c for c in child_slots(node) if isinstance(c, dict)]
    if node.get("kind") == "selector":
        ways = [arms.route(child) for child in children]
        if ways and all(a and all(key in routes for key, _, _ in a) for a in ways):
            children = [c for c, a in zip(children, ways, strict=True)
                        if any(routes[key] == value for key, value, _ in a or ())]  # fmt: skip
    return found.union(*(_reached(child, routes, arms) for child in children))


def _chosen_arguments(
    nodes: Sequence[dict[str, Any]], episode: NormEpisode, arms: Arms,
    reached: set[str] | None = None, *, path: set[str] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """``{key: value}`` for action arguments that ref a bare key: the value the k-th action of a
    tool (:func:`_numbered`) had in the k-th successful call of that tool; for a selection
    ``xs[$k].id``, ``k`` gets the indexes the recorded list argument took. Only the actions in
    ``reached`` (the run's path, :func:`_reached`) answer, when given: two alternatives may
    name their positions alike. Calls are counted along ``path`` (default ``reached``)."""
    found: dict[str, Any] = {}
    calls: dict[str, list[NormStep]] = {}
    for step in episode.ok_steps():
        calls.setdefault(step.logical_tool, []).append(step)
    counted = _numbered(nodes[0] if nodes else {}, {}, arms, reached if path is None else path)
    numbered = [(node, k) for node, k in counted
                if node.get("kind") == "action"
                and (reached is None or str(node.get("id") or "") in reached)]  # fmt: skip
    for node, k in numbered:
        tool = str(node.get("tool"))
        steps = calls.get(tool) or []
        for arg, spec in (node.get("args") or {}).items():
            if k < len(steps) and isinstance(spec, dict) and arg in steps[k].arguments:
                ref = str(spec.get("ref"))
                if _BARE_KEY.fullmatch(ref):  # a path is never a key a residual writes
                    found.setdefault(ref, steps[k].arguments[arg])
                found.update(selected_indexes(ref, steps[k].list_sources.get(arg, ())))
                found.update(element_index(ref, steps[k].arg_sources.get(arg, ())))
    return {**found, **_acted_on(numbered, calls)}


def _acted_on(
    numbered: Sequence[tuple[dict[str, Any], int]], calls: Mapping[str, Sequence[NormStep]]
) -> dict[str, int]:
    """``{k: n}`` for a read that selects ``xs[$k]`` and whose result a later write uses
    (``order.order_id``): the position of the element the write acted on, found among the
    recorded write's sources. A run that scanned several elements made its k-th read of the
    tool on the first of them, not on the one it acted on."""
    found: dict[str, int] = {}
    for at, (node, _) in enumerate(numbered):
        store = str(node.get("store") or "")
        selecting = [str(spec.get("ref")) for spec in (node.get("args") or {}).values()
                     if isinstance(spec, dict) and "[$" in str(spec.get("ref"))]  # fmt: skip
        if not store or not selecting or is_write(str(node.get("tool"))):
            continue
        for later, k in numbered[at + 1 :]:
            steps = calls.get(str(later.get("tool"))) or []
            if not is_write(str(later.get("tool"))) or k >= len(steps):
                continue
            for arg, spec in (later.get("args") or {}).items():
                ref = str(spec.get("ref")) if isinstance(spec, dict) else ""
                if ref.startswith(f"{store}.") or ref.startswith(f"{store}["):
                    sources = steps[k].arg_sources.get(arg, ())
                    for path in selecting:
                        for key, n in element_index(path, sources).items():
                            found.setdefault(key, n)
    return found


def _numbered(
    node: Mapping[str, Any], seen: dict[str, int], arms: Arms, reached: set[str] | None = None
) -> list[tuple[dict[str, Any], int]]:
    """Each action under ``node`` (pre-order) with how many actions of its tool a run reaching
    it made before (``seen``, updated): the alternatives of a selector each count from where
    the selector starts (a run takes one of them), and after it the most any of them made (of
    those the run can take, with ``reached``: the run's path, :func:`_reached`). An
    alternative that hands over counts as ``{"kind": "hand_over", "tool", "id"}``: the call
    its runs made there."""
    if node.get("kind") == "action":
        k = seen[str(node.get("tool"))] = seen.get(str(node.get("tool")), -1) + 1
        return [(dict(node), k)]
    children = [c for c in child_slots(node) if isinstance(c, dict)]
    if node.get("kind") != "selector":
        return [pair for child in children for pair in _numbered(child, seen, arms, reached)]
    found, start, after = [], dict(seen), dict(seen)
    for child in children:
        arm = dict(start)
        checks = arms.handing_checks(child)
        if checks is not None:
            found += [(handing(child, c), arm.get(str(c.get("equals")), -1) + 1) for c in checks]
        else:
            found += _numbered(child, arm, arms, reached)
        if reached is not None and not arms.ids(child) & reached:
            continue  # an alternative the run does not take
        if checks is not None:
            continue
        after.update({tool: max(k, after.get(tool, -1)) for tool, k in arm.items()})
    seen.update(after)
    return found


_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def run_inputs(tree: Root | Mapping[str, Any] | TreeShape, episode: NormEpisode) -> dict[str, Any]:
    """The episode's run inputs, plus a value for each synthesized input the tree reads: an
    argument that refs a key nothing in the tree produces and the episode was not given (the
    compiler's name for a varying argument no lineage explains) gets the recorded argument (an
    action after a selector counts calls along the route alternatives the run takes)."""
    shape = tree if isinstance(tree, TreeShape) else TreeShape.of(tree)
    inputs = dict(episode.inputs)
    nodes = shape.nodes
    arms = shape.arms
    path = _reached(nodes[0], _routes(nodes, episode, arms), arms) if nodes else None
    for key, value in _chosen_arguments(nodes, episode, arms, path=path).items():
        if key not in shape.produced and key not in inputs:
            inputs[key] = value
    return inputs


def _answer_events(node_id: str, values: dict[str, Any], at: int) -> list[dict[str, Any]]:
    if len(values) == 1:
        (value,) = values.values()
        text = value if isinstance(value, str) else json.dumps(value)
    else:
        text = json.dumps(values)
    request = {"kind": "model.requested", "event_id": f"decision-{at}", "payload": {
        "node_id": node_id, "kind": "predict"}}  # fmt: skip
    response = {"kind": "model.responded", "parent_event_id": f"decision-{at}", "payload": {
        "node_id": node_id, "kind": "predict", "raw_output": text}}  # fmt: skip
    return [request, response]
