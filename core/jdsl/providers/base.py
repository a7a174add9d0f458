"""What the three SDK adapters share: settings, the lazy client, error mapping, converse/stream.

A subclass sets ``provider``, ``key_env``, ``sdk`` (module, extra) and implements
``_make_client``, ``_converse`` and ``_stream`` (each given one :class:`Call`); the base class
validates the inputs, resolves the model id and maps every SDK exception (also those raised
while a stream is consumed).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from pydantic import SecretStr

from jdsl.errors import AuthenticationError, BindingError
from jdsl.providers.errors import mapped_errors
from jdsl.providers.messages import (
    GenerationSettings,
    Message,
    ModelTurn,
    ToolSpec,
    as_messages,
)
from jdsl.providers.resolve import wire_model_name
from jdsl.providers.settings import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT_S,
    ProviderSettings,
    read_env,
)

__all__ = ["Call", "SDKModel"]


class Call(NamedTuple):
    """One model call as an adapter receives it (:meth:`SDKModel._converse` / ``_stream``).

    Attributes:
        system: the system prompt.
        messages: the conversation so far.
        tools: the tools the model may call.
        model: the vendor's model name.
        response_schema: the JSON schema the output must follow (None: free output); only
            adapters with ``structured_outputs`` are given one.
    """

    system: str
    messages: list[Message]
    tools: tuple[ToolSpec, ...]
    model: str
    response_schema: Mapping[str, Any] | None = None


class SDKModel:
    """Base of the SDK-backed models; implements the model protocol of docs/design.md §4.

    Args:
        model_id: the default model id; a per-call ``model_id`` wins.
        api_key: the key; None reads the provider's env var (and ``.env``).
        base_url: the API root; None uses the SDK's default or its env var.
        max_retries: SDK-level retries (default 2; 0 to surface errors at once).
        timeout_s: per-request timeout in seconds.
        generation: sampling settings (temperature, top_p, max_tokens, stop, seed).
        client: a ready SDK client (then key, URL, retries and timeout are the client's).

    Raises:
        AuthenticationError: no key given and the env var is unset.
    """

    provider: str = ""
    structured_outputs: bool = False
    takes_schema: bool = False
    """Whether :meth:`converse` takes a ``response_schema`` (the adapter can send one)."""
    key_env: str = ""
    key_env_fallbacks: tuple[str, ...] = ()

    def __init__(
        self,
        model_id: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        generation: GenerationSettings | None = None,
        client: Any = None,
    ) -> None:
        if api_key is None and client is None:
            api_key = self._default_key(base_url)
        self.model_id = model_id
        self.settings = ProviderSettings(
            api_key=SecretStr(api_key) if api_key is not None else None,
            base_url=base_url,
            max_retries=max_retries,
            timeout_s=timeout_s,
            generation=generation or GenerationSettings(),
        )
        self._check_generation(self.settings.generation)
        self._client = client

    def __repr__(self) -> str:
        url = f", base_url={self.settings.base_url!r}" if self.settings.base_url else ""
        return f"{type(self).__name__}({self.model_id!r}{url})"

    @property
    def client(self) -> Any:
        """The SDK client, created on first use."""
        if self._client is None:
            self._client = self._make_client()
        return self._client

    def converse(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        model_id: str | None = None,
        *,
        response_schema: Mapping[str, Any] | None = None,
    ) -> ModelTurn:
        """One model call: the conversation so far in, the model's turn out.

        ``response_schema`` (a JSON schema) asks for output constrained to it; only adapters
        whose ``structured_outputs`` is true take it (Predict checks), others raise TypeError.

        Raises:
            jdsl.errors.ProviderError: a subclass for each failure (see jdsl.providers.errors).
        """
        if response_schema is not None and not self.takes_schema:
            raise TypeError(
                f"{type(self).__name__} does not take a response_schema; ask a model whose "
                "structured_outputs is true (an OpenAI-compatible or local: model)"
            )
        call = Call(
            system, as_messages(messages), tuple(tools), self._model(model_id), response_schema
        )
        with self._errors():
            return self._converse(call)

    def stream(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        model_id: str | None = None,
    ) -> Iterator[str | ModelTurn]:
        """Like :meth:`converse`, streamed: text deltas (str), then exactly one ModelTurn.

        Stopping the iteration early closes the HTTP response.

        Raises:
            jdsl.errors.ProviderTimeout: the stream ended before the vendor's end marker.
        """
        call = Call(system, as_messages(messages), tuple(tools), self._model(model_id))
        with self._errors():
            yield from self._stream(call)

    def generate(
        self, system: str, messages: Sequence[Message], model_id: str | None = None
    ) -> str:
        """The text of a converse without tools."""
        return self.converse(system, messages, (), model_id).text

    # -- for subclasses -------------------------------------------------------------------

    def _make_client(self) -> Any:
        raise NotImplementedError

    def _converse(self, call: Call) -> ModelTurn:
        raise NotImplementedError

    def _stream(self, call: Call) -> Iterator[str | ModelTurn]:
        raise NotImplementedError

    def _check_generation(self, generation: GenerationSettings) -> None:
        """Reject settings the vendor does not support (default: accept all)."""

    # -- helpers ----------------------------------------------------------------------------

    def _default_key(self, base_url: str | None) -> str | None:
        """The key when none was passed: the provider's env var (or ``.env``), else an error."""
        env = read_env()
        names = (self.key_env, *self.key_env_fallbacks) if self.key_env else ()
        key = next((env[n] for n in names if env.get(n)), None)
        if key:
            return key
        also = "".join(f" (or {n})" for n in self.key_env_fallbacks)
        raise AuthenticationError(
            f"no API key for {self.provider}: set {self.key_env}{also} in the environment or a "
            f".env file, or pass api_key=...",
            provider=self.provider,
        )

    def _model(self, model_id: str | None) -> str:
        """The wire model name: the per-call id, else the adapter's, as a provider name
        (a jdsl id such as ``openai-compatible:NAME@URL`` sends ``NAME``)."""
        model = wire_model_name(model_id) if model_id else self.model_id
        if not model:
            raise BindingError(
                f"{type(self).__name__} has no model id; pass model_id=... when creating it "
                "or when calling converse",
                name=self.provider,
                kind="model",
            )
        return model

    def _errors(self) -> Any:
        secrets = tuple(s for s in (self.settings.key(),) if s)
        return mapped_errors(
            self.provider, key_env=self.key_env, secrets=secrets, base_url=self.settings.base_url
        )
