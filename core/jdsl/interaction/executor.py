"""LocalExecutor: run allowlisted commands as child processes, never through a shell.

The child gets a closed stdin, the workspace as cwd and a minimal environment (``PATH`` plus
what the caller passes). On a timeout, cancellation or output over the cap the whole process
group is killed with SIGKILL and reaped, and :class:`jdsl.errors.ToolError` is raised; oversized
output is never returned as a truncated success. A nonzero exit is an ordinary ``exit_code``.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence

from jdsl.errors import PermissionDenied, ToolError
from jdsl.interaction.cancel import is_cancelled
from jdsl.interaction.sandbox import CommandResult

__all__ = ["DEFAULT_PATH", "LocalExecutor"]

DEFAULT_PATH = "/usr/bin:/bin"
_POLL_S = 0.05


class LocalExecutor:
    """Run allowlisted commands locally (see the module docstring).

    Args:
        commands: allowed executables: bare names (looked up on ``PATH``) or absolute paths.
        timeout_s: wall-clock limit per command, seconds.
        max_output_bytes: cap on stdout + stderr together, bytes.
        env: extra environment variables; the parent environment is not inherited.
        path: the ``PATH`` the child sees.

    Raises:
        ValueError: a relative command path (``./x``), or non-positive limits.

    Example:
        >>> executor = LocalExecutor(["ls", "cat"], timeout_s=2.0)
    """

    def __init__(
        self,
        commands: Sequence[str],
        *,
        timeout_s: float = 5.0,
        max_output_bytes: int = 65536,
        env: Mapping[str, str] | None = None,
        path: str = DEFAULT_PATH,
    ) -> None:
        for command in commands:
            if not command or ("/" in command and not os.path.isabs(command)):
                raise ValueError(
                    f"command {command!r} must be a bare executable name or an absolute path"
                )
        if timeout_s <= 0 or max_output_bytes <= 0:
            raise ValueError("timeout_s and max_output_bytes must be positive")
        self.commands = frozenset(commands)
        self.timeout_s = timeout_s
        self.max_output_bytes = max_output_bytes
        self.env = {"PATH": path, **dict(env or {})}

    def run(
        self, command: str, args: Sequence[str], *, cwd: str, cancel: object | None = None
    ) -> CommandResult:
        """Run ``command args...`` in ``cwd`` and return its exit code and output.

        Raises:
            PermissionDenied: ``command`` is not allowlisted.
            ToolError: code ``COMMAND_NOT_FOUND``, ``COMMAND_TIMEOUT``, ``CANCELLED`` or
                ``OUTPUT_LIMIT`` (the child has been killed and reaped for the last three).
        """
        if command not in self.commands:
            raise PermissionDenied(
                "execute", command, hint="add it to LocalExecutor(commands=[...])"
            )
        argv = [command, *args]
        if is_cancelled(cancel):
            raise ToolError(f"{command!r} was cancelled before it ran", code="CANCELLED")
        try:
            child = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=self.env,
                shell=False,
                start_new_session=True,
                executable=self._executable(command),
            )
        except FileNotFoundError:
            raise ToolError(
                f"command {command!r} was not found on PATH {self.env['PATH']!r}",
                tool=command,
                code="COMMAND_NOT_FOUND",
            ) from None
        try:
            stdout, stderr = self._collect(child, command, cancel)
        finally:
            for stream in (child.stdout, child.stderr):
                if stream is not None:
                    stream.close()
        return CommandResult(command, args, child.wait(), stdout, stderr)

    def _executable(self, command: str) -> str:
        if os.path.isabs(command):
            return command
        for folder in self.env["PATH"].split(os.pathsep):
            candidate = os.path.join(folder, command)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
        raise ToolError(
            f"command {command!r} was not found on PATH {self.env['PATH']!r}",
            tool=command,
            code="COMMAND_NOT_FOUND",
        )

    def _collect(
        self, child: subprocess.Popen[bytes], command: str, cancel: object | None
    ) -> tuple[bytes, bytes]:
        assert child.stdout is not None and child.stderr is not None
        chunks: dict[int, list[bytes]] = {1: [], 2: []}
        total = 0
        deadline = time.monotonic() + self.timeout_s
        with selectors.DefaultSelector() as selector:
            selector.register(child.stdout, selectors.EVENT_READ, 1)
            selector.register(child.stderr, selectors.EVENT_READ, 2)
            while selector.get_map():
                problem = self._problem(command, deadline, cancel, total)
                if problem is not None:
                    _kill(child)
                    raise problem
                for key, _ in selector.select(_POLL_S):
                    data = os.read(key.fd, 65536)
                    if not data:
                        selector.unregister(key.fileobj)
                        continue
                    chunks[key.data].append(data)
                    total += len(data)
        problem = self._problem(command, deadline, cancel, total)
        if problem is not None:
            _kill(child)
            raise problem
        return b"".join(chunks[1]), b"".join(chunks[2])

    def _problem(
        self, command: str, deadline: float, cancel: object | None, total: int
    ) -> ToolError | None:
        if total > self.max_output_bytes:
            return ToolError(
                f"{command!r} wrote more than {self.max_output_bytes} bytes; narrow the request",
                tool=command,
                code="OUTPUT_LIMIT",
            )
        if is_cancelled(cancel):
            return ToolError(f"{command!r} was cancelled", tool=command, code="CANCELLED")
        if time.monotonic() > deadline:
            return ToolError(
                f"{command!r} ran longer than {self.timeout_s} s",
                tool=command,
                code="COMMAND_TIMEOUT",
            )
        return None


def _kill(child: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child's process group and reap it."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    child.wait()
