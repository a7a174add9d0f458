"""resolve_model: a model id -> a ready adapter, with keys from the environment or ``.env``.

Model ids and where they go (never a silent fallback to another vendor):

| model id | adapter | key | base URL |
| --- | --- | --- | --- |
| ``claude-*`` | AnthropicModel | ``ANTHROPIC_API_KEY`` | ``ANTHROPIC_BASE_URL`` |
| ``gpt-*``, ``o1*``, ``o3*``, ``o4*``, ``chatgpt-*`` | OpenAIModel | ``OPENAI_API_KEY`` | ``OPENAI_BASE_URL`` |
| ``gemini-*`` | GeminiModel | ``GEMINI_API_KEY`` or ``GOOGLE_API_KEY`` | ``GOOGLE_GEMINI_BASE_URL`` |
| ``deepseek-*`` | OpenAIModel | ``DEEPSEEK_API_KEY`` | ``DEEPSEEK_BASE_URL`` or https://api.deepseek.com |
| ``openai-compatible:<model>@<base_url>`` | OpenAIModel | ``OPENAI_COMPATIBLE_API_KEY`` (optional) | the URL in the id |
| ``openai-compatible:<model>`` | OpenAIModel | ``OPENAI_COMPATIBLE_API_KEY`` (optional) | ``OPENAI_COMPATIBLE_BASE_URL`` |
| ``local:<name>`` (``smollm2-135m``, ``qwen2.5-coder-0.5b``, a ``.gguf`` path) | LocalModel | none | a managed llama.cpp server on 127.0.0.1 (extra ``jdsl[local]``) |

A base URL variable read from a ``.env`` file in the current directory is used only when the
same ``.env`` also holds the key sent with it: a ``.env`` (say, in a cloned repository) that
sets ``ANTHROPIC_BASE_URL`` while the real key comes from the environment is refused
(``BindingError``), so it cannot send that key to another host.

An ``openai-compatible`` id needs a base URL (in the id, ``settings`` or the variable), so it
never goes to OpenAI's own endpoint; the text after the id's last ``@`` must be an http(s) URL
(a model name may hold ``@`` when the URL follows it).

A vendor qualifier forces the vendor whatever the model's name: ``anthropic:<model>``,
``openai:<model>``, ``gemini:<model>``, ``deepseek:<model>``. The explicit OpenAI-compatible
form never sends ``OPENAI_API_KEY`` to a third-party server: its key is
``OPENAI_COMPATIBLE_API_KEY``, or the placeholder ``"EMPTY"`` that local servers (vLLM, Ollama,
LM Studio) ignore. Explicit ``settings`` (key, base URL, retries, timeout, generation) win over
the environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jdsl.errors import AuthenticationError, BindingError
from jdsl.providers.messages import LanguageModel
from jdsl.providers.registry import ProviderRegistry
from jdsl.providers.settings import ProviderSettings, read_env_sources

__all__ = [
    "COMPATIBLE",
    "DEEPSEEK_BASE_URL",
    "key_variables",
    "model_hint",
    "parse_model_id",
    "resolve_model",
    "wire_model_name",
]

COMPATIBLE = "openai-compatible"
LOCAL = "local"
DEEPSEEK_BASE_URL = "https://api.deepseek.com"


@dataclass(frozen=True)
class _Vendor:
    name: str
    keys: tuple[str, ...]
    base_env: str
    default_base: str | None = None
    key_optional: bool = False
    options: dict[str, Any] = field(default_factory=dict)


_VENDORS = {
    "anthropic": _Vendor("anthropic", ("ANTHROPIC_API_KEY",), "ANTHROPIC_BASE_URL"),
    "openai": _Vendor("openai", ("OPENAI_API_KEY",), "OPENAI_BASE_URL"),
    "gemini": _Vendor("gemini", ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "GOOGLE_GEMINI_BASE_URL"),
    "deepseek": _Vendor(
        "deepseek",
        ("DEEPSEEK_API_KEY",),
        "DEEPSEEK_BASE_URL",
        DEEPSEEK_BASE_URL,
        options={"max_tokens_field": "max_tokens", "provider_name": "deepseek"},
    ),
    COMPATIBLE: _Vendor(
        COMPATIBLE,
        ("OPENAI_COMPATIBLE_API_KEY",),
        "OPENAI_COMPATIBLE_BASE_URL",
        key_optional=True,
        options={"provider_name": COMPATIBLE},
    ),
}
_PREFIXES = (
    ("claude-", "anthropic"),
    ("gpt-", "openai"),
    ("chatgpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("gemini-", "gemini"),
    ("deepseek-", "deepseek"),
)
_FORMS = (
    "claude-*, gpt-*, o1*/o3*/o4*, chatgpt-*, gemini-*, deepseek-*, "
    "anthropic:<model>, openai:<model>, gemini:<model>, deepseek:<model>, "
    "openai-compatible:<model>@<base_url>, local:<name> (jdsl[local])"
)


def key_variables() -> dict[str, tuple[str, ...]]:
    """``{vendor: (API key variable, ...)}``, e.g. ``{"gemini": ("GEMINI_API_KEY",
    "GOOGLE_API_KEY"), ...}`` (what ``jdsl doctor`` checks, by name only)."""
    return {name: vendor.keys for name, vendor in _VENDORS.items()}


def model_hint(model_id: object) -> str | None:
    """A model id from someone else's file (a package's manifest or IR) as a bare provider
    model name: the ``@<base_url>`` of an ``openai-compatible`` id is dropped, so where the
    prompts and the key go comes only from the user's own ``--model``, settings and
    environment. None for an empty or non-string id.

    >>> model_hint("openai-compatible:llama@http://evil.example/v1")
    'openai-compatible:llama'
    """
    if not isinstance(model_id, str) or not model_id:
        return None
    head, sep, rest = model_id.partition(":")
    if sep and head == COMPATIBLE and "@" in rest:
        model, _, url = rest.rpartition("@")
        if url.startswith(("http://", "https://")):
            return f"{COMPATIBLE}:{model}" if model else None
    return model_id


def parse_model_id(model_id: str) -> tuple[str, str, str | None]:
    """(vendor, model, base URL from the id or None) for a model id.

    Raises:
        BindingError: the id is not a string, names no known vendor, or is an
            ``openai-compatible:`` id whose text after the last ``@`` is not an http(s) URL.
    """
    _require_text(model_id)
    head, sep, rest = model_id.partition(":")
    _require_name(model_id, head if sep and (head in _VENDORS or head == LOCAL) else "", rest)
    if sep and head == LOCAL and rest:
        return head, rest, None
    if sep and head in _VENDORS and rest:
        if head == COMPATIBLE and "@" in rest:
            return (head, *_split_compatible(model_id, rest))
        return head, rest, None
    for prefix, vendor in _PREFIXES:
        if model_id.startswith(prefix):
            return vendor, model_id, None
    raise BindingError(
        f"unknown model id {model_id!r}: no provider serves it. Use one of: {_FORMS}; "
        "or register a model in a ProviderRegistry and pass registry=...",
        name=model_id,
        kind="model",
    )


def wire_model_name(model_id: str) -> str:
    """The model name a server receives for a jdsl model id: the id without its vendor
    qualifier and base URL (``"openai-compatible:llama3.1@http://127.0.0.1:8080/v1"`` ->
    ``"llama3.1"``, ``"openai:gpt-4o"`` -> ``"gpt-4o"``, ``"local:smollm2-135m"`` ->
    ``"smollm2-135m"``); any other text is already a name and comes back unchanged
    (``"gpt-4o"``, an Ollama tag such as ``"llama3.1:8b"``).

    The adapters apply it to every per-call ``model_id``, so a tree that passes its root's id
    (``root(model=...)``, ``jdsl run --model``) sends the name, not jdsl's id string.
    """
    head, sep, rest = model_id.partition(":")
    if not (sep and rest and (head in _VENDORS or head == LOCAL)):
        return model_id
    if head == COMPATIBLE and "@" in rest:
        model, _, url = rest.rpartition("@")
        if model and url.startswith(("http://", "https://")):
            return model
    return rest


def _require_text(model_id: object) -> None:
    if not isinstance(model_id, str):
        raise BindingError(
            f"model id must be a string, got {model_id!r}: pass one such as 'gpt-4o-mini' or "
            f"'claude-sonnet-4-5' (forms: {_FORMS})",
            name=repr(model_id),
            kind="model",
        )


_EXAMPLES = {
    "anthropic": "anthropic:claude-sonnet-4-5",
    "openai": "openai:gpt-4o-mini",
    "gemini": "gemini:gemini-2.0-flash",
    "deepseek": "deepseek:deepseek-chat",
    COMPATIBLE: f"{COMPATIBLE}:llama3.1@http://127.0.0.1:11434/v1",
    LOCAL: f"{LOCAL}:smollm2-135m or {LOCAL}:<path to a .gguf file>",
}


_WRITE = {COMPATIBLE: f"{COMPATIBLE}:<model>@<http(s) base URL>", LOCAL: f"{LOCAL}:<name>"}


def _require_name(model_id: str, vendor: str, rest: str) -> None:
    """Refuse an id that is empty, has spaces at its ends, or names a vendor (``vendor``, ""
    for none) and no model after it (``openai:``, ``local:``), saying how to write it."""
    problem = ""
    if not model_id.strip():
        problem = "model id is empty (a shell variable that is not set?)"
        fix = f"pass one such as 'gpt-4o-mini' or 'claude-sonnet-4-5' (forms: {_FORMS})"
    elif vendor and not rest.strip():
        problem = f"model id {model_id!r} names no model after '{vendor}:'"
        fix = f"write {_WRITE.get(vendor, f'{vendor}:<model>')}, e.g. {_EXAMPLES[vendor]}"
    elif model_id != model_id.strip() or (vendor and rest != rest.strip()):
        problem = f"model id {model_id!r} has spaces around its name"
        fix = f"pass {f'{vendor}:{rest.strip()}' if vendor else model_id.strip()!r}"
    if problem:
        raise BindingError(f"{problem}: {fix}", name=model_id, kind="model")


def _split_compatible(model_id: str, rest: str) -> tuple[str, str]:
    """``"<model>@<url>"`` -> (model, url); the model may hold ``@``, the URL may not."""
    model, _, url = rest.rpartition("@")
    problem = ""
    if not url.startswith(("http://", "https://")):
        problem = f"{url!r} after '@' is not an http(s) base URL"
    elif not model:
        problem = "there is no model name before '@'"
    if problem:
        raise BindingError(
            f"model id {model_id!r}: {problem}; write {COMPATIBLE}:<model>@<http(s) base URL>, "
            f"e.g. {COMPATIBLE}:llama3.1@http://127.0.0.1:11434/v1 (a model name holding '@' "
            "needs the URL after it)",
            name=model_id,
            kind="model",
        )
    return model, url


def resolve_model(
    model_id: str,
    *,
    registry: ProviderRegistry | None = None,
    env: Mapping[str, str] | None = None,
    settings: ProviderSettings | None = None,
) -> LanguageModel:
    """The model that serves ``model_id``: a registry entry, else a vendor adapter.

    Args:
        model_id: e.g. ``"claude-sonnet-4-5"``, ``"gpt-4o-mini"``,
            ``"openai-compatible:llama3.1@http://127.0.0.1:11434/v1"`` (see the module table).
        registry: consulted first, in its selection order (a registered model wins).
        env: variables to read keys and base URLs from; default ``os.environ`` over ``./.env``
            (read without modifying ``os.environ``).
        settings: explicit key / base URL / retries / timeout / generation; they win over env.

    Returns:
        A model whose default model id is the id's model part.

    Raises:
        BindingError: the id is not a string or names no known vendor; an
            ``openai-compatible`` id with no http(s) base URL (in the id, ``settings`` or
            ``OPENAI_COMPATIBLE_BASE_URL``).
        AuthenticationError: the vendor's key is not set; the message names the variable.
        MissingDependencyError: on first use, when the vendor's SDK is not installed.
    """
    _require_text(model_id)
    if registry is not None:
        found = registry.find(model_id)
        if found is not None:
            return found
    vendor_name, model, id_base = parse_model_id(model_id)
    if vendor_name == LOCAL:
        return _local(model, settings)
    vendor = _VENDORS[vendor_name]
    variables, from_dotenv = read_env_sources(env)
    settings = settings or ProviderSettings()
    key_name = next((k for k in vendor.keys if variables.get(k)), None)
    key = settings.key() or (variables[key_name] if key_name else None)
    if key is None and not vendor.key_optional:
        names = " or ".join(vendor.keys)
        raise AuthenticationError(
            f"model {model_id!r} needs an API key: set {names} in the environment or a .env "
            f"file (or pass settings=ProviderSettings(api_key=...))",
            provider=vendor.name,
        )
    env_base = None if settings.base_url or id_base else variables.get(vendor.base_env)
    if env_base and vendor.base_env in from_dotenv and key is not None:
        if settings.key() is not None or key_name not in from_dotenv:
            raise BindingError(
                f"{vendor.base_env} is set in ./.env but the key ({key_name or 'api_key'}) "
                "comes from elsewhere: a .env file may set a base URL only together with its "
                f"own key. Put {key_name or vendor.keys[0]} in the same .env, set "
                f"{vendor.base_env} in the environment, or remove it from .env",
                name=model_id,
                kind="model",
            )
    base_url = settings.base_url or id_base or env_base or vendor.default_base
    if base_url is None and vendor.name == COMPATIBLE:
        raise BindingError(
            f"model {model_id!r} has no base URL, so it would go to OpenAI's own endpoint: "
            f"write {COMPATIBLE}:<model>@<http(s) base URL> or set {vendor.base_env}",
            name=model_id,
            kind="model",
        )
    return _build(vendor, model, key or "EMPTY", base_url, settings)


def _local(name: str, settings: ProviderSettings | None) -> LanguageModel:
    """``local:<name>``: the process's llama.cpp server for those weights (started on first
    use; see :mod:`jdsl.providers.local`)."""
    from jdsl.providers.local import LocalModel
    from jdsl.providers.local_weights import LOCAL_MODELS

    if name not in LOCAL_MODELS and not name.endswith(".gguf"):
        raise BindingError(
            f"unknown local model {name!r}: use local:<name> with a name among "
            f"{', '.join(LOCAL_MODELS)}, or local:<path to a .gguf file>",
            name=f"{LOCAL}:{name}",
            kind="model",
        )
    if settings is None:
        return LocalModel(name)
    options: dict[str, Any] = {"max_retries": settings.max_retries, "timeout_s": settings.timeout_s}
    if settings.generation != ProviderSettings().generation:
        options["generation"] = settings.generation
    return LocalModel(name, **options)


def _build(
    vendor: _Vendor, model: str, key: str, base_url: str | None, settings: ProviderSettings
) -> LanguageModel:
    common: dict[str, Any] = {
        "api_key": key,
        "base_url": base_url,
        "max_retries": settings.max_retries,
        "timeout_s": settings.timeout_s,
        "generation": settings.generation,
    }
    if vendor.name == "anthropic":
        from jdsl.providers.anthropic import AnthropicModel

        return AnthropicModel(model, **common)
    if vendor.name == "gemini":
        from jdsl.providers.gemini import GeminiModel

        return GeminiModel(model, **common)
    from jdsl.providers.openai import OpenAIModel

    return OpenAIModel(model, key_env=vendor.keys[0], **vendor.options, **common)
