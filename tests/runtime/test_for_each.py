"""for_each at run time: its input boundaries, passes, collect, tracing, provenance, check."""

from __future__ import annotations

from typing import Any

import pytest
from jdsl import ListTraceSink, Status, act, for_each, optional, ref, root, seq
from jdsl.errors import AuthoringError, ValidationError
from jdsl.trace import JsonlTraceSink, payload_problems
from jdsl.trace.reader import iter_events
from jdsl.tree import ForEach


def get_order(order_id: str) -> dict[str, Any]:
    return {"id": order_id, "status": "pending" if order_id.endswith("1") else "delivered"}


def loop(**fields: Any) -> Any:
    body = act(get_order, order_id=ref("order_id")) >> "order"
    return root("orders").do(
        for_each("order_id", "user.orders", body, collect="order", store="orders", **fields)
    )


def nothing(n: Any) -> None:
    return None


def fail_on_two(n: int) -> Any:
    return Status.FAILURE if n == 2 else n


def ids(n: int) -> list[str]:
    return [f"#W{i}" for i in range(n)]


# -- input boundaries: every bad input is a FAILURE with a reason, or a typed authoring error ---
@pytest.mark.parametrize(
    ("user", "reason"),
    [
        ({}, "items user.orders cannot be read: user has no .orders"),
        ({"orders": "#W1"}, "items user.orders is str '#W1', not a list"),
        ({"orders": {"a": 1}}, "items user.orders is dict"),
        ({"orders": None}, "items user.orders is NoneType None, not a list"),
        ({"orders": ids(4)}, "items user.orders has 4 elements, more than max=3"),
    ],
)
def test_bad_items_fail_with_a_reason_naming_the_path(user: dict, reason: str):
    ctx = loop(max=3).run(user=user)
    assert ctx.status is Status.FAILURE and ctx.error is None
    assert ctx.failure is not None and ctx.failure.node_id == "root/for_each.0"
    assert reason in ctx.failure.reason
    assert "order_id" not in ctx.blackboard and "orders" not in ctx.blackboard


def test_a_missing_root_key_is_a_failure_not_a_ref_error():
    ctx = loop().run(other=1)
    assert ctx.status is Status.FAILURE
    assert "items user.orders cannot be read" in ctx.failure.reason  # type: ignore[union-attr]


def test_exactly_max_elements_run():
    ctx = loop(max=3).run(user={"orders": ids(3)})
    assert ctx.status is Status.SUCCESS and len(ctx.blackboard["orders"]) == 3


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"item": ""}, AuthoringError, "item must be a blackboard name"),
        ({"item": None}, AuthoringError, "item must be"),
        ({"items": 3}, AuthoringError, "items must be a list path"),
        ({"item": "order id"}, ValidationError, "item must be a name such as order_id"),
        ({"item": "a.b"}, ValidationError, "item must be a name"),
        ({"items": "user..orders"}, ValidationError, "malformed path"),
        ({"collect": "order"}, ValidationError, "collect and store come together"),
        ({"store": "orders"}, ValidationError, "collect and store come together"),
        ({"max": 0}, ValidationError, "max"),
        ({"max": 1001}, ValidationError, "max"),
        ({"child": "act"}, AuthoringError, "child must be a node"),
    ],
)
def test_bad_authoring_raises_a_typed_error(kwargs: dict, error: type, match: str):
    arguments: dict[str, Any] = {"item": "o", "items": "xs", "child": act("f")} | kwargs
    with pytest.raises(error, match=match):
        for_each(**arguments)


# -- behaviour ------------------------------------------------------------------------------------
@pytest.mark.parametrize("count", [0, 1, 5])
def test_the_child_runs_once_per_element_in_order(count: int):
    calls: list[str] = []

    def get(order_id: str) -> str:
        calls.append(order_id)
        return order_id.lower()

    tree = root("r").do(
        for_each(
            "o", "user.orders", act(get, order_id=ref("o")) >> "got", collect="got", store="all"
        )  # fmt: skip
    )
    ctx = tree.run(user={"orders": ids(count)})
    assert ctx.status is Status.SUCCESS and ctx.failure is None
    assert calls == ids(count)
    assert ctx.blackboard["all"] == [i.lower() for i in ids(count)]
    assert ("o" in ctx.blackboard) is (count > 0)  # the item keeps the last element
    if count:
        assert ctx.blackboard["o"] == ids(count)[-1]


def test_without_collect_nothing_is_stored():
    tree = root("r").do(for_each("o", "xs", act(nothing, n=ref("o"))))
    ctx = tree.run(xs=[1, 2])
    assert ctx.status is Status.SUCCESS and set(ctx.blackboard) == {"xs", "o"}


