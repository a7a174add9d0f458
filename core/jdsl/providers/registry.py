"""ProviderRegistry: named models, looked up in the selection order of reference ditto.md §3.

A registry is an instance (there is no global one). Selection order of :meth:`lookup`:

1. the provider the request names: ``provider=`` or a ``name:`` qualifier on the model id
   (``"local:llama3"``) naming a registered entry;
2. an entry registered with a prefix the model id starts with (the longest prefix wins);
3. the registry's ``default`` entry, when one was set;
4. the single registered entry, but only when no model id is given.

A model id that none of these select is *not* sent to some other entry: :meth:`find` returns
None (and :func:`jdsl.providers.resolve_model` then applies its vendor prefixes), :meth:`lookup`
raises :class:`jdsl.errors.BindingError`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from jdsl.errors import BindingError
from jdsl.providers.messages import LanguageModel

__all__ = ["ProviderRegistry", "Unregister"]

Unregister = Callable[[], bool]


@dataclass(frozen=True, eq=False)
class _Entry:
    name: str
    model: LanguageModel
    prefixes: tuple[str, ...]


class ProviderRegistry:
    """Models by name, with optional model-id prefixes and a default.

    Args:
        default: the name of the entry that serves model ids no name or prefix selects.

    Example:
        >>> from jdsl.testing import ScriptedModel  # doctest: +SKIP
        >>> registry = ProviderRegistry()
        >>> remove = registry.register("local", ScriptedModel("hi"), prefixes=["llama"])  # doctest: +SKIP
        >>> registry.lookup("llama3")  # doctest: +SKIP
    """

    def __init__(self, *, default: str | None = None) -> None:
        self.default = default
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    def register(
        self, name: str, model: LanguageModel, *, prefixes: Sequence[str] = ()
    ) -> Unregister:
        """Add a model under a unique, non-empty name.

        Args:
            name: the provider name (``"anthropic"``, ``"local"``...).
            model: any object with ``converse``.
            prefixes: model-id prefixes this entry serves (``["claude-"]``).

        Returns:
            A function that removes exactly this registration: True the first time, then False
            (also False when the name was since re-registered by someone else).

        Raises:
            BindingError: the name is empty or already registered, or the model has no converse.
        """
        if not name or not name.strip():
            raise BindingError("a provider name must be a non-empty string", kind="model")
        if not callable(getattr(model, "converse", None)):
            raise BindingError(
                f"provider {name!r} has no converse(system, messages, tools, model_id) method",
                name=name,
                kind="model",
            )
        entry = _Entry(name, model, tuple(prefixes))
        with self._lock:
            if name in self._entries:
                raise BindingError(
                    f"provider {name!r} is already registered; unregister it first or pick "
                    "another name",
                    name=name,
                    kind="model",
                    available=self.names(),
                )
            self._entries[name] = entry

        def unregister() -> bool:
            with self._lock:
                if self._entries.get(name) is entry:
                    del self._entries[name]
                    return True
                return False

        return unregister

    def names(self) -> tuple[str, ...]:
        """Registered names, sorted."""
        return tuple(sorted(self._entries))

    def get(self, name: str | None = None) -> LanguageModel:
        """The entry with this exact name; with no name, the only entry.

        Raises:
            BindingError: no such name, or no name given and not exactly one entry.
        """
        entries = dict(self._entries)
        if name is None:
            if len(entries) == 1:
                return next(iter(entries.values())).model
            raise self._not_found(None, f"{len(entries)} providers are registered; name one")
        if name not in entries:
            raise self._not_found(name, f"no provider named {name!r}")
        return entries[name].model

    def find(
        self, model_id: str | None = None, *, provider: str | None = None
    ) -> LanguageModel | None:
        """The entry the selection order picks, or None when none is selected."""
        entries = dict(self._entries)
        if provider is not None:
            return self.get(provider)
        if model_id and ":" in model_id and model_id.split(":", 1)[0] in entries:
            return entries[model_id.split(":", 1)[0]].model
        if model_id:
            matches = [
                (len(p), e) for e in entries.values() for p in e.prefixes if model_id.startswith(p)
            ]
            if matches:
                return max(matches, key=lambda m: m[0])[1].model
        if self.default is not None:
            return self.get(self.default)
        if model_id is None and len(entries) == 1:
            return next(iter(entries.values())).model
        return None

    def lookup(self, model_id: str | None = None, *, provider: str | None = None) -> LanguageModel:
        """Like :meth:`find`, but raises when nothing is selected.

        Raises:
            BindingError: nothing selected (``PROVIDER_NOT_FOUND``).
        """
        model = self.find(model_id, provider=provider)
        if model is None:
            raise self._not_found(model_id, f"no provider serves model id {model_id!r}")
        return model

    def _not_found(self, name: str | None, what: str) -> BindingError:
        hint = "register one with registry.register(name, model, prefixes=[...])"
        return BindingError(
            f"PROVIDER_NOT_FOUND: {what}; registered: {list(self.names()) or 'none'}; {hint}",
            name=name or "",
            kind="model",
            available=self.names(),
        )
