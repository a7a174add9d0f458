"""Names a package exports but imports only on first use (PEP 562 module ``__getattr__``).

``jdsl``, ``jdsl.commands``, ``jdsl.cli`` and ``jdsl_nb`` each list where their public names
live; :func:`lazy_getattr` turns that table into the package's ``__getattr__``, so importing
the package stays cheap and a name's module is imported when the name is first read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: a name of ``homes`` is read from its module,
    imported on first use; any other name raises :class:`AttributeError` as Python's would.

    Example:
        >>> __getattr__ = lazy_getattr("demo", {"dumps": "json"})
        >>> __getattr__("dumps")([1])
        '[1]'
        >>> __getattr__("loads")
        Traceback (most recent call last):
        ...
        AttributeError: module 'demo' has no attribute 'loads'
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(home), name)

    return __getattr__
