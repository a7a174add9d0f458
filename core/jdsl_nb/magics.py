"""The ``%%behavior`` cell magic and the ``%behavior`` line magic.

``%%behavior NAME [--run] [--model M] [--input KEY=VALUE ...] [--tools VAR] [--show tree|none]``
parses the cell body (verbatim) as behavior text, binds tool and predicate names from the user
namespace, assigns the tree to ``NAME`` and draws it; ``--run`` runs it and shows a RunView (the
context goes to ``NAME_run``, the trace to ``NAME_trace``). Line forms: ``%behavior run NAME``,
``%behavior show NAME``, ``%behavior check NAME``, ``%behavior compile TRACE_VAR_OR_FILE [-o
NAME]``, ``%behavior doctor`` and ``%behavior help`` (or ``--help``). Errors shown in a run view
give the magic's flags as the fix (:mod:`jdsl_nb.hints`).
Bad input raises IPython's ``UsageError`` itself, never a subclass: IPython prints only the
message when the exception's type *is* ``UsageError`` (``InteractiveShell.showtraceback``), and
a full traceback for anything else, subclasses included. ``--input`` values: see
``jdsl_nb.magic_inputs`` (read by ``jdsl.inputs``, as ``jdsl run --input``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import display
from jdsl.trace import Trace

from jdsl_nb import hooks
from jdsl_nb.hints import magic_hints
from jdsl_nb.magic_words import (
    HELP,
    LINE_USAGE,
    behavior_usage_error,
    cell_args,
    choice,
    last,
    one,
    options,
    split_line,
)

__all__ = ["HELP", "BehaviorMagics", "behavior_usage_error"]


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
        KEY=VALUE ...] [--model M] [--tools VAR]``, ``%behavior show NAME``, ``%behavior check
        NAME``, ``%behavior compile TRACE_VAR_OR_FILE [-o NAME]``, ``%behavior doctor``,
        ``%behavior help`` (the whole usage, :data:`HELP`).

        ``--input`` values are read as ``jdsl run --input`` reads them (:mod:`jdsl.inputs`):
        a value takes the type of the tool parameter it feeds, so ``zip=77209`` stays
        the string "77209" for ``zip: str`` and is the int 77209 for ``zip: int``. With no
        declared type ``KEY=VALUE`` is a string and ``KEY:=JSON`` a JSON value (``flag:=true``
        the bool True); ``KEY=@PATH`` reads the file. Values with spaces need shell quotes:
        ``--input "request=cancel my order"``.
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

    @cell_args
    def _cell_usage(self, line: str) -> None:
        """%%behavior NAME [--run] [--model M] [--input KEY=VALUE ...] [--tools VAR] [--show tree|none]"""

    # -- cell ------------------------------------------------------------------------------
    def _cell(self, line: str, cell: str) -> None:
        args = self._cell_usage.parser.parse_args(split_line(line))
        root = _parse(cell, args.name)
        extra = self._collection(args.tools)
        from jdsl_nb.binding import UnboundName, bind_names  # core loads on first use
        from jdsl_nb.magic_inputs import split_pairs

        try:
            tools, predicates = bind_names(root, self._ns, extra)
        except UnboundName as exc:
            raise UsageError(str(exc)) from None
        root = _bind(root, tools, predicates)
        self._ns[args.name] = root
        self._sinks.pop(args.name, None)
        if args.run:
            self._run(
                args.name,
                root,
                split_pairs(args.input),
                args.model,
                show="view" if args.show == "tree" else args.show,
            )
        elif args.show == "tree":
            _show(root)
        elif args.show == "summary":
            _say(f"{args.name}: a tree of {sum(1 for _ in _nodes(root))} nodes")

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
    def _run(
        self,
        name: str,
        root: Any,
        pairs: list[str],
        model_arg: str | None,
        show: str = "view",
        package: Any = None,
        **bindings: Any,
    ) -> None:
        from jdsl.trace import ListTraceSink

        from jdsl_nb.rundata import error_text
        from jdsl_nb.widgets import RunView

        model, model_id = self._model(model_arg)
        if model_id and hasattr(root, "model_copy"):
            root = root.model_copy(update={"model_id": model_id})
        from jdsl_nb.magic_inputs import typed_inputs

        inputs = typed_inputs(pairs, root, _bindings_of(root, bindings))
        sink = self._sinks.setdefault(name, ListTraceSink())
        episode_id = f"{name}_{sum(1 for e in sink.events if e.kind == 'episode.started')}"
        ctx, error = None, None
        try:
            ctx = root.run(
                model=model,
                trace_sink=sink,
                raise_errors=False,
                capture_id="notebook",
                episode_id=episode_id,
                **bindings,
                **inputs.values,
            )
        except Exception as exc:  # noqa: BLE001 - shown in the run view, not as a traceback
            error = exc
        self._ns[f"{name}_run"] = ctx
        self._ns[f"{name}_trace"] = Trace(sink.events)
        mine = [e for e in sink.events if e.episode_id == episode_id]
        handed = []
        if package is not None:
            from jdsl_nb.binding import package_notes

            handed = package_notes(package, inputs.values, mine)
            inputs.notes.extend(handed)
        raised = error_text(error if error is not None else getattr(ctx, "error", None))
        shown = magic_hints(raised) if raised is not None else None
        if show == "none":
            return
        if show == "summary":  # a package run its fallback took says so: "success" hides it
            _say("\n".join([_run_line(episode_id, ctx, shown), *handed[-1:]]))
            return
        display(
            RunView(ctx if ctx is not None else mine, tree=root, error=shown, notes=inputs.notes)
        )

    # -- line ------------------------------------------------------------------------------
    def _line(self, line: str) -> None:
        words = split_line(line)
        if not words:
            raise UsageError(f"{LINE_USAGE}; %behavior help explains each")
        command, rest = words[0], words[1:]
        if command in ("help", "--help", "-h"):
            print(HELP)
            return
        handler = {
            "run": self._line_run,
            "show": self._line_show,
            "check": self._line_check,
            "compile": self._line_compile,
            "doctor": self._line_doctor,
            "diff": self._line_diff,
        }.get(command)
        if handler is None:
            raise UsageError(f"unknown %behavior command {command!r}; {LINE_USAGE}")
        handler(rest)

    def _line_run(self, words: list[str]) -> None:
        opts = options(
            words, {"--input": True, "--model": False, "--tools": False, "--show": False}
        )
        name = one(opts.pop("", []), "%behavior run NAME")
        show = choice(opts.get("--show"), ("view", "summary", "none"), "view")
        target = self._lookup(name)
        extra = self._collection(last(opts.get("--tools")))
        from jdsl_nb.binding import bind_names, package_of, package_root
        from jdsl_nb.magic_inputs import split_pairs

        package = package_of(target)
        if package is not None:
            try:
                root = package_root(package, self._ns, extra)
            except LookupError as exc:
                raise UsageError(f"%behavior run {name}: {exc}") from None
            pairs = split_pairs(opts.get("--input"))
            self._run(name, root, pairs, last(opts.get("--model")), show, package=package)
            return
        if not hasattr(target, "run") or not hasattr(target, "walk"):
            raise UsageError(
                f"{name!r} is a {type(target).__name__}; %behavior run takes a tree "
                f"(from %%behavior), a behavior package or a compile result (from "
                f"%behavior compile)"
            )
        tools, predicates = bind_names(target, self._ns, extra, strict=False)
        self._run(
            name,
            target,
            split_pairs(opts.get("--input")),
            last(opts.get("--model")),
            show,
            tools=tools or None,
            predicates=predicates or None,
        )

    def _line_check(self, words: list[str]) -> None:
        opts = options(words, {"--input": True, "--tools": False})
        name = one(opts.pop("", []), "%behavior check NAME [--input K=V ...] [--tools VAR]")
        root = self._lookup(name)
        extra = self._collection(last(opts.get("--tools")))
        from jdsl_nb.binding import bind_names, package_of, package_root
        from jdsl_nb.magic_inputs import input_keys, split_pairs

        package = package_of(root)
        if package is not None:  # what %behavior run would run: the package's tree, bound
            try:
                root = package_root(package, self._ns, extra)
            except LookupError as exc:
                raise UsageError(f"%behavior check {name}: {exc}") from None
        if not hasattr(root, "check"):
            raise UsageError(
                f"{name!r} is a {type(root).__name__}, not a tree; %behavior check takes what "
                "%behavior run takes: a tree (from %%behavior), a behavior package or a compile "
                "result"
            )

        tools, predicates = bind_names(root, self._ns, extra, strict=False)
        inputs = input_keys(split_pairs(opts.get("--input"))) or None
        report = root.check(tools=tools or None, predicates=predicates or None, inputs=inputs)
        from jdsl_nb.views import check_html

        text = magic_hints(str(report))  # the report tree.check() shows, in the magic's terms
        display({"text/plain": text, "text/html": check_html(report, magic_hints)}, raw=True)

    def _line_show(self, words: list[str]) -> None:
        _show(self._lookup(one(words, "%behavior show NAME")))

    def _line_compile(self, words: list[str]) -> None:
        opts = options(words, {"-o": False, "--name": False, "--force": None, "--show": False})
        source_name = one(
            opts.pop("", []),
            "%behavior compile TRACE_VAR_OR_FILE [-o NAME] [--force] [--show view|summary|none]",
        )
        target = last(opts.get("-o")) or "compiled"
        show = choice(opts.get("--show"), ("view", "summary", "none"), "view")
        held = self._ns.get(target)
        if (
            held is not None
            and "--force" not in opts
            and source_name != target
            and type(held).__name__ != "CompileResult"
        ):
            raise UsageError(
                f"-o {target}: {target!r} already holds a {type(held).__name__} in the notebook; "
                f"choose another name (-o {target}_compiled) or add --force to replace it"
            )
        source = self._trace_source(source_name)
        from jdsl_nb.compiling import compile_trace
        from jdsl_nb.widgets import CompileView

        try:
            result = compile_trace(source, name=last(opts.get("--name")) or target)
        except Exception as exc:  # noqa: BLE001 - reported without a traceback
            raise UsageError(f"compile failed: {type(exc).__name__}: {exc}") from None
        self._ns[target] = result
        if show != "none":
            _say(_bound_text(target, result, source_name))
        if show == "view":
            display(CompileView(result, trace=source))

    def _line_diff(self, words: list[str]) -> None:
        opts = options(words, {"--episode": False})
        names = opts.pop("", [])
        if len(names) not in (1, 2):
            raise UsageError(
                "usage: %behavior diff RESULT_OR_PACKAGE [TRACE_VAR_OR_FILE] [--episode ID]"
            )
        from jdsl.compiler.stepdiff import diff_summary

        from jdsl_nb.binding import package_of
        from jdsl_nb.diffing import episode_diffs
        from jdsl_nb.widgets import DiffView

        held = self._lookup(names[0])
        package = package_of(held)
        if package is None:
            raise UsageError(
                f"{names[0]!r} is a {type(held).__name__}; %behavior diff takes a "
                "compile result or a behavior package"
            )
        trace = self._trace_source(names[1]) if len(names) == 2 else None
        try:
            diffs, skipped = episode_diffs(
                held, package, trace, episode=last(opts.get("--episode"))
            )
        except LookupError as exc:
            raise UsageError(str(exc)) from None
        diverged = [d for d in diffs if not d.matched]
        _say(diff_summary(diffs, skipped) + ("; showing the unmatched ones" if diverged else ""))
        for diff in diverged or diffs[:1]:
            display(DiffView(diff))

    def _trace_source(self, name: str) -> Any:
        if name in self._ns:
            return self._ns[name]
        path = Path(name).expanduser()
        if path.is_file():
            from jdsl_nb.compiling import read_trace

            return read_trace(path)
        raise UsageError(
            f"{name!r} is neither a variable in the notebook nor a trace file"
            f"{difflib_hint(name, self._ns)}"
        )

    def _line_doctor(self, words: list[str]) -> None:
        from jdsl_nb.doctor import doctor_html, doctor_report, doctor_text

        report = doctor_report()
        display({"text/plain": doctor_text(report), "text/html": doctor_html(report)}, raw=True)


def _bindings_of(root: Any, given: dict[str, Any]) -> Any:
    """The bindings a run of ``root`` would use (None when it is not a Root)."""
    if not hasattr(root, "resolved_bindings"):
        return None
    return root.resolved_bindings(given.get("tools"), given.get("predicates"))


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


def _run_line(episode_id: str, ctx: Any, error: str | None) -> str:
    """One line for a run: ``remind_3: success`` / ``failure at LABEL [ID]: REASON`` / error."""
    if error:
        return f"{episode_id}: error · {_one_line(error)}"
    status = getattr(getattr(ctx, "status", None), "value", "?")
    failure = getattr(ctx, "failure", None)
    if failure is not None and status != "success":
        return f"{episode_id}: {status} at {failure.label} [{failure.node_id}]: {failure.reason}"
    return f"{episode_id}: {status}"


def _one_line(error: str) -> str:
    """An error's first line; when it only introduces a list (``...: (1 error, 0 warnings):``),
    with the first item and its fix, so a summary line still says what to change."""
    lines = [line.strip() for line in error.splitlines() if line.strip()]
    if not lines:
        return error
    head = lines[0]
    if head.endswith(":") and len(lines) > 1:
        head = f"{head} {lines[1].removeprefix('- ')}"
        if len(lines) > 2 and lines[2].startswith("fix:"):
            head = f"{head} · {lines[2]}"
    return head


def _bound_text(target: str, result: Any, source: str) -> str:
    """What ``%behavior compile`` bound: the name, what it holds and what to do next."""
    verified = "verified" if getattr(result, "ok", False) else "NOT verified"
    package = getattr(result, "package", None)
    needs = ", ".join(getattr(package, "required_capabilities", None) or []) or "none"
    inputs = (
        ", ".join(
            ((getattr(package, "manifest", None) or {}).get("source") or {}).get("inputs") or []
        )
        or "none"
    )
    return (
        f"{target} = the compile result of {source} ({verified}; {target}.package is the "
        f"package, {target}.ir its tree). Tools it needs: {needs}; run inputs: {inputs}. "
        f"Run it with %behavior run {target} --input KEY=VALUE ..."
    )


def _say(text: str) -> None:
    display(
        {"text/plain": text, "text/html": f"<div class='jdsl-note'>{_esc(text)}</div>"}, raw=True
    )


def _esc(text: str) -> str:
    import html

    return html.escape(text)


def _nodes(root: Any) -> Any:
    walk = getattr(root, "walk", None)
    return walk() if callable(walk) else iter(())


def _show(obj: Any) -> None:
    display({"text/plain": hooks.text_view(obj), "text/html": hooks.html_view(obj)}, raw=True)
