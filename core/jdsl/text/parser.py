"""Behavior text -> Behavior IR dict (docs/design.md §3).

:func:`parse_behavior_ir` does the whole text grammar and returns plain IR; turning it into node
objects and binding callables is :func:`jdsl.text.parse_behavior`'s job.
"""

from __future__ import annotations

import re
from typing import Any, NoReturn

from jdsl.errors import BehaviorSyntaxError
from jdsl.ir.format import BEHAVIOR_FORMAT
from jdsl.ir.nodes import MAX_NODE_DEPTH, NodeChecker
from jdsl.text.blocks import Block, read_blocks
from jdsl.text.heads import read_head
from jdsl.text.scanner import Scanner
from jdsl.text.syntax import COMPOSITES, FORMS, INSTRUCTED, LEAVES, TEXT_WORDS

__all__ = ["DEFAULT_NAME", "parse_behavior_ir"]

DEFAULT_NAME = "behavior"
"""The root name used when the text has no ``root`` line and no name is given."""

_UNTIL = re.compile(r"until[ \t]*:")


def parse_behavior_ir(text: str, *, name: str | None = None) -> dict[str, Any]:
    """Parse behavior text into ``{"format": ..., "root": <root node dict>}``.

    Args:
        text: the behavior text.
        name: the root name when the text has no ``root`` line (default ``"behavior"``).

    Raises:
        BehaviorSyntaxError: with line, column and a fix hint (also for text that is not a str).
    """
    if not isinstance(text, str):
        fix = "pass the behavior text as a str, e.g. open(path).read()"
        if isinstance(text, bytes | bytearray):
            fix = "decode it first: data.decode('utf-8')"
        raise BehaviorSyntaxError(
            f"behavior text must be a str, got {type(text).__name__}", line=1, col=1, hint=fix
        )
    blocks = read_blocks(text)
    _check_depth(blocks)
    ids: dict[str, int] = {}
    if not blocks:
        Scanner("", 1).fail(
            "the behavior is empty", "write at least one node, e.g. act my_tool() -> result"
        )
    first = blocks[0]
    if _head_word(first) == "root":
        if len(blocks) > 1:
            _fail_at(
                blocks[1],
                "a second top-level node after the root line",
                "indent it under the root (wrap several nodes in seq)",
            )
        root = _build(first, ids, top=True)
    else:
        children = [_build(block, ids) for block in blocks]
        child = children[0] if len(children) == 1 else {"kind": "sequence", "children": children}
        root = {"kind": "root", "name": name or DEFAULT_NAME, "child": child}
    return {"format": BEHAVIOR_FORMAT, "root": root}


def _check_depth(blocks: list[Block]) -> None:
    """Refuse indentation deeper than :data:`~jdsl.ir.nodes.MAX_NODE_DEPTH` nodes (the root
    line and an implicit root count as one level)."""
    stack = [(block, 2) for block in blocks]
    while stack:
        block, depth = stack.pop()
        if depth > MAX_NODE_DEPTH:
            _fail_at(
                block,
                f"nodes nest deeper than {MAX_NODE_DEPTH} levels",
                "flatten the tree: a seq or sel takes many children at one level",
            )
        stack.extend((child, depth + 1) for child in block.children)


def _head_word(block: Block) -> str:
    match = re.match(r"[A-Za-z_]\w*", block.source[block.indent :])
    return match.group() if match else ""


def _fail_at(block: Block, message: str, hint: str) -> NoReturn:
    block.scanner().fail(message, hint)


