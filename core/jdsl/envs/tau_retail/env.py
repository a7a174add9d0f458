"""``RetailEnv``: the tau-bench retail environment over the real database, with jdsl tools.

An episode is one :class:`RetailEnv` (or one :meth:`RetailEnv.reset`): it starts from the shipped
database and every tool call goes through :meth:`RetailEnv.step`, which behaves like the
benchmark's ``env.step``: the tool's exact string on success, ``"Error: <msg>"`` on a failed check
or bad arguments (and then the database is unchanged), ``"Unknown action <name>"`` for a name
that is not a retail tool. :meth:`RetailEnv.tools` gives the same tools as jdsl tools with the
benchmark's JSON Schemas, ready for ``Root.bind(tools=...)`` or a ``ToolRegistry``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from jdsl.envs.data import load_json
from jdsl.envs.tau_retail.reads import READ_TOOLS, TERMINAL_TOOLS, RetailFailure
from jdsl.envs.tau_retail.store import RetailSnapshot, RetailState
from jdsl.envs.tau_retail.writes import WRITE_TOOLS
from jdsl.errors import BindingError
from jdsl.interaction.tools import Tool, tool
from jdsl.providers.messages import ToolSpec

__all__ = ["RETAIL_TOOLS", "RetailEnv", "RetailStep", "retail_tool_schemas"]

RETAIL_TOOLS: Mapping[str, Callable[..., str]] = MappingProxyType(
    dict(sorted({**READ_TOOLS, **WRITE_TOOLS}.items()))
)


def retail_tool_schemas() -> list[dict[str, Any]]:
    """The 16 tool entries of ``tau_retail/tools.schema.json`` (fresh objects, file order).

    Each entry has ``name``, ``kind`` (read / write / generic / terminal), ``description``,
    ``parameters`` (JSON Schema) and ``python_signature``.
    """
    entries: list[dict[str, Any]] = load_json("tau_retail", "tools.schema.json")
    return entries


@dataclass(frozen=True)
class RetailStep:
    """One tool call of an episode: what was asked and the exact string returned."""

    name: str
    arguments: Mapping[str, Any]
    result: str

    @property
    def failed(self) -> bool:
        """Whether the environment refused the call (``Error: ...`` / ``Unknown action ...``)."""
        return self.result.startswith(("Error: ", "Unknown action "))


@dataclass
class RetailEnv:
    """One retail episode over the real tau-bench database.

    Args:
        snapshot: the database to start from (the shipped one by default; tests may pass a
            :class:`RetailSnapshot` of their own).

    Attributes:
        db: this episode's :class:`RetailState` (copy on write over the snapshot).
        done: True once a terminal tool (``transfer_to_human_agents``) ran.
        replies: what the agent said to the user (:meth:`respond`), read by ``reward``.
        history: every :meth:`step`, in order.
    """

    snapshot: RetailSnapshot | None = None
    db: RetailState = field(init=False)
    done: bool = field(init=False, default=False)
    replies: list[str] = field(init=False, default_factory=list)
    history: list[RetailStep] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Start a new episode: the database as shipped, no replies, no history."""
        self.db = RetailState(self.snapshot)
        self.done = False
        self.replies = []
        self.history = []

    def step(self, name: str, arguments: Mapping[str, Any] | None = None) -> str:
        """Call retail tool ``name`` with keyword ``arguments``; returns the environment's string.

        Never raises for a bad call: a failed check gives ``"Error: <msg>"`` (see TOOLS.md), bad
        argument names or types give ``"Error: <exception text>"``, an unknown tool gives
        ``"Unknown action <name>"``. A failed call leaves the database unchanged.
        """
        arguments = dict(arguments or {})
        fn = RETAIL_TOOLS.get(name)
        if fn is None:
            result = f"Unknown action {name}"
        else:
            try:
                with self.db.transaction():
                    result = fn(self.db, **arguments)
            except RetailFailure as failure:
                result = f"Error: {failure}"
            except Exception as exc:  # the benchmark turns any exception into an Error string
                result = f"Error: {exc}"
            if name in TERMINAL_TOOLS and not result.startswith("Error: "):
                self.done = True
        self.history.append(RetailStep(name, MappingProxyType(arguments), result))
        return result

    def respond(self, content: str) -> None:
        """Record a reply of the agent to the user (``reward`` looks for required outputs here)."""
        self.replies.append(content)

    def database(self) -> dict[str, dict[str, Any]]:
        """The whole current database as fresh objects (``users``, ``orders``, ``products``)."""
        return self.db.to_dict()

    def db_hash(self) -> str:
        """``sha256:<hex>`` of the current database (canonical JSON); equal data, equal hash."""
        return self.db.digest()

    def tool_specs(self, names: Sequence[str] | None = None) -> list[ToolSpec]:
        """The tools' :class:`ToolSpec` (name, description, JSON Schema) for a model."""
        return [
            ToolSpec(name=e["name"], description=e["description"], parameters=e["parameters"])
            for e in _select(retail_tool_schemas(), names)
        ]

    def tools(self, names: Sequence[str] | None = None) -> list[Tool]:
        """The retail tools bound to this environment, as jdsl tools (all 16 by default).

        Each :class:`~jdsl.interaction.tools.Tool` takes the benchmark's keyword arguments,
        returns the environment's exact string (as :meth:`step`) and carries ``name``,
        ``description`` and ``parameters`` (the JSON Schema of ``tools.schema.json``).

        Raises:
            BindingError: a name that is not a retail tool.
        """
        return [_bound_tool(self, entry) for entry in _select(retail_tool_schemas(), names)]


def _select(entries: list[dict[str, Any]], names: Sequence[str] | None) -> list[dict[str, Any]]:
    if names is None:
        return entries
    by_name = {entry["name"]: entry for entry in entries}
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise BindingError(
            f"no retail tool named {unknown[0]!r}; the retail tools are {sorted(by_name)}",
            name=unknown[0],
            available=sorted(by_name),
        )
    return [by_name[name] for name in names]


def _bound_tool(env: RetailEnv, entry: Mapping[str, Any]) -> Tool:
    name = entry["name"]

    def call(**arguments: Any) -> str:
        return env.step(name, arguments)

    call.__name__ = call.__qualname__ = name
    return tool(call, name=name, description=entry["description"], parameters=entry["parameters"])
