"""Every error jdsl raises, rooted at :class:`JdslError`.

The tree::

    JdslError
    ├── AuthoringError           a Python authoring builder given a bad argument (also TypeError)
    ├── BehaviorSyntaxError      behavior text that does not parse (line, col, hint)
    ├── BindingError             a tool / predicate / model name with no binding, or bound twice
    ├── RefError                 a ref whose key or path is not on the blackboard
    ├── RunArgumentError         a run argument it cannot take, e.g. episode_id="" (also ValueError)
    ├── InputError               a KEY=VALUE run input that is malformed or does not fit its type
    ├── SignatureError           a malformed "a, b -> c: int" signature
    ├── ModelOutputError         model output that cannot be parsed or validated
    ├── ValidationError          Behavior IR that breaks a structural rule
    │   └── BehaviorCheckError   a tree the static check rejects before its run (report)
    ├── PackageError             a behavior package that cannot be exported, loaded or trusted
    ├── PermissionDenied         the sandbox refused a file, command, origin, server or skill
    ├── ToolError                a tool call that cannot be made (bad arguments, bad result)
    │   ├── RecordedToolFailure  compiler.replay: the replay of a call that raised when recorded
    │   └── RetailToolError      envs.tau_retail.tree_tools: a call the retail environment refused
    ├── MissingDependencyError   an optional dependency (an extra) is not installed
    │   └── MissingWeightsError  providers.local_weights: a local: model's pinned weights missing
    ├── MissingDirectoryError    an output path whose directory does not exist (also FileNotFoundError)
    ├── SettingsError            settings: a settings file that is not valid
    ├── UnsafeSchemaError        interaction.schemas: a JSON Schema outside the safe subset
    ├── ActorError               trace.events: an event actor that is not one of ACTORS
    ├── TraceFormatError         trace.reader: a trace file line that is not a JSON trace event
    ├── TraceNotFoundError       trace.reader: a trace path that does not exist
    ├── TracePathError           trace.jsonl: a trace file path a JsonlTraceSink cannot write
    ├── OutputPathError          trace.filenames: a file name from data that would leave its output directory
    ├── BlobError                trace.blobs: a blob ref the store cannot give back
    │   ├── CorruptBlobError     a stored blob whose bytes do not hash to its ref
    │   └── MissingBlobError     a blob ref that is not in the store
    ├── RequestMessagesError     trace.messages: a model request whose whole message list cannot be rebuilt
    ├── OtelExportError          trace.otel.export: spans not delivered to an OTLP endpoint
    ├── RetrievalError           flows.documents: a bad document, query, strategy or index file
    ├── Fts5Unavailable          flows.fts: SQLite without FTS5, and no pysqlite3
    ├── ImportFormatError        importers.common: a foreign trace file of the wrong format
    ├── CompileError             compiler.errors: episodes the compiler refuses
    │   ├── CompileInputError    compiler input of a form it cannot read
    │   └── NoReferenceError     held-out validation given no successful run to compare with
    ├── CallDivergence           compiler.replay: a call that is not the next recorded one
    ├── DataNotFoundError        envs.data: a package-data file that does not exist
    ├── NoFamilyRunsError        commands.families: traces with no run of the package's family
    ├── InitialStateMismatchError commands.validate: an --initial-state of another domain than the runs
    ├── RepeatedEpisodeError     commands.repeats: one episode id given again with other events
    ├── TeacherModelError        demo.teacher: a question the offline teacher does not answer
    └── ProviderError            a model provider failed
        ├── AuthenticationError
        ├── RateLimitError       (retry_after_s)
        ├── ProviderTimeout
        ├── ContextWindowExceeded
        ├── BadRequest
        ├── ServerError
        └── ReplayDivergence     providers.replay: a model call matching no recorded call

The classes defined here are the ones every layer raises; a class named with a module
(``trace.reader: ...``) is defined in ``jdsl.<module>``, beside the code that raises it
(``tests/runtime/test_error_tree.py`` checks this drawing against the classes that exist).

Every error carries structured fields and a message that names the offending thing and the fix.
No name shadows a built-in (there is no ``TimeoutError`` here).
"""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from typing import Any, Final

__all__ = [
    "AuthenticationError",
    "AuthoringError",
    "BadRequest",
    "BehaviorCheckError",
    "BehaviorSyntaxError",
    "BindingError",
    "ContextWindowExceeded",
    "InputError",
    "JdslError",
    "MissingDependencyError",
    "MissingDirectoryError",
    "ModelOutputError",
    "PackageError",
    "PermissionDenied",
    "ProviderError",
    "ProviderTimeout",
    "RateLimitError",
    "RefError",
    "RunArgumentError",
    "ServerError",
    "SignatureError",
    "ToolError",
    "ValidationError",
    "preview",
]


class JdslError(Exception):
    """Base class of every error jdsl raises."""


