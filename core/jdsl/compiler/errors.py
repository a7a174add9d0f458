"""The compiler's typed error: input it refuses to compile."""

from __future__ import annotations

from collections.abc import Sequence

from jdsl.errors import JdslError

__all__ = ["CompileError"]


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
        return (_rebuild, (str(self), self.episodes, self.problems))


def _rebuild(message: str, episodes: Sequence[str], problems: Sequence[str]) -> CompileError:
    return CompileError(message, episodes=episodes, problems=problems)
