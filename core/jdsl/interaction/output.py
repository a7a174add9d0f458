"""Output sinks: where a run submits its final result, answered by a receipt.

A receipt with status ``accepted`` only means the sink accepted the delivery, not that anybody
read it. Deliveries are validated before the sink is called; receipts after. Nothing is
deduplicated or retried.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from jdsl.errors import ToolError
from jdsl.interaction.results import ResultError, check_error, check_json

__all__ = [
    "Artifact",
    "Delivery",
    "InMemorySink",
    "OutputMessage",
    "OutputSink",
    "Receipt",
    "deliver",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class Artifact(_Frozen):
    """A produced file or document, by reference."""

    name: str = Field(min_length=1)
    uri: str = Field(min_length=1)
    media_type: str | None = None
    digest: str | None = None


class OutputMessage(_Frozen):
    """The final message: any JSON ``content`` (null, 0, false and "" are all allowed)."""

    role: Literal["system", "user", "assistant", "tool"] = "assistant"
    content: Any
    name: str | None = None


class Delivery(_Frozen):
    """One submission to a sink."""

    delivery_id: str = Field(min_length=1)
    message: OutputMessage
    artifacts: tuple[Artifact, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)


class Receipt(_Frozen):
    """The sink's answer. ``rejected`` and ``unknown`` carry an error."""

    delivery_id: str
    status: Literal["accepted", "rejected", "unknown"]
    receipt_id: str | None = None
    error: ResultError | None = None
    artifacts: tuple[Artifact, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)


@runtime_checkable
class OutputSink(Protocol):
    """Anything with ``deliver(delivery) -> Receipt``."""

    def deliver(self, delivery: Delivery) -> Receipt: ...


def deliver(sink: OutputSink, delivery: Delivery) -> Receipt:
    """Validate ``delivery``, hand it to ``sink`` once, validate and return the receipt.

    Raises:
        ToolError: code ``INVALID_OUTPUT`` (content or metadata not JSON) before the sink is
            called; ``INVALID_RECEIPT`` when the receipt's id differs, a rejected/unknown
            receipt has no error, or its error is unsafe. A sink's own exception propagates.
    """
    check_json(delivery.message.content, where="message.content", tool="output")
    check_json(delivery.metadata, where="metadata", tool="output")
    receipt = sink.deliver(delivery)
    if not isinstance(receipt, Receipt) or receipt.delivery_id != delivery.delivery_id:
        raise _bad_receipt(f"the receipt does not echo delivery id {delivery.delivery_id!r}")
    if receipt.status != "accepted" and receipt.error is None:
        raise _bad_receipt(f"a {receipt.status!r} receipt needs an error")
    if receipt.error is not None:
        check_error(receipt.error, tool="output")
    check_json(receipt.metadata, where="receipt.metadata", tool="output")
    return receipt


def _bad_receipt(problem: str) -> ToolError:
    return ToolError(f"invalid output receipt: {problem}", tool="output", code="INVALID_RECEIPT")


class InMemorySink:
    """An :class:`OutputSink` that keeps deliveries in a list and accepts each one.

    Attributes:
        deliveries: every accepted delivery, in order.
    """

    def __init__(self) -> None:
        self.deliveries: list[Delivery] = []

    def deliver(self, delivery: Delivery) -> Receipt:
        self.deliveries.append(delivery)
        return Receipt(
            delivery_id=delivery.delivery_id,
            status="accepted",
            receipt_id=f"memory-{len(self.deliveries)}",
        )