class AuthoringError(JdslError, TypeError):
    """A Python authoring builder (``act``, ``seq``, ``store``, ``>>``, ``root(...).do``, ...)
    given an argument it cannot take: the wrong type, an empty name, a second child.

    Raised when the tree is built, not when it runs. Subclasses ``TypeError`` too, so
    ``except TypeError`` around authoring code keeps working.

    Attributes:
        builder: the builder at fault, e.g. ``"act"``, ``"Root.do"``.
        argument: the argument at fault, e.g. ``"fn"``, ``"key"``.
    """

    def __init__(self, message: str, *, builder: str, argument: str = "") -> None:
        self.builder = builder
        self.argument = argument
        super().__init__(message)


class BehaviorSyntaxError(JdslError):
    """Behavior text that does not parse.

    Attributes:
        line: 1-based line number of the offending text.
        col: 1-based column number.
        hint: how to fix the line.
        source_line: the text of that line, when known.
    """

    def __init__(
        self, message: str, *, line: int, col: int, hint: str = "", source_line: str = ""
    ) -> None:
        self.message = message
        self.line = line
        self.col = col
        self.hint = hint
        self.source_line = source_line
        text = f"line {line}, col {col}: {message}"
        if source_line:
            text += f"\n    {source_line}\n    {' ' * max(col - 1, 0)}^"
        if hint:
            text += f"\n  hint: {hint}"
        super().__init__(text)


class BindingError(JdslError):
    """A tool, predicate or model name that is not bound, or is bound to two callables.

    Attributes:
        name: the unbound or conflicting name.
        kind: "tool", "predicate" or "model".
        available: names that are bound, to suggest the closest.
    """

    def __init__(
        self, message: str, *, name: str = "", kind: str = "tool", available: Sequence[str] = ()
    ) -> None:
        self.name = name
        self.kind = kind
        self.available = tuple(available)
        super().__init__(message)


class RefError(JdslError, KeyError):
    """A ref whose key or path is not on the blackboard.

    Subclasses ``KeyError`` too, so ``except KeyError`` in user code keeps working.

    Attributes:
        path: the ref path, e.g. ``orders[$selected_index].id``.
        missing: the first step of the path that was absent.
    """

    def __init__(self, message: str, *, path: str, missing: str = "") -> None:
        self.path = path
        self.missing = missing or path
        self.message = message
        super().__init__(message)

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.message


class RunArgumentError(JdslError, ValueError):
    """An argument a run cannot take (``Root.run``, :class:`~jdsl.tree.RunContext`): an
    ``episode_id`` or ``capture_id`` that is empty or not a str. Raised before the run starts.

    Attributes:
        argument: the argument at fault, e.g. ``"episode_id"``.
    """

    def __init__(self, message: str, *, argument: str) -> None:
        self.argument = argument
        super().__init__(message)


class InputError(JdslError, ValueError):
    """A ``KEY=VALUE`` run input (``--input``, the notebook's ``%behavior --input``) that is
    not ``KEY=VALUE``, holds bad JSON after ``:=``, or does not fit the type its reader records.

    Attributes:
        key: the input key at fault (empty when the item has none).
    """

    def __init__(self, message: str, *, key: str = "") -> None:
        self.key = key
        super().__init__(message)


class SignatureError(JdslError, ValueError):
    """A malformed signature string such as ``"a, b"`` (no ``->``) or an unknown type.

    Attributes:
        signature: the offending text.
    """

    def __init__(self, message: str, *, signature: str = "") -> None:
        self.signature = signature
        super().__init__(message)


class ModelOutputError(JdslError):
    """Model output that cannot be parsed or does not validate against the signature.

    Attributes:
        raw: the model's raw text.
        field: the output field that failed, when one did.
    """

    def __init__(self, message: str, *, raw: str = "", field: str | None = None) -> None:
        self.raw = raw
        self.field = field
        super().__init__(message)


class ValidationError(JdslError):
    """Behavior IR that breaks one or more structural rules.

    Attributes:
        problems: every problem found, one string each.
    """

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        head = f"{len(self.problems)} problem(s) in the Behavior IR"
        super().__init__(head + ":\n  - " + "\n  - ".join(self.problems))


class BehaviorCheckError(ValidationError):
    """A tree the static check (:func:`jdsl.tree.check.check_tree`) rejects before it runs.

    Attributes:
        report: the whole :class:`~jdsl.tree.check.CheckReport` (errors and warnings).
        problems: one string per error.
    """

    def __init__(self, report: Any) -> None:
        self.report = report
        super().__init__([str(p) for p in report.errors])
        self.args = (
            f"the tree does not pass its static check ({report.summary()}):\n"
            + "\n".join(f"  - {p}" for p in report.errors),
        )

    def __str__(self) -> str:
        return str(self.args[0])


class PackageError(JdslError):
    """A behavior package that cannot be exported, loaded, verified or bound.

    Attributes:
        path: the package file or member that is at fault, when one is.
    """

    def __init__(self, message: str, *, path: str | None = None) -> None:
        self.path = path
        super().__init__(message)


