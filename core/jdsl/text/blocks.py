"""Behavior text -> a forest of indented blocks (one per node line).

Indentation makes children (docs/design.md §3): a line indented deeper than the line above is its
child; siblings share one indentation; a dedent must return to an indentation used by an open
ancestor. Blank lines and ``#`` comment lines are skipped. A ``| `` line is an instruction line
of the node it sits under and never opens a block of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jdsl.text.scanner import Scanner

__all__ = ["Block", "Instruction", "read_blocks"]


@dataclass
class Instruction:
    """One ``| text`` line: ``text`` is what follows ``"| "``."""

    line: int
    col: int
    text: str
    source: str


@dataclass
class Block:
    """One node line with the lines indented under it.

    Attributes:
        line: 1-based line number.
        indent: the number of leading spaces.
        source: the whole line as written.
        children: blocks indented under this one, in order.
        instructions: ``| `` lines directly under this one.
    """

    line: int
    indent: int
    source: str
    children: list[Block] = field(default_factory=list)
    instructions: list[Instruction] = field(default_factory=list)

    def scanner(self) -> Scanner:
        """A scanner positioned at the first character of the node text."""
        return Scanner(self.source, line=self.line, pos=self.indent)


def read_blocks(text: str) -> list[Block]:
    """Split behavior text into top-level blocks.

    A byte-order mark opening the text (an editor saved it as "UTF-8 with BOM") is dropped.

    Raises:
        BehaviorSyntaxError: on tabs or other white space than spaces (a no-break space) in
            indentation, a dedent to no open level, siblings at different indentations, an
            instruction line with nothing above it.
    """
    top: list[Block] = []
    stack: list[Block] = []
    for number, raw in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        source = raw.rstrip("\r")
        stripped = source.lstrip(" ")
        if not stripped.strip() or stripped.startswith("#"):
            continue
        indent = len(source) - len(stripped)
        if stripped[0].isspace():
            Scanner(source, number).fail(
                f"{_space_name(stripped[0])} in the indentation",
                "indent with spaces only",
                pos=indent,
            )
        while stack and stack[-1].indent >= indent:
            stack.pop()
        if stripped.startswith("|"):
            _add_instruction(stack, source, number, indent)
            continue
        block = Block(number, indent, source)
        siblings = stack[-1].children if stack else top
        _check_indent(siblings, block, top)
        siblings.append(block)
        stack.append(block)
    return top


def _space_name(char: str) -> str:
    """``a tab``, ``a no-break space (U+00A0)``: white space that is not a space, named."""
    import unicodedata

    if char == "\t":
        return "a tab"
    return f"a {unicodedata.name(char, 'white space').lower()} (U+{ord(char):04X})"


def _add_instruction(stack: list[Block], source: str, number: int, indent: int) -> None:
    if not stack:
        Scanner(source, number).fail(
            "an instruction line with no node above it",
            "put '| ' lines indented under the predict or react they instruct",
            pos=indent,
        )
    body = source[indent + 1 :]
    text = body[1:] if body.startswith(" ") else body
    stack[-1].instructions.append(Instruction(number, indent + 1, text, source))


def _check_indent(siblings: list[Block], block: Block, top: list[Block]) -> None:
    expected = siblings[0].indent if siblings else None
    if expected is None and siblings is top:
        return
    if expected is not None and block.indent != expected:
        relation = "deeper than" if block.indent > expected else "does not match"
        Scanner(block.source, block.line).fail(
            f"this line is indented {block.indent} spaces, {relation} its siblings ({expected})",
            f"indent it {expected} spaces to make it a sibling, or match an outer level",
            pos=block.indent,
        )
