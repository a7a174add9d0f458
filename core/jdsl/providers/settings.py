"""Provider settings and the environment they are read from (credentials stay in env / ``.env``).

:class:`ProviderSettings` holds what one adapter needs: the key, the base URL, the retry count,
the timeout and the :class:`~jdsl.providers.messages.GenerationSettings`. The key is a
``SecretStr``, so ``repr`` and ``model_dump`` never show it.

:func:`read_env` merges a ``.env`` file under the process environment *without* touching
``os.environ`` (python-dotenv's ``dotenv_values``), so reading credentials has no side effect.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from jdsl.errors import BindingError
from jdsl.providers.messages import GenerationSettings

__all__ = [
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT_S",
    "ProviderSettings",
    "check_base_url",
    "read_env",
    "read_env_sources",
]

DEFAULT_MAX_RETRIES = 2
"""Retries the SDK makes on 408/409/429/5xx and connection errors (the OpenAI and Anthropic
SDK default; the Gemini adapter passes ``attempts = max_retries + 1`` to google-genai)."""

DEFAULT_TIMEOUT_S = 120.0
"""Seconds before one HTTP request times out (:class:`jdsl.errors.ProviderTimeout`)."""


class ProviderSettings(BaseModel):
    """How to reach one provider.

    Attributes:
        api_key: the secret key; None means "read it from the provider's env var".
        base_url: the API root (e.g. ``http://127.0.0.1:8000/v1``); None means the SDK default
            or its own env var (``OPENAI_BASE_URL``, ``ANTHROPIC_BASE_URL``,
            ``GOOGLE_GEMINI_BASE_URL``).
        max_retries: SDK-level retries (0 disables them; tests use 0).
        timeout_s: per-request timeout in seconds.
        generation: sampling settings applied to every call.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    api_key: SecretStr | None = None
    base_url: str | None = None
    max_retries: int = Field(default=DEFAULT_MAX_RETRIES, ge=0, le=10)
    timeout_s: float = Field(default=DEFAULT_TIMEOUT_S, gt=0)
    generation: GenerationSettings = Field(default_factory=GenerationSettings)

    @field_validator("base_url")
    @classmethod
    def _plain_http_url(cls, url: str | None) -> str | None:
        return None if url is None else check_base_url(url)

    def key(self) -> str | None:
        """The plain key, for handing to an SDK client (never log it)."""
        return self.api_key.get_secret_value() if self.api_key is not None else None


def check_base_url(url: str) -> str:
    """``url`` when it is a plain http(s) URL: no credentials, query or fragment.

    Raises:
        BindingError: otherwise (the message never repeats the URL, which may hold a secret).
    """
    parts = urlsplit(url)
    problem = None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        problem = "must be an http(s) URL such as http://127.0.0.1:8000/v1"
    elif parts.username or parts.password or parts.query or parts.fragment:
        problem = (
            "must not carry credentials, a query or a fragment; pass the key as api_key (or "
            "its env var) instead"
        )
    if problem:
        raise BindingError(f"base_url {problem}", name=parts.hostname or "", kind="model")
    return url


def read_env(
    env: Mapping[str, str] | None = None, *, dotenv_path: str | Path | None = None
) -> dict[str, str]:
    """The variables providers read: a ``.env`` file overlaid by the real environment.

    Args:
        env: an explicit mapping to use instead of ``os.environ``; when given, no ``.env`` file
            is read unless ``dotenv_path`` is also given (tests stay hermetic).
        dotenv_path: the ``.env`` file; default ``./.env`` in the current directory.

    Returns:
        A new dict; ``os.environ`` is never modified.
    """
    return read_env_sources(env, dotenv_path=dotenv_path)[0]


def read_env_sources(
    env: Mapping[str, str] | None = None, *, dotenv_path: str | Path | None = None
) -> tuple[dict[str, str], frozenset[str]]:
    """:func:`read_env`, and the names whose value came from the ``.env`` file (not overridden
    by the environment): a caller can refuse a ``.env`` that redirects a key from elsewhere."""
    if env is not None and dotenv_path is None:
        return dict(env), frozenset()
    from dotenv import dotenv_values

    path = Path(dotenv_path) if dotenv_path is not None else Path.cwd() / ".env"
    merged = (
        {k: v for k, v in dotenv_values(path).items() if v is not None} if path.is_file() else {}
    )
    real = os.environ if env is None else env
    from_file = frozenset(k for k in merged if k not in real)
    merged.update(real)
    return merged, from_file
