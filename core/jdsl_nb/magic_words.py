"""The words of ``%%behavior`` / ``%behavior``: the usage text (:data:`HELP`), the usage errors
IPython prints without a traceback, and splitting a magic line into its options
(:mod:`jdsl_nb.magics` runs them)."""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic_arguments import argument, magic_arguments

from jdsl_nb.shellwords import split_words

__all__ = [
    "HELP",
    "LINE_USAGE",
    "behavior_usage_error",
    "cell_args",
    "choice",
    "last",
    "one",
    "options",
    "split_line",
]


LINE_USAGE = (
    "usage: %behavior run NAME [--input K=V ...] [--model M] [--tools VAR] "
    "[--show view|summary|none] | %behavior show NAME | %behavior check NAME "
    "[--input K=V ...] [--tools VAR] | %behavior compile TRACE_VAR_OR_FILE [-o NAME] "
    "[--force] [--show view|summary|none] | %behavior diff RESULT [TRACE] | "
    "%behavior doctor | %behavior help"
)
INPUT_HELP = (
    "run inputs, read as jdsl run --input reads them: a value takes the type of the tool "
    "parameter it feeds (zip=80279 stays the string '80279' for zip: str); with no declared "
    "type KEY=VALUE is a string and KEY:=JSON a JSON value (n:=3); KEY=@FILE reads a file"
)
HELP = f"""%%behavior NAME [--run] [--model M] [--input KEY=VALUE ...] [--tools VAR] [--show tree|summary|none]
    The cell body is behavior text (one node per line, indentation makes children). The tree
    is assigned to NAME and drawn; tool and predicate names bind to functions of that name in
    the notebook, or in the dict/list of tools named by --tools VAR.
    --run              run it and show the run view (context in NAME_run, trace in NAME_trace)
    --model M          a model object in the notebook (e.g. model = ScriptedModel("0")),
                       else a model id such as claude-sonnet-4-5
    --input KEY=VALUE  {INPUT_HELP}; repeat it or list several after one --input
    --tools VAR        a dict or list of tools in the notebook
    --show tree|summary|none
                       draw the tree, or the run view with --run (default); one line
                       (summary); or nothing (none) - the quiet forms for loops

%behavior run NAME [--input KEY=VALUE ...] [--model M] [--tools VAR] [--show view|summary|none]
    run a tree, a behavior package or a compile result (it runs its package; tools bind by
    capability name); every run of NAME adds an episode to NAME_trace
%behavior show NAME        draw a tree, an IR dict, a package or a compile result
%behavior check NAME [--input KEY=VALUE ...] [--tools VAR]
    the static check a run does first: types across the blackboard, unbound names, run
    inputs the tree reads but is not given, misspelt keys, reads before any writer,
    unreachable children
%behavior compile TRACE_VAR_OR_FILE [-o NAME] [--force] [--show view|summary|none]
    compile a trace (a variable or a JSONL file) into a compile result bound to NAME
    (default: compiled) and say so; NAME already holding something else is refused unless
    --force; run the result with %behavior run NAME
%behavior doctor           versions, Graphviz renderers, widget front ends
%behavior help             this text (also %behavior --help)
"""


def behavior_usage_error(message: str, *, line: int, col: int) -> UsageError:
    """A plain ``UsageError`` for behavior text that does not parse, with ``.line`` / ``.col``.

    Not a subclass: IPython hides the traceback only when ``type(exc) is UsageError``.
    """
    error = UsageError(message)
    error.line = line  # type: ignore[attr-defined]
    error.col = col  # type: ignore[attr-defined]
    return error


def cell_args(func: Any) -> Any:
    for decorator in reversed(
        [
            argument("name", help="the variable the tree is assigned to (and the root's name)"),
            argument("--run", action="store_true", help="run the tree and show the run view"),
            argument("--model", help="a model object in the namespace, else a model id"),
            argument("--input", nargs="+", action="append", metavar="KEY=VALUE", help=INPUT_HELP),
            argument("--tools", metavar="VAR", help="a dict or list of tools in the namespace"),
            argument(
                "--show",
                choices=("tree", "summary", "none"),
                default="tree",
                help="draw the tree (with --run: the run view), one line, or nothing",
            ),
        ]
    ):
        func = decorator(func)
    return magic_arguments()(func)


def choice(values: list[str] | None, allowed: tuple[str, ...], default: str) -> str:
    value = last(values) or default
    if value not in allowed:
        raise UsageError(f"--show {value}: choose one of {', '.join(allowed)}")
    return value


def options(words: list[str], spec: dict[str, bool | None]) -> dict[str, list[str]]:
    """Split words into positionals (key ``""``) and options; ``spec[opt]``: True takes many
    values, False one, None none (a flag)."""
    out: dict[str, list[str]] = {"": []}
    current = ""
    for word in words:
        if word.startswith("-") and word not in spec:
            raise UsageError(f"unknown option {word!r}; {LINE_USAGE}")
        if word in spec:
            current = word if spec[word] is not None else ""
            out.setdefault(word, [])
            continue
        out.setdefault(current, []).append(word)
        if current and not spec[current]:
            current = ""
    return out


def split_line(line: str) -> list[str]:
    """Shell-like words (quotes removed), e.g. ``--input "request=cancel my order"``."""
    try:
        return split_words(line)  # shlex.split's words, linear (shlex was quadratic)
    except ValueError as exc:
        raise UsageError(f"cannot split the magic line: {exc}") from None


def one(values: list[str], usage: str) -> str:
    if len(values) != 1:
        raise UsageError(f"usage: {usage}")
    return values[0]


def last(values: list[str] | None) -> str | None:
    return values[-1] if values else None
