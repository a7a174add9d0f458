from __future__ import annotations

from typing import Any

import pytest
from jdsl.errors import ToolError
from jdsl.interaction import (
    Artifact,
    Delivery,
    InMemorySink,
    OutputMessage,
    Receipt,
    ResultError,
    deliver,
)
from pydantic import ValidationError


def delivery(content: Any = "final answer", **kw: Any) -> Delivery:
    return Delivery(delivery_id="d1", message=OutputMessage(content=content), **kw)


@pytest.mark.parametrize("content", [None, 0, False, "", {"a": [1]}])
def test_any_json_content_is_delivered_with_a_receipt(content: Any) -> None:
    sink = InMemorySink()
    receipt = deliver(sink, delivery(content))
    assert (receipt.status, receipt.delivery_id, receipt.receipt_id) == (
        "accepted",
        "d1",
        "memory-1",
    )
    assert sink.deliveries[0].message.content == content


@pytest.mark.parametrize(
    "build",
    [
        lambda: Delivery(delivery_id="", message=OutputMessage(content="x")),
        lambda: OutputMessage(role="robot", content="x"),
        lambda: OutputMessage(content="x", name=3),
        lambda: Artifact(name="", uri="file:a"),
        lambda: Artifact(name="a", uri=""),
    ],
)
def test_invalid_deliveries_never_reach_a_sink(build: Any) -> None:
    with pytest.raises(ValidationError):
        build()


def test_non_json_content_is_refused_before_the_sink() -> None:
    sink = InMemorySink()
    with pytest.raises(ToolError):
        deliver(sink, delivery({"x": float("nan")}))
    assert sink.deliveries == []


class Answering:
    def __init__(self, receipt: Receipt) -> None:
        self.receipt = receipt

    def deliver(self, delivery: Delivery) -> Receipt:
        return self.receipt


@pytest.mark.parametrize(
    "receipt",
    [
        Receipt(delivery_id="other", status="accepted"),
        Receipt(delivery_id="d1", status="unknown"),
        Receipt(delivery_id="d1", status="rejected"),
        Receipt(
            delivery_id="d1", status="rejected", error=ResultError(code="X", message="at /var/x")
        ),
    ],
)
def test_bad_receipts_raise(receipt: Receipt) -> None:
    with pytest.raises(ToolError) as exc:
        deliver(Answering(receipt), delivery())
    assert exc.value.code in {"INVALID_RECEIPT", "UNSAFE_ERROR"}


def test_rejected_receipt_with_safe_error_is_returned() -> None:
    receipt = Receipt(
        delivery_id="d1", status="rejected", error=ResultError(code="FULL", message="queue full")
    )
    assert deliver(Answering(receipt), delivery()).status == "rejected"