class PermissionDenied(JdslError):
    """The sandbox refused an operation that was not granted.

    Attributes:
        category: "file.read", "file.write", "execute", "network", "tool", "mcp" or "skill".
        target: what was asked for (a path, a command, an origin, a name).
    """

    def __init__(self, category: str, target: str, *, hint: str = "") -> None:
        self.category = category
        self.target = target
        message = f"{category} permission denied for {target!r}"
        message += (
            f"; {hint}" if hint else f"; grant it with Sandbox(grants={{'{category}': [...]}})"
        )
        super().__init__(message)


class ToolError(JdslError):
    """A tool call that cannot be made: unknown tool, bad arguments or an invalid result.

    Attributes:
        tool: the tool's host name.
        code: a stable machine-readable code such as ``INVALID_ARGUMENTS``.
    """

    def __init__(self, message: str, *, tool: str = "", code: str = "TOOL_ERROR") -> None:
        self.tool = tool
        self.code = code
        super().__init__(message)


class MissingDependencyError(JdslError, ImportError):
    """An optional dependency is not installed.

    Attributes:
        package: the import name that failed.
        extra: the ``jdsl[extra]`` that installs it.
    """

    def __init__(self, package: str, extra: str) -> None:
        self.package = package
        self.extra = extra
        super().__init__(
            f"{package!r} is not installed; install it with: pip install 'jdsl[{extra}]'"
        )


class MissingDirectoryError(JdslError, FileNotFoundError):
    """An output path (``-o``, ``--out``, ``--trace``) whose directory does not exist.

    The command line writes where it is told and creates no directories on the way, so a typo
    in the path writes nothing. Subclasses ``FileNotFoundError`` too.

    Attributes:
        path: the output path given.
        directory: its parent, which does not exist.
        option: the flag that gave the path, e.g. ``"-o"``.
    """

    def __init__(self, path: str, directory: str, *, option: str) -> None:
        self.path = path
        self.directory = directory
        self.option = option
        super().__init__(
            f"{option} {path}: the directory {directory} does not exist; create it first "
            f"(mkdir -p {directory}) or pass a path in an existing directory"
        )
        self.filename = path

    def __str__(self) -> str:  # OSError would print "[Errno None] None: path"
        return str(self.args[0])

    def __reduce__(self) -> tuple[object, ...]:
        return (_missing_directory, (self.path, self.directory, self.option))


def _missing_directory(path: str, directory: str, option: str) -> MissingDirectoryError:
    return MissingDirectoryError(path, directory, option=option)


class ProviderError(JdslError):
    """A model provider failed. Messages never contain API keys or raw response bodies.

    Attributes:
        provider: "anthropic", "openai", "gemini", ...
        status_code: the HTTP status, when there was one.
        retryable: whether retrying the same request may succeed.
    """

    retryable: bool = False

    def __init__(
        self, message: str, *, provider: str = "", status_code: int | None = None, **extra: Any
    ) -> None:
        self.provider = provider
        self.status_code = status_code
        for key, value in extra.items():
            setattr(self, key, value)
        super().__init__(message)


class AuthenticationError(ProviderError):
    """The provider rejected the credentials (HTTP 401/403)."""


class RateLimitError(ProviderError):
    """The provider asked us to slow down (HTTP 429).

    Attributes:
        retry_after_s: seconds to wait, from the Retry-After header, when given.
    """

    retryable = True

    def __init__(self, message: str, *, retry_after_s: float | None = None, **kw: Any) -> None:
        self.retry_after_s = retry_after_s
        super().__init__(message, **kw)


class ProviderTimeout(ProviderError):
    """The request timed out or the stream ended before it was complete."""

    retryable = True


class ContextWindowExceeded(ProviderError):
    """The prompt does not fit the model's context window."""


class BadRequest(ProviderError):
    """The provider rejected the request as malformed (HTTP 400/404/422)."""


class ServerError(ProviderError):
    """The provider failed on its side (HTTP 5xx) or returned malformed data."""

    retryable = True


def preview(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters (with ``...``), for messages.

    Safe on hostile values: nested containers are shown three levels deep and a few items
    wide (``reprlib``), and an int too long to print or a structure too deep to repr shows as
    ``<int>`` / ``<dict>``, so a message never costs more than its length.
    """
    try:
        text = _PREVIEW.repr(value)
    except (ValueError, RecursionError):  # an int over the digit limit, a cycle too deep
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _preview_repr() -> reprlib.Repr:
    shown = reprlib.Repr()
    shown.maxlevel, shown.maxstring, shown.maxother, shown.maxlong = 3, 80, 80, 40
    shown.maxdict = shown.maxlist = shown.maxtuple = shown.maxset = 6
    return shown


_PREVIEW: Final = _preview_repr()  # configured once, read-only afterwards
