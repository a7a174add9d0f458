"""Route decisions and the answers of predict leaves are found on the path the run took.

Found on the retail corpora of :mod:`jdsl.demo.retail_styles`: a selector after one product
read, whose first alternative reads a *second* product, was routed there because the run had
made its first read of that tool before the selector (the route was unreplayable); and a leaf
of the taken alternative whose prompt equals a leaf's of another alternative was answered with
that other alternative's route answer (``'get_user_details' is not a valid int``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jdsl.compiler import execute, normalize_all

sys.path.insert(0, str(Path(__file__).parent))
from events import EpisodeBuilder  # noqa: E402


def _flow(*children: dict[str, Any]) -> dict[str, Any]:
    return {"format": "jdsl.behavior.v1", "root": {"kind": "root", "name": "t", "child": {
        "kind": "sequence", "id": "flow", "children": list(children)}}}  # fmt: skip


def _arm(route: str, *children: dict[str, Any], key: str = "route", at: str = "") -> dict[str, Any]:
    return {"kind": "sequence", "id": f"arm_{route}{at}", "children": [
        {"kind": "check", "id": f"when_{route}{at}", "key": key, "equals": route}, *children]}  # fmt: skip


def _route(key: str, *values: str) -> dict[str, Any]:
    choices = ", ".join(f'"{v}"' for v in values)
    return {"kind": "predict", "id": f"choose_{key}", "signature": f"request -> {key}: "
            f"Literal[{choices}]"}  # fmt: skip


FIND = {"kind": "action", "id": "find", "tool": "find", "args": {"q": {"ref": "q"}},
        "store": "hit"}  # fmt: skip
UPDATE = {"kind": "action", "id": "update", "tool": "update",
          "args": {"item": {"ref": "hit.id"}}, "store": "out"}  # fmt: skip


def test_an_alternative_starting_with_a_tool_already_called_is_routed_by_the_next_call() -> None:
    b = EpisodeBuilder("e", inputs={"q": "abc", "request": "update it"})
    b.call("find", {"id": "X12"}, store="hit", q="abc")
    b.call("update", "ok", store="out", item="X12")
    episode = normalize_all([b.done(True)])[0]
    again = _arm("again", {"kind": "predict", "id": "choose_q", "signature": "request -> q_2"},
                 {**FIND, "id": "find_again", "args": {"q": {"ref": "q_2"}}, "store": "hit_2"},
                 {**UPDATE, "id": "update_a"})  # fmt: skip
    tree = _flow(FIND, _route("route", "again", "update"), {"kind": "selector", "id": "branch",
                 "children": [again, _arm("update", {**UPDATE, "id": "update_b"})]})  # fmt: skip
    run = execute(tree, episode)
    assert run.matched, run.divergence


def test_a_leaf_is_never_answered_with_a_decision_of_an_alternative_the_run_did_not_take() -> None:
    b = EpisodeBuilder("e", inputs={"request": "the second"})
    b.call("list", [{"id": "A1"}, {"id": "B2"}], store="items")
    b.call("update", "ok", store="out", item="B2", note="hi")
    episode = normalize_all([b.done(True)])[0]
    pick = {"kind": "predict", "signature": "request, items -> index: int"}
    use = {"kind": "action", "tool": "update", "store": "out",
           "args": {"item": {"ref": "items[$index].id"}}}  # fmt: skip
    taken_not = _arm("a", {"kind": "action", "id": "audit", "tool": "audit", "store": "log"},
                     _route("route_2", "x"), {"kind": "selector", "id": "inner", "children": [
                         _arm("x", {**pick, "id": "pick_a"}, {**use, "id": "use_a"}, key="route_2")]})  # fmt: skip
    taken = _arm("b", {**pick, "id": "pick_b"},
                 {**use, "id": "use_b", "args": {**use["args"], "note": {"const": "hi"}}})  # fmt: skip
    tree = _flow({"kind": "action", "id": "list", "tool": "list", "store": "items"},
                 _route("route", "a", "b"),
                 {"kind": "selector", "id": "branch", "children": [taken_not, taken]})  # fmt: skip
    run = execute(tree, episode)
    assert run.matched, (run.divergence, run.fallback)


def test_a_position_is_answered_by_the_element_the_write_acted_on_not_the_first_read() -> None:
    """A scan (``get_order`` of A, then B) before a write on B: the leaf choosing which order
    to read before the write answers B's position (retail ``small``/``terse``: a held-out
    scan run was replayed cancelling the first order it had read)."""
    b = EpisodeBuilder("e", inputs={"request": "cancel the lamp order"})
    b.call("get_user", {"orders": ["#A1", "#B2", "#C3"]}, store="user")
    b.call("get_order", {"order_id": "#A1", "item": "desk"}, store="order", order_id="#A1")
    b.call("get_order", {"order_id": "#B2", "item": "lamp"}, store="order", order_id="#B2")
    b.call("cancel_order", "ok", store="out", order_id="#B2")
    episode = normalize_all([b.done(True)])[0]
    tree = _flow(
        {"kind": "action", "id": "user", "tool": "get_user", "store": "user"},
        {"kind": "predict", "id": "pick", "signature": "request, user -> order_index: int"},
        {"kind": "action", "id": "read", "tool": "get_order", "store": "order",
         "args": {"order_id": {"ref": "user.orders[$order_index]"}}},
        {"kind": "action", "id": "cancel", "tool": "cancel_order", "store": "out",
         "args": {"order_id": {"ref": "order.order_id"}}},
    )  # fmt: skip
    run = execute(tree, episode)
    assert run.matched, (run.divergence, run.fallback)


def test_a_position_is_answered_from_the_alternative_the_run_took() -> None:
    """Two alternatives name their position ``order_index``; the run took the first (retail
    ``small`` exchange: the email arm's first scanned read set the name + zip arm's order)."""
    b = EpisodeBuilder("e", inputs={"request": "cancel the lamp order"})
    b.call("get_user", {"orders": ["#A1", "#B2", "#C3"]}, store="user")
    b.call("get_note", "lamp", store="note")
    b.call("get_order", {"order_id": "#A1", "item": "desk"}, store="order", order_id="#A1")
    b.call("cancel_order", "ok", store="out", order_id="#B2")
    episode = normalize_all([b.done(True)])[0]
    pick = {"kind": "predict", "signature": "request, user -> order_index: int"}
    read = {"kind": "action", "tool": "get_order", "args": {"order_id": {"ref":
            "user.orders[$order_index]"}}}  # fmt: skip
    taken = _arm("b", {"kind": "action", "id": "note", "tool": "get_note", "store": "note"},
                 {**pick, "id": "pick_b"}, {"kind": "action", "id": "cancel_b", "tool":
                 "cancel_order", "args": {"order_id": {"ref": "user.orders[$order_index]"}}})  # fmt: skip
    other = _arm("a", {**pick, "id": "pick_a"}, {**read, "id": "read_a", "store": "order"},
                 {"kind": "predict", "id": "pick_2", "signature": "request, user -> second: int"},
                 {**read, "id": "read_2", "store": "order_2",
                  "args": {"order_id": {"ref": "user.orders[$second]"}}},
                 {"kind": "action", "id": "cancel_a", "tool": "cancel_order",
                  "args": {"order_id": {"ref": "order_2.order_id"}}})  # fmt: skip
    tree = _flow({"kind": "action", "id": "user", "tool": "get_user", "store": "user"},
                 _route("route", "b", "a"),
                 {"kind": "selector", "id": "branch", "children": [taken, other]})  # fmt: skip
    run = execute(tree, episode)
    assert run.matched, (run.divergence, run.fallback)


def test_a_nested_route_is_decided_inside_the_alternative_the_run_took() -> None:
    """Two alternatives each hold a selector on ``route_2`` (retail ``direct`` modify at 20
    tasks a family: the untaken arm's ``route_2`` answered the taken arm's)."""
    b = EpisodeBuilder("e", inputs={"q": "abc", "request": "update it"})
    b.call("find", {"id": "X12"}, store="hit", q="abc")
    b.call("update", "ok", store="out", item="X12")
    episode = normalize_all([b.done(True)])[0]
    audit = {"kind": "action", "tool": "audit", "store": "log"}

    def inner(first: str, second: str, suffix: str) -> dict[str, Any]:
        return {"kind": "selector", "id": f"inner_{suffix}", "children": [
            _arm(first, {**UPDATE, "id": f"update_{suffix}"}, key="route_2", at=suffix),
            _arm(second, {**audit, "id": f"audit_in_{suffix}"}, {**UPDATE, "id": f"u2_{suffix}"},
                 key="route_2", at=suffix)]}  # fmt: skip

    not_taken = _arm("a", {**audit, "id": "audit_a"}, {**_route("route_2", "p", "q"),
                     "id": "r2_a"}, inner("p", "q", "a"))  # fmt: skip
    taken = _arm("b", {**_route("route_2", "q", "r"), "id": "r2_b"}, inner("q", "r", "b"))
    tree = _flow(FIND, _route("route", "a", "b"),
                 {"kind": "selector", "id": "branch", "children": [not_taken, taken]})  # fmt: skip
    run = execute(tree, episode)
    assert run.matched, (run.divergence, run.fallback)


def test_a_shared_prompt_is_never_answered_with_an_unrun_arms_decision() -> None:
    b = EpisodeBuilder("e", inputs={"q": "abc", "request": "the second"})
    b.call("find", {"items": [{"id": "A100"}, {"id": "B200"}]}, store="hit", q="abc")
    b.call("find", "more", store="hit_2", q="x1")
    b.call("update", "ok", store="out", item="B200")
    episode = normalize_all([b.done(True)])[0]

    def leaf(node_id: str, output: str, text: str, inputs: str = "request") -> dict[str, Any]:
        return {"kind": "predict", "id": node_id, "signature": f"{inputs} -> {output}",
                "instructions": text}  # fmt: skip

    pick = ("index: int", "Choose the index.", "request, hit")
    tree = _flow(FIND, {"kind": "selector", "id": "plain", "children": [
        {"kind": "sequence", "id": "x", "children": [
            leaf("p1", "pid", "Produce the pid."),
            {**FIND, "id": "find_x", "args": {"q": {"ref": "pid"}}, "store": "hit_2"}]},
        {"kind": "sequence", "id": "y", "children": [
            leaf("p2", "pid_2", "Produce the second pid."),
            {**FIND, "id": "find_y", "args": {"q": {"ref": "pid_2"}}, "store": "hit_2"},
            leaf("c2", *pick)]}]},
        leaf("c1", *pick),
        {"kind": "action", "id": "use", "tool": "update", "store": "out",
         "args": {"item": {"ref": "hit.items[$index].id"}}})  # fmt: skip
    run = execute(tree, episode)
    assert run.matched, (run.divergence, run.fallback)
