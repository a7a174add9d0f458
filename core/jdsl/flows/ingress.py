"""Three predefined flows that bring outside information into a WorkingContext.

* :func:`tool_call_flow`: tool call -> observe -> context update (one ingress item).
* :func:`mcp_flow`: ``discover`` returns capabilities and leaves the context unchanged;
  ``invoke`` is MCP call -> observe -> context update.
* :func:`skill_flow`: load already-resolved skill sources -> context update.

They are plain functions over a :class:`Services`, not tree nodes. Business failures (a
``failed`` result) still enter the context, so a later step can see them; infrastructure
errors (permission, unknown tool, invalid arguments or result) raise.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from jdsl.errors import BindingError, ToolError
from jdsl.flows.context import ContextItem, IdentifiedText, Provenance, WorkingContext
from jdsl.flows.services import Services
from jdsl.interaction.mcp import McpCapability
from jdsl.interaction.observe import Observation, observe
from jdsl.interaction.sandbox import Sandbox
from jdsl.providers.messages import ToolCall
from jdsl.trace.events import canonical_json

__all__ = [
    "FlowResult",
    "McpRequest",
    "SkillSource",
    "ingress_item",
    "load_skill",
    "mcp_flow",
    "skill_flow",
    "tool_call_flow",
]


@dataclasses.dataclass(frozen=True)
class FlowResult:
    """What a flow returns: the (possibly new) context, and what it observed or discovered."""

    context: WorkingContext
    observation: Observation | None = None
    capabilities: tuple[McpCapability, ...] = ()


class McpRequest(BaseModel):
    """An MCP flow request: ``discover`` (optionally one server) or ``invoke`` one call."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    operation: Literal["discover", "invoke"]
    server: str | None = None
    call: ToolCall | None = None


class SkillSource(IdentifiedText):
    """A resolved skill: its id and its text (jdsl does not download or run skills)."""

    metadata: dict[str, Any] = Field(default_factory=dict)


def ingress_item(observation: Observation, *, flow: str) -> ContextItem:
    """The context item for ``observation``.

    Its id is ``"observation:" + sha256(canonical JSON of [call_id, observation])``, so the
    same observation always gets the same id.
    """
    payload = canonical_json([observation.call_id, observation.model_dump(mode="json")])
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()
    return ContextItem(
        id=f"observation:{digest}",
        content=observation.message.content,
        provenance=Provenance(
            kind="observation", source=observation.source, call_id=observation.call_id, flow=flow
        ),
        metadata={
            "call_id": observation.call_id,
            "source": observation.source,
            "status": observation.status,
            "message_role": observation.message.role,
            "message_name": observation.message.name,
            "error_code": observation.error.code if observation.error else None,
            "references": [ref.uri for ref in observation.references],
        },
    )


def tool_call_flow(
    services: Services,
    call: ToolCall,
    *,
    context: WorkingContext | None = None,
    cancel: object | None = None,
) -> FlowResult:
    """Call a registered tool, observe the result and add it to ``context``.

    Raises:
        ToolError, PermissionDenied: as :meth:`ToolRegistry.call`; the context is unchanged.
    """
    with services.slot():
        result = services.tools.call(call, cancel=cancel)
    observation = observe(result)
    base = context if context is not None else WorkingContext()
    return FlowResult(
        base.update(add=[ingress_item(observation, flow="tool_call_flow")]), observation
    )


def mcp_flow(
    services: Services,
    request: McpRequest | Mapping[str, Any],
    *,
    context: WorkingContext | None = None,
) -> FlowResult:
    """Discover MCP tools, or invoke one and add its observation to ``context``.

    ``discover`` returns the capabilities and the very same ``context`` object.

    Raises:
        BindingError: the services have no MCP registry.
        ToolError: ``INVALID_MCP_REQUEST`` for a request that does not validate, an
            ``invoke`` without a server or a call, or a call with no ``arguments`` object (the
            seed: a missing arguments object is rejected, not read as ``{}``); otherwise as
            :class:`McpRegistry`.
        PermissionDenied: as :class:`McpRegistry`.
    """
    req = _mcp_request(request)
    if services.mcp is None:
        raise BindingError(
            "these Services have no MCP registry; pass Services(mcp=...)", kind="mcp"
        )
    base = context if context is not None else WorkingContext()
    if req.operation == "discover":
        return FlowResult(base, capabilities=tuple(services.mcp.discover(req.server)))
    if req.server is None or req.call is None:
        raise ToolError("an MCP invoke needs a server and a call", code="INVALID_MCP_REQUEST")
    with services.slot():
        result = services.mcp.invoke(
            req.server, req.call.name, req.call.arguments, call_id=req.call.id
        )
    observation = observe(result)
    return FlowResult(base.update(add=[ingress_item(observation, flow="mcp_flow")]), observation)


def _mcp_request(request: McpRequest | Mapping[str, Any]) -> McpRequest:
    if isinstance(request, McpRequest):
        return request
    call = request.get("call") if isinstance(request, Mapping) else None
    if isinstance(call, Mapping) and "arguments" not in call:
        raise ToolError(
            "an MCP invoke call needs an 'arguments' JSON object (pass {} for none)",
            tool=str(call.get("name", "")),
            code="INVALID_MCP_REQUEST",
        )
    try:
        return McpRequest.model_validate(request)
    except PydanticValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "request"
        raise ToolError(
            f"invalid MCP request: {where}: {first['msg']}", code="INVALID_MCP_REQUEST"
        ) from None


def load_skill(sandbox: Sandbox, skill_id: str, path: str) -> SkillSource:
    """Read a skill's text from the workspace; needs the ``skill`` and ``file.read`` grants.

    Raises:
        PermissionDenied: either grant is missing, or ``path`` leaves the workspace.
    """
    sandbox.check("skill", skill_id)
    return SkillSource(id=skill_id, content=sandbox.read_text(path))


def skill_flow(
    sources: Sequence[SkillSource | Mapping[str, Any]], *, context: WorkingContext | None = None
) -> FlowResult:
    """Load resolved skill sources as context items (``skill:<id>``), merged into ``context``.

    It neither downloads nor executes skills; use :func:`load_skill` to read one from the
    workspace under the sandbox's ``skill`` grant.
    """
    items = []
    for raw in sources:
        source = raw if isinstance(raw, SkillSource) else SkillSource.model_validate(raw)
        items.append(
            ContextItem(
                id=f"skill:{source.id}",
                content=source.content,
                provenance=Provenance(kind="skill", source=source.id, flow="skill_flow"),
                metadata=dict(source.metadata),
            )
        )
    base = context if context is not None else WorkingContext()
    return FlowResult(base.update(add=items))
