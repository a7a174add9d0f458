"""Fixtures for the notebook layer: a contract-shaped retail run as event dicts."""

from __future__ import annotations

from typing import Any

import pytest

CANCEL_IR: dict[str, Any] = {
    "kind": "root",
    "name": "cancel_order",
    "child": {
        "kind": "sequence",
        "children": [
            {
                "kind": "action",
                "tool": "lookup",
                "args": {"email": {"ref": "email"}},
                "store": "customer",
            },
            {
                "kind": "action",
                "tool": "list_orders",
                "args": {"customer_id": {"ref": "customer.id"}},
                "store": "orders",
            },
            {
                "kind": "predict",
                "signature": "request, orders -> selected_index: int",
                "id": "resolve_target",
                "instructions": "Pick the order.",
            },
            {
                "kind": "selector",
                "children": [
                    {
                        "kind": "sequence",
                        "children": [
                            {
                                "kind": "guard",
                                "expression": {
                                    "eq": [
                                        {"ref": "orders[$selected_index].status"},
                                        {"const": "pending"},
                                    ]
                                },
                            },
                            {
                                "kind": "action",
                                "tool": "cancel",
                                "args": {
                                    "order_id": {"ref": "orders[$selected_index].id"},
                                    "reason": {"const": "no longer needed"},
                                },
                                "store": "receipt",
                            },
                        ],
                    },
                    {"kind": "action", "tool": "escalate", "args": {"summary": {"ref": "request"}}},
                ],
            },
        ],
    },
}

SEQ = "root/sequence.0"
LOOKUP, LIST, PREDICT = f"{SEQ}/action.0", f"{SEQ}/action.1", "resolve_target"
SEL = f"{SEQ}/selector.3"
BRANCH = f"{SEL}/sequence.0"
GUARD, CANCEL = f"{BRANCH}/guard.0", f"{BRANCH}/action.1"
ORDERS = [
    {"id": "#W1", "status": "delivered"},
    {"id": "#W2", "status": "pending", "note": "x" * 500},
]


class Recorder:
    """Builds events the way the runtime emits them (docs/ARCHITECTURE.md)."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def emit(
        self, event_kind: str, actor: str = "system", parent: str | None = None, **payload: Any
    ) -> str:
        event_id = f"e{len(self.events)}"
        self.events.append(
            {
                "kind": event_kind,
                "sequence": len(self.events),
                "episode_id": "ep1",
                "capture_id": "cap",
                "event_id": event_id,
                "actor": actor,
                "parent_event_id": parent,
                "payload": payload,
            }
        )
        return event_id

    def node(self, node_id: str, kind: str, body: Any = None, status: str = "success") -> None:
        enter = self.emit("node.enter", node_id=node_id, type=kind, label=kind)
        if body:
            body()
        self.emit("node.exit", parent=enter, node_id=node_id, type=kind, label=kind, status=status)

    def tool(
        self,
        node_id: str,
        tool: str,
        store: str,
        reads: dict[str, Any],
        arguments: dict[str, Any],
        result: Any,
        previous: Any = None,
    ) -> None:
        for path, value in reads.items():
            self.emit("blackboard.read", path=path, reader=node_id, value=value)
        started = self.emit(
            "tool.call.started",
            "model",
            node_id=node_id,
            store=store,
            tool={"host_name": tool, "logical_id": None},
            arguments=arguments,
        )
        self.emit(
            "tool.call.completed",
            "tool",
            started,
            node_id=node_id,
            store=store,
            tool={"host_name": tool, "logical_id": None},
            result=result,
        )
        self.emit(
            "blackboard.write",
            key=store,
            value=result,
            writer=node_id,
            writer_label=tool,
            overwrote=False,
            previous=previous,
        )


def retail_events() -> list[dict[str, Any]]:
    """One successful cancel_order run."""
    r = Recorder()
    inputs = {"email": "ann@example.com", "request": "cancel the pending one"}
    r.emit("episode.started", skill="cancel_order", inputs=inputs, ir=CANCEL_IR, model_id="m")

    def predict() -> None:
        r.emit("blackboard.read", path="request", reader=PREDICT, value=inputs["request"])
        r.emit("blackboard.read", path="orders", reader=PREDICT, value=ORDERS)
        asked = r.emit(
            "model.requested",
            "model",
            node_id=PREDICT,
            kind="predict",
            prompt="Pick the order. " + "p" * 400,
            model_id="m",
            system="",
            messages=[],
        )
        r.emit(
            "model.responded",
            "model",
            asked,
            node_id=PREDICT,
            kind="predict",
            raw_output="1",
            parsed_output={"selected_index": 1},
            status="success",
        )
        r.emit(
            "blackboard.write",
            key="selected_index",
            value=1,
            writer=PREDICT,
            writer_label="predict",
            overwrote=False,
            previous=None,
        )

    def branch() -> None:
        r.node(
            GUARD,
            "guard",
            lambda: r.emit("guard.evaluated", node_id=GUARD, type="guard", result=True, values={}),
        )
        r.node(
            CANCEL,
            "action",
            lambda: r.tool(
                CANCEL,
                "cancel",
                "receipt",
                {"orders[$selected_index].id": "#W2"},
                {"order_id": "#W2", "reason": "no longer needed"},
                {"ok": True},
            ),
        )

    def seq() -> None:
        r.node(
            LOOKUP,
            "action",
            lambda: r.tool(
                LOOKUP,
                "lookup",
                "customer",
                {"email": inputs["email"]},
                {"email": inputs["email"]},
                {"id": "C7"},
            ),
        )
        r.node(
            LIST,
            "action",
            lambda: r.tool(
                LIST, "list_orders", "orders", {"customer.id": "C7"}, {"customer_id": "C7"}, ORDERS
            ),
        )
        r.node(PREDICT, "predict", predict)
        r.node(SEL, "selector", lambda: r.node(BRANCH, "sequence", branch))

    r.node("root", "root", lambda: r.node(SEQ, "sequence", seq))
    r.emit(
        "episode.finished",
        skill="cancel_order",
        status="success",
        error_type=None,
        error_message=None,
    )
    return r.events


def big_events(count: int = 10_000) -> list[dict[str, Any]]:
    """A long run: a loop that writes a 2 KB value and calls a tool, ``count`` events in all."""
    r = Recorder()
    r.emit("episode.started", skill="loop", inputs={"q": "go"}, ir=CANCEL_IR, model_id="m")
    i = 0
    while len(r.events) < count - 1:
        r.node(
            LOOKUP,
            "action",
            lambda i=i: r.tool(
                LOOKUP,
                "lookup",
                "customer",
                {"email": "q"},
                {"email": f"user{i}@x.org"},
                {"id": f"C{i}", "blob": "y" * 2000},
            ),
        )
        i += 1
    r.emit("episode.finished", skill="loop", status="success", error_type=None, error_message=None)
    return r.events


@pytest.fixture(scope="session")
def ip():
    """IPython's test shell (one per process: ``globalipapp`` starts it once) with jdsl_nb."""
    from IPython.testing.globalipapp import get_ipython

    shell = get_ipython()
    shell.run_line_magic("load_ext", "jdsl_nb")
    return shell


@pytest.fixture
def run_events() -> list[dict[str, Any]]:
    return retail_events()


@pytest.fixture
def cancel_ir() -> dict[str, Any]:
    return CANCEL_IR


@pytest.fixture
def big_run_events() -> list[dict[str, Any]]:
    return big_events(10_000)
