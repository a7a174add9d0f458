"""Retail tools for behavior trees: structured results, refused calls raised as errors.

:meth:`RetailEnv.tools` returns the benchmark's exact strings (what an LLM agent sees). A tree
needs data it can address (``user.orders[$order_index]``, ``order.status``), and the compiler
needs to see a refused call as a failure. :func:`tree_tools` wraps the same environment so that

* a JSON result (a record, a list, a number) is returned parsed; any other text (a bare user id,
  ``""`` from ``think``, ``"Transfer successful"``) is returned as it is;
* an ``"Error: ..."`` result raises :class:`RetailToolError`, so the trace records
  ``tool.call.failed`` with the benchmark's message (the database is unchanged, as for every
  refused call) and the run stops there instead of writing an error string to the blackboard.

Example:
    >>> env = RetailEnv()
    >>> get_order = tree_tools(env, ["get_order_details"])[0]
    >>> get_order(order_id="#W2611340")["status"]
    'processed'
    >>> get_order(order_id="#W0")
    Traceback (most recent call last):
    ...
    jdsl.envs.tau_retail.tree_tools.RetailToolError: retail tool get_order_details refused {'order_id': '#W0'}: Error: order not found; ...
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from jdsl.envs.tau_retail.env import RetailEnv
from jdsl.errors import ToolError
from jdsl.interaction.tools import Tool, tool

__all__ = [
    "CAPABILITY_PREFIX",
    "RetailToolError",
    "capability_tools",
    "structured_result",
    "tree_tools",
]

CAPABILITY_PREFIX = "retail."
"""Logical capability ids of the retail tools: ``retail.<tool name>``."""


class RetailToolError(ToolError):
    """A retail tool call the environment refused (its result started with ``Error:``).

    Attributes:
        tool: the retail tool's name.
        arguments: the keyword arguments of the call.
        result: the environment's exact string, e.g. ``"Error: order not found"``.
    """

    def __init__(self, tool: str, arguments: Mapping[str, Any], result: str) -> None:
        self.arguments = dict(arguments)
        self.result = result
        super().__init__(
            f"retail tool {tool} refused {self.arguments!r}: {result}; the database is "
            "unchanged: check the arguments against the record the tree read earlier",
            tool=tool,
            code="RETAIL_REFUSED",
        )


def structured_result(text: str) -> Any:
    """A retail tool's string as data: parsed JSON when it is JSON text, else the text itself.

    ``'{"order_id": ...}'`` gives a dict, ``"12.5"`` a float, ``"sara_doe_496"`` (a bare user id)
    and ``""`` stay strings.
    """
    try:
        return json.loads(text)
    except ValueError:
        return text


def tree_tools(env: RetailEnv | None = None, names: Sequence[str] | None = None) -> list[Tool]:
    """The retail tools bound to ``env``, returning data and raising on refused calls.

    Args:
        env: the episode to act on (use a fresh :class:`RetailEnv` per episode); None makes a
            fresh one (``jdsl run ... --tools jdsl.envs.tau_retail:tree_tools``).
        names: the tools to return (all 16 by default, in ``tools.schema.json`` order).

    Returns:
        jdsl :class:`~jdsl.interaction.tools.Tool` s with the benchmark's names, descriptions and
        JSON Schemas; each call goes through :meth:`RetailEnv.step` (so ``env.history`` and
        ``reward`` see it) and returns :func:`structured_result` of the string.

    Raises:
        BindingError: a name that is not a retail tool.
        RetailToolError: (from a call) the environment answered ``Error: ...`` or
            ``Unknown action ...``.
    """
    env = env if env is not None else RetailEnv()
    return [_structured(env, plain) for plain in env.tools(names)]


def capability_tools(env: RetailEnv | None = None) -> dict[str, Tool]:
    """The retail tools keyed by capability id (``retail.get_order_details``), ready to bind
    to a package compiled with those ids (the demo's ``retail_cancel.jdsl``)::

        jdsl package run retail_cancel.jdsl --tools jdsl.envs.tau_retail:capability_tools \\
            --input email=... --input request=...

    Args:
        env: the episode to act on; a fresh :class:`RetailEnv` (the shipped database) when
            None, as for a command-line run.
    """
    env = env if env is not None else RetailEnv()
    return {CAPABILITY_PREFIX + t.name: t for t in tree_tools(env)}


def _structured(env: RetailEnv, plain: Tool) -> Tool:
    name = plain.name

    def call(**arguments: Any) -> Any:
        text = env.step(name, arguments)
        if env.history[-1].failed:
            raise RetailToolError(name, arguments, text)
        return structured_result(text)

    call.__name__ = call.__qualname__ = name
    return tool(call, name=name, description=plain.description, parameters=plain.parameters)
