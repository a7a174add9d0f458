"""observe(): turn a ToolResult into the tool message a model reads (reference ditto §4).

Pure and deterministic. A failure is never turned into a success; nothing is retried.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from jdsl.interaction.results import Reference, ResultError, ResultStatus, ToolResult
from jdsl.providers.messages import Message
from jdsl.trace.events import canonical_json

__all__ = ["Observation", "observe", "observation_text"]


class Observation(BaseModel):
    """A normalized tool result.

    Attributes:
        call_id: the call answered.
        source: the tool (``name`` or ``server:tool``).
        status: the result status, unchanged.
        message: ``role="tool"`` message: ``name = source``, ``tool_call_id = call_id``,
            ``is_error`` for any non-success, ``content`` from :func:`observation_text`.
        structured_content, references, error, metadata: copied from the result.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    call_id: str
    source: str
    status: ResultStatus
    message: Message
    structured_content: Any = None
    references: tuple[Reference, ...] = ()
    error: ResultError | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


def observation_text(result: ToolResult) -> str:
    """The text a model reads for ``result``.

    Parts, joined by newlines: ``"<status>: <code>: <message>"`` for a non-success; the content
    (a string as is, anything else as canonical JSON); the structured content as JSON, only
    when there is no content (MCP servers and the command tools put the same data in both, and
    the model need not read it twice; programs read ``Observation.structured_content``); one
    ``reference: <uri>`` line per reference.
    """
    parts: list[str] = []
    if not result.ok and result.error is not None:
        parts.append(f"{result.status}: {result.error.code}: {result.error.message}")
    if isinstance(result.content, str):
        if result.content or not parts:
            parts.append(result.content)
    elif result.content is not None:
        parts.append(canonical_json(result.content))
    if result.structured_content is not None and result.content in (None, ""):
        parts.append(canonical_json(result.structured_content))
    parts.extend(f"reference: {ref.uri}" for ref in result.references)
    return "\n".join(parts)


def observe(result: ToolResult) -> Observation:
    """Normalize ``result`` (which must carry ``call_id`` and ``source``) into an Observation.

    Raises:
        ValueError: the result has no ``call_id`` or ``source`` (it did not come from a
            registry).
    """
    if not result.call_id or not result.source:
        raise ValueError("observe() needs a result with call_id and source set by a registry")
    message = Message(
        role="tool",
        content=observation_text(result),
        tool_call_id=result.call_id,
        name=result.source,
        is_error=not result.ok,
    )
    return Observation(
        call_id=result.call_id,
        source=result.source,
        status=result.status,
        message=message,
        structured_content=result.structured_content,
        references=result.references,
        error=result.error,
        metadata=dict(result.metadata),
    )
