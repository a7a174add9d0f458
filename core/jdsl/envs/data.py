"""Read the package data (real tau-bench data shipped in :mod:`jdsl.data`).

Everything goes through :mod:`importlib.resources`, so an editable checkout, a wheel and a Binder
image all find the same files. Paths are given as parts relative to the ``jdsl.data`` package::

    load_json("tau_retail", "tasks.json")          # the 635 retail tasks
    data_path("tau_airline", "episodes.json")      # a Traversable

The data is third-party (tau-bench v1, MIT, Copyright (c) 2024 Sierra): see
``data_path("LICENSE-tau-bench")`` and ``data_path("README.md")``.
"""

from __future__ import annotations

import json
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from jdsl.errors import JdslError

__all__ = ["DATA_PACKAGE", "DataNotFoundError", "data_path", "load_json", "read_text"]

DATA_PACKAGE = "jdsl.data"


class DataNotFoundError(JdslError, FileNotFoundError):
    """A package-data file that does not exist.

    Attributes:
        parts: the path parts that were asked for, relative to ``jdsl.data``.
    """

    def __init__(self, parts: tuple[str, ...]) -> None:
        self.parts = parts
        super().__init__(
            f"no package data file {'/'.join(parts)!r} in {DATA_PACKAGE}; the shipped folders are "
            "tau_retail/ and tau_airline/ (reinstall jdsl if they are missing)"
        )


def data_path(*parts: str) -> Traversable:
    """The package-data resource at ``parts`` (e.g. ``"tau_retail", "db", "users.json"``).

    Args:
        *parts: path segments relative to the ``jdsl.data`` package; none gives its root.

    Returns:
        A :class:`~importlib.resources.abc.Traversable` (``read_text()``, ``read_bytes()``,
        ``iterdir()``); on a plain install it is also a :class:`pathlib.Path`.

    Raises:
        DataNotFoundError: when no such file or folder is shipped, or a part is not one plain
            name (empty, ``.``, ``..``, or holding ``/``, ``\\`` or NUL): data a caller read from
            a file (a tau-bench ``domain``) can never name a path outside ``jdsl.data``.
    """
    if not all(_plain(part) for part in parts):
        raise DataNotFoundError(tuple(parts))
    resource = resources.files(DATA_PACKAGE)
    for part in parts:
        resource = resource.joinpath(part)
    if parts and not (resource.is_file() or resource.is_dir()):
        raise DataNotFoundError(tuple(parts))
    return resource


def _plain(part: object) -> bool:
    return (
        isinstance(part, str)
        and part not in ("", ".", "..")
        and not any(c in part for c in "/\\\x00")
    )


def read_text(*parts: str) -> str:
    """The UTF-8 text of a package-data file (see :func:`data_path` for ``parts``)."""
    return data_path(*parts).read_text(encoding="utf-8")


def load_json(*parts: str) -> Any:
    """Parse a package-data JSON file; every call returns a fresh object.

    Raises:
        DataNotFoundError: when the file is not shipped.
    """
    return json.loads(read_text(*parts))
