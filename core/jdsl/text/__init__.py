"""Behavior text: the line-oriented form people write in ``%%behavior`` cells (docs/design.md §3).

Example:
    >>> tree = parse_behavior('''
    ... root lookup_orders
    ...   seq
    ...     act lookup(email=email) -> customer
    ...     act list_orders(customer_id=customer.id) -> orders
    ... ''')
    >>> print(format_behavior(tree), end="")
    root lookup_orders
      seq
        act lookup(email=email) -> customer
        act list_orders(customer_id=customer.id) -> orders
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from jdsl.ir.format import from_ir, to_ir
from jdsl.text.expression import format_expression, parse_expression
from jdsl.text.formatter import format_node
from jdsl.text.parser import DEFAULT_NAME, parse_behavior_ir
from jdsl.tree import Root

__all__ = [
    "DEFAULT_NAME",
    "format_behavior",
    "format_expression",
    "format_node",
    "parse_behavior",
    "parse_behavior_ir",
    "parse_expression",
]

Callables = Mapping[str, Callable[..., Any]] | Iterable[Callable[..., Any]]


def parse_behavior(
    text: str,
    *,
    tools: Callables | None = None,
    predicates: Callables | None = None,
    name: str | None = None,
) -> Root:
    """Parse behavior text into a tree, optionally binding tools and predicates by name.

    Args:
        text: the behavior text (a ``%%behavior`` cell body), taken verbatim.
        tools: callables for ``act`` / ``react`` tool names: a ``{name: fn}`` mapping or a list
            named by ``@tool(name=...)`` / ``__name__``. Binding can also happen later with
            ``Root.bind``.
        predicates: callables for ``guard_call`` predicate names, the same way.
        name: the root's name when the text has no ``root`` line (default ``"behavior"``).

    Returns:
        The :class:`jdsl.tree.Root` of the tree.

    Raises:
        BehaviorSyntaxError: text that does not parse; carries ``line``, ``col`` and a ``hint``.
        ValidationError: a tree the node classes reject.
        BindingError: one name given two different callables.
    """
    tree = from_ir(parse_behavior_ir(text, name=name))
    if tools is not None or predicates is not None:
        tree = tree.bind(tools=tools, predicates=predicates)
    return tree


def format_behavior(tree_or_ir: Any) -> str:
    """Print a tree (or its IR) as canonical behavior text, ending with a newline.

    Args:
        tree_or_ir: a :class:`jdsl.tree.Root`, a Behavior IR document ``{"format", "root"}``
            or a node dict.

    Returns:
        Text that :func:`parse_behavior` reads back into the same IR. Comments are not kept.

    Raises:
        ValidationError: a node or value that has no text form (e.g. a path with spaces).
    """
    if isinstance(tree_or_ir, Root):
        node = to_ir(tree_or_ir)["root"]
    elif hasattr(tree_or_ir, "model_dump"):
        node = tree_or_ir.model_dump(mode="json", exclude_none=True)
    elif isinstance(tree_or_ir, dict) and "root" in tree_or_ir and "kind" not in tree_or_ir:
        node = tree_or_ir["root"]
    else:
        node = tree_or_ir
    return "\n".join(format_node(node)) + "\n"
