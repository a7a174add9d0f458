"""The ``%%behavior`` cell magic and the ``%behavior`` line magic.

``%%behavior NAME [--run] [--model M] [--input KEY=VALUE ...] [--tools VAR] [--show tree|none]``
parses the cell body (verbatim) as behavior text, binds tool and predicate names from the user
namespace, assigns the tree to ``NAME`` and draws it; ``--run`` runs it and shows a RunView (the
context goes to ``NAME_run``, the trace to ``NAME_trace``). Line forms: ``%behavior run NAME``,
``%behavior show NAME``, ``%behavior compile TRACE_VAR_OR_FILE [-o NAME]``, ``%behavior doctor``.
Bad input raises IPython's ``UsageError`` itself, never a subclass: IPython prints only the
message when the exception's type *is* ``UsageError`` (``InteractiveShell.showtraceback``), and
a full traceback for anything else, subclasses included. ``--input`` values: see
``BehaviorMagics.behavior`` (what ``%%behavior?`` shows).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments
from IPython.display import display

from jdsl_nb import hooks

__all__ = ["BehaviorMagics", "behavior_usage_error", "parse_inputs"]

_LINE_USAGE = ("usage: %behavior run NAME [--input K=V ...] [--model M] | %behavior show NAME | "
               "%behavior compile TRACE_VAR_OR_FILE [-o NAME] | %behavior doctor")
_INPUT_HELP = ("run inputs; a value is JSON when it parses, else a string: zip=77209 is the "
               "int 77209; force a string with JSON quotes inside shell quotes: zip='\"77209\"'")


def behavior_usage_error(message: str, *, line: int, col: int) -> UsageError:
    """A plain ``UsageError`` for behavior text that does not parse, with ``.line`` / ``.col``.

    Not a subclass: IPython hides the traceback only when ``type(exc) is UsageError``.
    """
    error = UsageError(message)
    error.line = line  # type: ignore[attr-defined]
    error.col = col  # type: ignore[attr-defined]
    return error


def parse_inputs(pairs: list[list[str]] | list[str] | None) -> dict[str, Any]:
    """``KEY=VALUE`` strings to a dict; a value is JSON when it parses, else the string.

    ``zip=77209`` gives the int 77209 and ``zip="77209"`` (JSON quotes, kept through the shell
    quoting of the magic line: ``--input zip='"77209"'``) the string ``"77209"``.

    Raises:
        UsageError: an item without ``=``.
    """
    flat: list[str] = []
    for item in pairs or []:
        flat.extend(item if isinstance(item, list) else [item])
    inputs: dict[str, Any] = {}
    for item in flat:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--input {item!r} is not KEY=VALUE; write e.g. --input email=a@b.c")
        try:
            inputs[key] = json.loads(raw)
        except ValueError:
            inputs[key] = raw
    return inputs


def _cell_args(func: Any) -> Any:
    for decorator in reversed([
        argument("name", help="the variable the tree is assigned to (and the root's name)"),
        argument("--run", action="store_true", help="run the tree and show the run view"),
        argument("--model", help="a model object in the namespace, else a model id"),
        argument("--input", nargs="+", action="append", metavar="KEY=VALUE",
                 help=_INPUT_HELP),
        argument("--tools", metavar="VAR", help="a dict or list of tools in the namespace"),
        argument("--show", choices=("tree", "none"), default="tree", help="draw the tree"),
    ]):
        func = decorator(func)
    return magic_arguments()(func)


@magics_class
class BehaviorMagics(Magics):
    """``%%behavior`` / ``%behavior``: write, run, show and compile behavior trees.

    The instance is the kernel's notebook session: it keeps one trace sink per tree name, so
    every run of ``NAME`` adds an episode to ``NAME_trace`` (redefining ``NAME`` starts anew).
    """

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self._sinks: dict[str, Any] = {}

    @line_cell_magic
    def behavior(self, line: str, cell: str | None = None) -> None:
        """Define, run, show and compile behavior trees.

        Cell: ``%%behavior NAME [--run] [--model M] [--input KEY=VALUE ...] [--tools VAR]
        [--show tree|none]``; the body is behavior text. Line: ``%behavior run NAME [--input
        KEY=VALUE ...] [--model M] [--tools VAR]``, ``%behavior show NAME``, ``%behavior compile
        TRACE_VAR_OR_FILE [-o NAME]``, ``%behavior doctor``.

        ``--input`` values are JSON when they parse, else strings: ``zip=77209`` becomes the
        int 77209, ``flag=true`` the bool True, ``email=a@b.c`` the string "a@b.c". To force a
        string, quote it as JSON inside shell quotes: ``--input zip='"77209"'``. Values with
        spaces need shell quotes: ``--input "request=cancel my order"``.
        """
        if cell is None:
            self._line(line)
        else:
            self._cell(line, cell)

    @property
    def _ns(self) -> dict[str, Any]:
        if self.shell is None:
            raise UsageError("jdsl_nb magics need a running IPython shell")
        namespace: dict[str, Any] = self.shell.user_ns
        return namespace

    @_cell_args
    def _cell_usage(self, line: str) -> None:
        """%%behavior NAME [--run] [--model M] [--input KEY=VALUE ...] [--tools VAR] [--show tree|none]"""

    # -- cell ------------------------------------------------------------------------------
    def _cell(self, line: str, cell: str) -> None:
        args = self._cell_usage.parser.parse_args(_split(line))
        root = _parse(cell, args.name)
        extra = self._collection(args.tools)
        from jdsl_nb.binding import UnboundName, bind_names  # core loads on first use

        try:
            tools, predicates = bind_names(root, self._ns, extra)
        except UnboundName as exc:
            raise UsageError(str(exc)) from None
        root = _bind(root, tools, predicates)
        self._ns[args.name] = root
        self._sinks.pop(args.name, None)
        if args.run:
            self._run(args.name, root, parse_inputs(args.input), args.model)
        elif args.show == "tree":
            _show(root)

    def _collection(self, var: str | None) -> dict[str, Any] | None:
        if not var:
            return None
        value = self._lookup(var)
        from jdsl_nb.binding import collection_tools

        try:
            return collection_tools(value)
        except TypeError as exc:
            raise UsageError(f"--tools {var}: {exc}") from None

    def _lookup(self, name: str) -> Any:
        namespace = self._ns
        if name not in namespace:
            near = difflib_hint(name, namespace)
            raise UsageError(f"{name!r} is not defined in the notebook{near}")
        return namespace[name]

    def _model(self, model: str | None) -> tuple[Any, str | None]:
        if not model:
            return None, None
        if model in self._ns:
            return self._ns[model], None
        return None, model

    # -- run -------------------------------------------------------------------------------
    def _run(self, name: str, root: Any, inputs: dict[str, Any], model_arg: str | None,
             **bindings: Any) -> None:
        from jdsl.trace import ListTraceSink

        from jdsl_nb.widgets import RunView

        model, model_id = self._model(model_arg)
        if model_id and hasattr(root, "model_copy"):
            root = root.model_copy(update={"model_id": model_id})
        sink = self._sinks.setdefault(name, ListTraceSink())
        episode_id = f"{name}_{sum(1 for e in sink.events if e.kind == 'episode.started')}"
        ctx, error = None, None
        try:
            ctx = root.run(model=model, trace_sink=sink, raise_errors=False, capture_id="notebook",
                           episode_id=episode_id, **bindings, **inputs)
        except Exception as exc:  # noqa: BLE001 - shown in the run view, not as a traceback
            error = exc
        self._ns[f"{name}_run"] = ctx
        self._ns[f"{name}_trace"] = _as_trace(sink.events)
        mine = [e for e in sink.events if e.episode_id == episode_id]
        display(RunView(ctx if ctx is not None else mine, tree=root, error=error))

    # -- line ------------------------------------------------------------------------------
    def _line(self, line: str) -> None:
        words = _split(line)
        if not words:
            raise UsageError(_LINE_USAGE)
        command, rest = words[0], words[1:]
        handler = {"run": self._line_run, "show": self._line_show,
                   "compile": self._line_compile, "doctor": self._line_doctor}.get(command)
        if handler is None:
            raise UsageError(f"unknown %behavior command {command!r}; {_LINE_USAGE}")
        handler(rest)

    def _line_run(self, words: list[str]) -> None:
        opts = _options(words, {"--input": True, "--model": False, "--tools": False})
        name = _one(opts.pop("", []), "%behavior run NAME")
        root = self._lookup(name)
        extra = self._collection(_last(opts.get("--tools")))
        from jdsl_nb.binding import bind_names

        tools, predicates = bind_names(root, self._ns, extra, strict=False)
        self._run(name, root, parse_inputs(opts.get("--input")), _last(opts.get("--model")),
                  tools=tools or None, predicates=predicates or None)

    def _line_show(self, words: list[str]) -> None:
        _show(self._lookup(_one(words, "%behavior show NAME")))

    def _line_compile(self, words: list[str]) -> None:
        opts = _options(words, {"-o": False, "--name": False})
        source_name = _one(opts.pop("", []), "%behavior compile TRACE_VAR_OR_FILE [-o NAME]")
        target = _last(opts.get("-o")) or "compiled"
        source = self._trace_source(source_name)
        from jdsl_nb.compiling import compile_trace
        from jdsl_nb.widgets import CompileView

        try:
            result = compile_trace(source, name=_last(opts.get("--name")) or target)
        except Exception as exc:  # noqa: BLE001 - reported without a traceback
            raise UsageError(f"compile failed: {type(exc).__name__}: {exc}") from None
        self._ns[target] = result
        display(CompileView(result, trace=source))

    def _trace_source(self, name: str) -> Any:
        if name in self._ns:
            return self._ns[name]
        path = Path(name).expanduser()
        if path.is_file():
            from jdsl_nb.compiling import read_trace

            return read_trace(path)
        raise UsageError(f"{name!r} is neither a variable in the notebook nor a trace file"
                         f"{difflib_hint(name, self._ns)}")

    def _line_doctor(self, words: list[str]) -> None:
        from jdsl_nb.doctor import doctor_html, doctor_report, doctor_text

        report = doctor_report()
        display({"text/plain": doctor_text(report), "text/html": doctor_html(report)}, raw=True)


def difflib_hint(name: str, namespace: dict[str, Any]) -> str:
    """``"; closest names: a, b"`` for names in ``namespace`` like ``name``, else ``""``."""
    from jdsl_nb.binding import closest_names

    near = closest_names(name, {k: (lambda: None) for k in namespace if not k.startswith("_")})
    return f"; closest names: {', '.join(near)}" if near else ""


def _parse(cell: str, name: str) -> Any:
    from jdsl.errors import BehaviorSyntaxError
    from jdsl.text import parse_behavior

    try:
        return parse_behavior(cell, name=name)
    except BehaviorSyntaxError as exc:
        raise behavior_usage_error(f"behavior text: {exc}", line=exc.line, col=exc.col) from None
    except Exception as exc:  # noqa: BLE001 - any other rejection of the text is bad input
        raise UsageError(f"behavior text: {type(exc).__name__}: {exc}") from None


def _bind(root: Any, tools: dict[str, Any], predicates: dict[str, Any]) -> Any:
    if not (tools or predicates) or not hasattr(root, "bind"):
        return root
    try:
        return root.bind(tools=tools, predicates=predicates)
    except Exception as exc:  # noqa: BLE001 - e.g. one name bound to two callables
        raise UsageError(f"binding failed: {exc}") from None


def _as_trace(events: list[Any]) -> Any:
    try:
        from jdsl.trace import Trace
    except ImportError:
        return list(events)
    try:
        return Trace(events)
    except Exception:  # noqa: BLE001 - an unexpected Trace constructor: keep the events
        return list(events)


def _show(obj: Any) -> None:
    display({"text/plain": hooks.text_view(obj), "text/html": hooks.html_view(obj)}, raw=True)


def _options(words: list[str], spec: dict[str, bool]) -> dict[str, list[str]]:
    """Split words into positionals (key ``""``) and options; ``spec[opt]`` = takes many values."""
    out: dict[str, list[str]] = {"": []}
    current = ""
    for word in words:
        if word.startswith("-") and word not in spec:
            raise UsageError(f"unknown option {word!r}; {_LINE_USAGE}")
        if word in spec:
            current = word
            out.setdefault(word, [])
            continue
        out.setdefault(current, []).append(word)
        if current and not spec[current]:
            current = ""
    return out


def _split(line: str) -> list[str]:
    """Shell-like words (quotes removed), e.g. ``--input "request=cancel my order"``."""
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"cannot split the magic line: {exc}") from None


def _one(values: list[str], usage: str) -> str:
    if len(values) != 1:
        raise UsageError(f"usage: {usage}")
    return values[0]


def _last(values: list[str] | None) -> str | None:
    return values[-1] if values else None