def _build(
    block: Block, ids: dict[str, int], *, top: bool = False, scanner: Scanner | None = None
) -> dict[str, Any]:
    """One block (and its children) -> one node dict; ``ids`` maps ids seen to their lines.

    ``scanner`` is given for an inline ``until: NODE``, positioned after the colon.
    """
    if scanner is None:
        scanner = block.scanner()
        _check_placement(block, scanner)
    start = scanner.pos
    node = read_head(scanner)
    if node["kind"] == "root" and not top:
        scanner.fail(
            "root may appear only on the first line",
            "remove this root line; a behavior has exactly one root",
            pos=start,
        )
    if "id" in node:
        first = ids.setdefault(node["id"], block.line)
        if first != block.line:
            scanner.fail(
                f"id {node['id']!r} is already used on line {first}",
                "ids are unique in a behavior; rename one of them",
                pos=start,
            )
    _check_instructions(block, node["kind"])
    if node["kind"] in INSTRUCTED and block.instructions:
        node["instructions"] = "\n".join(line.text for line in block.instructions)
    node.update(_children(block, node["kind"], ids))
    _check_rules(node, scanner, start)
    return node


def _check_rules(node: dict[str, Any], scanner: Scanner, start: int) -> None:
    """Report a rule of the node's kind that the line breaks (``react "q -> a"`` with no
    ``tools=``, ``examples=[1]``, ``id=""``) at the line, as every other syntax error is,
    rather than as an IR problem with no line after the whole text is read."""
    problems = NodeChecker().node_problems(node, "")
    if problems:
        scanner.fail(
            "; ".join(problems),
            f"write it as {FORMS[node['kind']]}",
            pos=start,
        )


def _check_placement(block: Block, scanner: Scanner) -> None:
    """``until:`` only directly under a repeat."""
    if _UNTIL.match(block.source, block.indent):
        scanner.fail(
            "'until:' belongs directly under a repeat",
            "move it under the repeat whose loop it ends",
        )


def _children(block: Block, kind: str, ids: dict[str, int]) -> dict[str, Any]:
    """The child fields of a node of ``kind`` built from the blocks under it."""
    word = TEXT_WORDS[kind]
    if kind in LEAVES:
        if block.children:
            _fail_at(
                block.children[0],
                f"{word} takes no children",
                "dedent this line to make it a sibling, or put both under a seq",
            )
        return {}
    if kind in COMPOSITES:
        if not block.children:
            _fail_at(block, f"{word} needs at least one child", "indent one or more nodes under it")
        return {"children": [_build(child, ids) for child in block.children]}
    if kind == "repeat":
        return _repeat_parts(block, ids)
    return {"child": _single_child(block, block.children, word, ids)}


def _check_instructions(block: Block, kind: str) -> None:
    if block.instructions and kind not in INSTRUCTED:
        first = block.instructions[0]
        Scanner(first.source, first.line).fail(
            "'|' instruction lines belong under a predict or react, "
            f"not under {TEXT_WORDS.get(kind, kind)}",
            "move the line under a predict/react, or make it a '#' comment",
            pos=first.col - 1,
        )


def _single_child(
    block: Block, children: list[Block], word: str, ids: dict[str, int]
) -> dict[str, Any]:
    if not children:
        _fail_at(block, f"{word} needs one child", "indent one node under it")
    if len(children) > 1:
        _fail_at(
            children[1], f"{word} takes exactly one child", "wrap its children in a seq (or sel)"
        )
    return _build(children[0], ids)


def _repeat_parts(block: Block, ids: dict[str, int]) -> dict[str, Any]:
    body = [child for child in block.children if not _UNTIL.match(child.source, child.indent)]
    untils = [child for child in block.children if _UNTIL.match(child.source, child.indent)]
    parts = {"child": _single_child(block, body, "repeat", ids)}
    if len(untils) > 1:
        _fail_at(untils[1], "repeat takes one 'until:'", "join the conditions in one guard")
    if untils:
        parts["until"] = _until_node(untils[0], ids)
    return parts


def _until_node(block: Block, ids: dict[str, int]) -> dict[str, Any]:
    """``until:`` followed by a node on the same line, or by one node indented under it."""
    scanner = block.scanner()
    scanner.pos = _UNTIL.match(block.source, block.indent).end()  # type: ignore[union-attr]
    if scanner.at_end():
        _check_instructions(block, "until:")
        return _single_child(block, block.children, "until:", ids)
    return _build(block, ids, scanner=scanner)
