"""ProviderRegistry: unique names, exact unregister handles, the selection order."""

from __future__ import annotations

import pytest
from jdsl.errors import BindingError
from jdsl.providers import ProviderRegistry
from jdsl.testing import ScriptedModel


def test_register_and_get_by_name():
    registry, model = ProviderRegistry(), ScriptedModel("a")
    registry.register("local", model)
    assert registry.get("local") is model and registry.names() == ("local",)


@pytest.mark.parametrize("name", ["", "  "])
def test_empty_names_are_rejected(name):
    with pytest.raises(BindingError, match="non-empty"):
        ProviderRegistry().register(name, ScriptedModel("a"))


def test_duplicate_names_are_rejected():
    registry = ProviderRegistry()
    registry.register("local", ScriptedModel("a"))
    with pytest.raises(BindingError, match="already registered"):
        registry.register("local", ScriptedModel("b"))


def test_a_model_needs_converse():
    with pytest.raises(BindingError, match="converse"):
        ProviderRegistry().register("x", object())  # type: ignore[arg-type]


def test_unregister_removes_only_its_own_registration():
    registry = ProviderRegistry()
    remove_first = registry.register("local", ScriptedModel("a"))
    assert remove_first() is True and remove_first() is False
    second = ScriptedModel("b")
    registry.register("local", second)
    assert remove_first() is False  # a stale handle leaves the new entry alone
    assert registry.get("local") is second


def test_get_without_a_name_needs_exactly_one_entry():
    registry = ProviderRegistry()
    with pytest.raises(BindingError, match="PROVIDER_NOT_FOUND"):
        registry.get()
    only = ScriptedModel("a")
    registry.register("one", only)
    assert registry.get() is only
    registry.register("two", ScriptedModel("b"))
    with pytest.raises(BindingError, match="2 providers"):
        registry.get()
    with pytest.raises(BindingError, match="no provider named 'three'"):
        registry.get("three")


def test_selection_order():
    a, b, c = ScriptedModel("a"), ScriptedModel("b"), ScriptedModel("c")
    registry = ProviderRegistry(default="fallback")
    registry.register("claude", a, prefixes=["claude-"])
    registry.register("claude_opus", b, prefixes=["claude-opus"])
    registry.register("fallback", c)
    assert registry.lookup("claude-x", provider="fallback") is c  # 1. the request names it
    assert registry.lookup("claude:claude-opus-4") is a  # 1. a name qualifier
    assert registry.lookup("claude-opus-4") is b  # 2. the longest prefix
    assert registry.lookup("claude-haiku") is a
    assert registry.lookup("gpt-4o") is c  # 3. the registry default


def test_no_silent_fallback_without_a_default():
    registry = ProviderRegistry()
    only = ScriptedModel("a")
    registry.register("local", only, prefixes=["llama"])
    assert registry.lookup() is only  # 4. the sole entry, only with no model id
    assert registry.find("gpt-4o") is None
    with pytest.raises(BindingError, match="no provider serves model id 'gpt-4o'"):
        registry.lookup("gpt-4o")
