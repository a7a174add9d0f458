"""The compiler's typed error: input it refuses to compile."""

from __future__ import annotations

from collections.abc import Sequence

from jdsl.errors import JdslError

__all__ = ["CompileError", "CompileInputError", "NoReferenceError"]


class CompileError(JdslError, ValueError):
    """Episodes the compiler refuses: none succeeded, or a trace's hash chain is broken.

    Attributes:
        episodes: the ids of the episodes at fault (empty when none is singled out).
        problems: one line per problem found.
    """

    def __init__(
        self, message: str, *, episodes: Sequence[str] = (), problems: Sequence[str] = ()
    ) -> None:
        self.episodes = tuple(episodes)
        self.problems = tuple(problems)
        super().__init__(message)

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle with the keyword fields (the error crosses to a Dask client intact)."""
        return (_rebuild, (type(self), str(self), self.episodes, self.problems))


class CompileInputError(CompileError, TypeError):
    """Compiler input of a form it cannot read (``None``, a number, a mapping that is no
    episode); the message names the forms it takes. Subclasses ``TypeError`` too, so
    ``except TypeError`` keeps working."""


class NoReferenceError(CompileError):
    """Held-out validation given no reference: every run failed (a failed run is listed, never
    compared), so nothing says what the package should have done; ``episodes`` names them."""


def _rebuild(
    cls: type[CompileError], message: str, episodes: Sequence[str], problems: Sequence[str]
) -> CompileError:
    return cls(message, episodes=episodes, problems=problems)