def test_a_child_failure_stops_the_loop_with_that_failure():
    calls: list[int] = []

    def step(n: int) -> Any:
        calls.append(n)
        return Status.FAILURE if n == 2 else n

    tree = root("r").do(for_each("n", "ns", act(step, n=ref("n")) >> "m", collect="m", store="ms"))
    ctx = tree.run(ns=[1, 2, 3])
    assert ctx.status is Status.FAILURE and calls == [1, 2]
    assert ctx.failure is not None and ctx.failure.reason == "tool step returned Status.FAILURE"
    assert "ms" not in ctx.blackboard


def test_an_optional_child_lets_the_loop_go_on():
    tree = root("r").do(for_each("n", "ns", optional(act(fail_on_two, n=ref("n")))))
    assert tree.run(ns=[1, 2, 3]).status is Status.SUCCESS


def test_a_pass_that_leaves_nothing_to_collect_fails():
    tree = root("r").do(for_each("n", "ns", act(nothing, n=ref("n")), collect="m", store="ms"))
    ctx = tree.run(ns=[1])
    assert ctx.status is Status.FAILURE
    assert "pass 0 left no m to collect" in ctx.failure.reason  # type: ignore[union-attr]


def test_collect_may_read_a_path():
    tree = root("r").do(
        for_each(
            "o",
            "orders",
            act(get_order, order_id=ref("o")) >> "order",
            collect="order.status",
            store="statuses",
        )  # fmt: skip
    )
    ctx = tree.run(orders=["#W1", "#W2"])
    assert ctx.blackboard["statuses"] == ["pending", "delivered"]


def test_items_may_index_with_a_blackboard_value_and_loops_nest():
    inner = for_each("o", "u.orders", act(get_order, order_id=ref("o")) >> "order",
                     collect="order", store="orders")  # fmt: skip
    outer = for_each("u", "users", inner, collect="orders", store="per_user")
    ctx = root("r").do(outer).run(users=[{"orders": ["#W1"]}, {"orders": ["#W2", "#W3"]}])
    assert [[o["id"] for o in orders] for orders in ctx.blackboard["per_user"]] == [
        ["#W1"], ["#W2", "#W3"]]  # fmt: skip
    picked = root("r").do(for_each("o", "users[$i].orders", act(get_order, order_id=ref("o"))))
    assert picked.run(users=[{"orders": []}, {"orders": ["#W9"]}], i=1).blackboard["o"] == "#W9"


def test_a_tuple_is_a_list():
    assert loop().run(user={"orders": ("#W1",)}).status is Status.SUCCESS


# -- provenance and tracing -----------------------------------------------------------------------
def test_the_item_write_names_the_loop_and_the_element_it_came_from():
    ctx = loop().run(user={"orders": ids(2)})
    writes = [w for w in ctx.blackboard.writes() if w.key == "order_id"]
    assert [(w.writer_id, w.source, w.index, w.value) for w in writes] == [
        ("root/for_each.0", "user.orders[0]", 0, "#W0"),
        ("root/for_each.0", "user.orders[1]", 1, "#W1"),
    ]
    assert writes[0].writer_label == "for_each order_id in user.orders collect=order -> orders"
    assert ctx.blackboard.who_wrote("orders") == "root/for_each.0"
    reads = [r.path for r in ctx.blackboard.reads() if r.reader_id == "root/for_each.0"]
    assert reads == ["user.orders", "order", "order"]


def test_each_pass_is_a_traced_write_with_its_index():
    sink = ListTraceSink()
    loop().run(trace_sink=sink, user={"orders": ids(3)})
    assert payload_problems(sink.events) == []
    kinds = [(e.kind, e.payload.get("key") or e.payload.get("label")) for e in sink.events
             if e.kind in ("node.enter", "blackboard.write")]  # fmt: skip
    loop_label = "for_each order_id in user.orders collect=order -> orders"
    assert kinds[1] == ("node.enter", loop_label) and kinds[-1] == ("blackboard.write", "orders")
    passes = [e.payload for e in sink.events
              if e.kind == "blackboard.write" and e.payload["key"] == "order_id"]  # fmt: skip
    assert [(p["index"], p["source"], p["value"]) for p in passes] == [
        (i, f"user.orders[{i}]", f"#W{i}") for i in range(3)]  # fmt: skip
    other = [e.payload for e in sink.events
             if e.kind == "blackboard.write" and e.payload["key"] != "order_id"]  # fmt: skip
    assert all("source" not in p for p in other)
    exits = [e.payload["status"] for e in sink.events
             if e.kind == "node.exit" and e.payload["type"] == "for_each"]  # fmt: skip
    assert exits == ["success"]


def test_a_traced_run_round_trips_through_a_jsonl_file(tmp_path):
    path = tmp_path / "trace.jsonl"
    sink = ListTraceSink()
    with JsonlTraceSink(path) as file_sink:
        loop().run(trace_sink=file_sink, episode_id="ep1", user={"orders": ids(2)})
    loop().run(trace_sink=sink, episode_id="ep1", user={"orders": ids(2)})
    read = [(e.kind, e.payload) for e in iter_events(path)]
    made = [(e.kind, e.payload) for e in sink.events]
    assert [k for k, _ in read] == [k for k, _ in made]
    strip = ("ir",)
    assert [{k: v for k, v in p.items() if k not in strip} for _, p in read] == [
        {k: v for k, v in p.items() if k not in strip} for _, p in made]  # fmt: skip
    started = read[0][1]["ir"]["child"]
    assert started["kind"] == "for_each" and started["item"] == "order_id"


def test_an_untraced_and_a_traced_run_agree():
    untraced = loop().run(user={"orders": ids(5)})
    traced = loop().run(trace_sink=ListTraceSink(), user={"orders": ids(5)})
    assert untraced.blackboard == traced.blackboard


# -- static check ---------------------------------------------------------------------------------
def test_the_item_and_the_store_count_as_written_by_the_loop():
    tree = root("r").do(
        seq(
            act("lookup", name=ref("name")) >> "user",
            for_each(
                "o", "user.orders", act("get", order_id=ref("o")) >> "d", collect="d", store="ds"
            ),  # fmt: skip
            act("summarize", all=ref("ds"), last=ref("o")),
        )
    )
    report = tree.check()
    assert [p for p in report.problems if p.code == "read-before-write"] == []
    assert report.inputs == ("name",)


def test_an_items_path_read_before_its_writer_is_reported():
    tree = root("r").do(seq(for_each("o", "later.xs", act("f", a=ref("o"))), act("w") >> "later"))
    found = [p for p in tree.check().problems if p.code == "read-before-write"]
    assert [(p.node_id, p.message) for p in found] == [
        (
            "root/sequence.0/for_each.0",
            "for_each o in later.xs reads later before any node writes it",
        )
    ]


def test_an_unwritten_items_key_is_a_run_input():
    assert root("r").do(for_each("o", "xs", act("f", a=ref("o")))).check().inputs == ("xs",)


def test_the_node_class_is_exported():
    assert isinstance(loop().child, ForEach)


@pytest.mark.parametrize(
    ("items", "board", "sources"),
    [
        ("xs", {"xs": [5, 6]}, ["xs[0]", "xs[1]"]),
        ("u.orders", {"u": {"orders": ["a"]}}, ["u.orders[0]"]),
        (
            "users[$u].orders",
            {"users": [{"orders": []}, {"orders": ["a", "b"]}], "u": 1},
            ["users[1].orders[0]", "users[1].orders[1]"],
        ),
        ("rows[*].id", {"rows": [{"id": 1}, {"id": 2}]}, ["rows[0].id", "rows[1].id"]),
        (
            "rows[$pick].id",
            {"rows": [{"id": 1}, {"id": 2}, {"id": 3}], "pick": [2, 0]},
            ["rows[2].id", "rows[0].id"],
        ),
        ("by[$k]", {"by": {"a.b": [7]}, "k": "a.b"}, ['by["a.b"][0]']),
        ("grid[*][*]", {"grid": [[1], [2, 3]]}, ["grid[0][*]", "grid[1][*]"]),
        ("a.b", {"a.b": [1]}, ["a.b[0]"]),  # the exact key
    ],
)
def test_the_source_of_each_item_resolves_to_that_element(items: str, board: dict, sources: list):
    from jdsl.expr import resolve_path

    tree = root("r").do(for_each("e", items, act(nothing, n=ref("e"))))
    ctx = tree.run(**board)
    assert ctx.status is Status.SUCCESS, ctx.failure
    writes = [w for w in ctx.blackboard.writes() if w.key == "e"]
    assert [w.source for w in writes] == sources
    for write in writes:
        if write.source != "a.b[0]":
            assert resolve_path(write.source, board) == write.value


def test_the_list_and_the_sources_are_those_read_before_the_first_pass():
    def move(n: int) -> int:
        return 0  # the child rewrites the index the items path reads

    tree = root("r").do(for_each("e", "rows[$i]", act(move, n=ref("e")) >> "i"))
    ctx = tree.run(rows=[[9], [7, 8]], i=1)
    writes = [w for w in ctx.blackboard.writes() if w.key == "e"]
    assert [(w.value, w.source) for w in writes] == [(7, "rows[1][0]"), (8, "rows[1][1]")]


@pytest.mark.parametrize(
    ("user", "fix"),
    [
        ({}, "seed user.orders as a list"),
        ({"orders": "#W1"}, "make user.orders a list"),
        ({"orders": ids(4)}, "raise max="),
    ],
)
def test_a_bad_items_reason_also_says_how_to_fix_it(user: dict, fix: str):
    ctx = loop(max=3).run(user=user)
    assert ctx.failure is not None and fix in ctx.failure.reason, ctx.failure
