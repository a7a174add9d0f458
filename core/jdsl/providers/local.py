"""``local:`` models: a managed llama.cpp server on 127.0.0.1 behind the OpenAI adapter.

``resolve_model("local:smollm2-135m")`` returns a :class:`LocalModel`: an
:class:`~jdsl.providers.openai.OpenAIModel` whose server is llama.cpp's own HTTP server, run
in this process by ``xllamacpp`` (extra ``jdsl[local]``) on the GGUF weights of
:mod:`jdsl.providers.local_weights`. The server starts on first use, is health-checked
(``GET /health``), is shared by every model of the same weights in the process (one server per
weights file), and stops at the end of ``with model:`` / ``with LocalServer(...)``, or with
the process.

A Ctrl-C lets the process go within a step: stopping the server waits for the prompt or
generation step under way, so steps are short (:data:`PROMPT_BATCH`); a Ctrl-C while the
weights load is raised once the server is held, and a server that has not started is waited
for before it is freed (freed while it loads, it waited for ever). The server is stopped, not
left running, at exit: a process that ends while a step computes crashes (SIGSEGV in ggml).

What a small model can satisfy:

- typed outputs: a Predict asks with ``response_format`` ``json_schema`` (llama.cpp turns the
  schema into a grammar), so ``-> order_index: int`` or ``Literal[...]`` outputs parse. An
  ``int`` or ``list[int]`` output that the tree uses as an index (a compiled selection's
  ``user.orders[$order_indexes]``, a list known only at run time) is asked within that list
  as of the tick (:mod:`jdsl.tree.index_bounds`): ``maxItems`` and each index's ``minimum``
  and ``maximum`` become part of the grammar, so a small model no longer counts ``1, 2, 3,
  ...`` until ``max_tokens`` (256 by default; such a reply fails saying it was cut at the token
  limit, :func:`~jdsl.providers.messages.cut_at_token_limit`). ``uniqueItems`` is sent but the
  grammar does not hold it: a repeated index is refused where the tree reads it (a loop over
  the selection fails naming it, and a compiled package's fallback takes over). An output the
  tree does not index with is still unbounded;
- tool calls (``tool_mode="json"``, the default): llama.cpp parses no tool call from small
  models' text (SmolLM2 has no tool format; Qwen2.5-Coder-0.5B writes bare JSON), and takes no
  named ``tool_choice``. So a turn with tools is asked for one JSON object under a grammar,
  ``{"name": TOOL, "arguments": {...}}`` or ``{"answer": TEXT}``, and parsed into a
  :class:`~jdsl.providers.messages.ToolCall` or the final text; the history goes back as that
  JSON and as ``tool`` results rendered as user text. ``tool_mode="native"`` sends ``tools``
  as any OpenAI-compatible server gets them.

Any other running server (llama.cpp's ``llama-server``, vLLM, Ollama) is reached with
``openai-compatible:NAME@http://127.0.0.1:PORT/v1`` and needs none of this.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import gc
import json
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import httpx

from jdsl.errors import ModelOutputError, ProviderError
from jdsl.providers.base import Call
from jdsl.providers.errors import require_sdk
from jdsl.providers.local_weights import DEFAULT_LOCAL_MODEL, weights_path
from jdsl.providers.messages import GenerationSettings, Message, ModelTurn, ToolCall, ToolSpec
from jdsl.providers.openai import OpenAIModel

__all__ = ["LocalModel", "LocalServer", "shared_server", "tool_schema"]

ToolMode = Literal["json", "native"]
PROMPT_BATCH = 64
"""Tokens the server reads a prompt in per step (llama.cpp's ``n_batch``/``n_ubatch``; its own
default is 2048/512). A stop of the server waits for the step under way: one step over a
2,000-token prompt took 70 s on one thread of a busy machine; a step of 64 tokens takes a
fraction of a second and reads the prompt as fast (measured on the same busy machine: 141 s
against 177 s for the whole answer)."""
DEFAULT_GENERATION = GenerationSettings(temperature=0.0, seed=0, max_tokens=256)
"""Greedy decoding and a bounded answer unless ``generation=`` says otherwise."""


class LocalServer:
    """llama.cpp's HTTP server on 127.0.0.1, in this process (``xllamacpp``).

    Args:
        weights: a ``local:`` name (see :mod:`jdsl.providers.local_weights`) or a GGUF path.
        threads: CPU threads for generation and prompt processing (default
            ``$JDSL_LOCAL_THREADS`` or 1).
        ctx_size: the context window in tokens.
        port: 0 picks a free port.
        startup_timeout_s: how long :meth:`start` waits for ``/health``.

    Raises:
        MissingDependencyError: on :meth:`start`, ``xllamacpp`` is not installed (extra
            ``jdsl[local]``), or the weights package is not (the message has the pip command).
    """

    def __init__(
        self,
        weights: str | Path = DEFAULT_LOCAL_MODEL,
        *,
        threads: int | None = None,
        ctx_size: int = 8192,
        port: int = 0,
        startup_timeout_s: float = 120.0,
    ) -> None:
        self.weights = str(weights)
        self.threads = threads or int(os.environ.get("JDSL_LOCAL_THREADS") or 1)
        self.ctx_size = ctx_size
        self.port = port
        self.startup_timeout_s = startup_timeout_s
        self._server: Any = None
        self._healthy = False
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        state = self.base_url if self.running else "stopped"
        return f"LocalServer({self.weights!r}, {state})"

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` (after :meth:`start`)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LocalServer:
        """Start the server unless it runs; wait until ``/health`` answers 200."""
        with self._lock:
            if self._server is not None:
                return self
            xllamacpp = require_sdk("xllamacpp", "local")
            path = weights_path(self.weights)
            params = xllamacpp.CommonParams()
            params.model.path = str(path)
            params.n_ctx = self.ctx_size
            params.n_parallel = 1  # one slot: its prompt cache keeps a shared prefix
            params.n_batch = params.n_ubatch = PROMPT_BATCH  # a stop waits one short step
            params.cpuparams.n_threads = self.threads
            params.cpuparams_batch.n_threads = self.threads
            params.hostnames = ["127.0.0.1"]
            params.port = self.port or _free_port()
            params.use_jinja = True
            params.verbosity = -1
            self.port = params.port
            self._healthy = False
            with _interrupt_after():  # loading the weights: a Ctrl-C waits for the server
                self._server = xllamacpp.Server(params)
            atexit.register(self.stop)
        self._wait_healthy()
        return self

    def health(self) -> bool:
        """Whether ``GET /health`` answers 200 now."""
        try:
            return httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        """Stop the server (its memory is freed); a later :meth:`start` starts it again.

        A server that has not answered ``/health`` yet is waited for first (up to
        ``startup_timeout_s``): xllamacpp's server, freed while it loads, waits for ever; one
        that never answers is left to the process's exit instead.
        """
        with self._lock:
            server, self._server = self._server, None
        if server is None:
            return
        if not (self._healthy or self._answers_within(self.startup_timeout_s)):
            _leave_to_exit(server)
            return
        del server
        gc.collect()

    def _answers_within(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while not self.health():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        self._healthy = True
        return True

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _wait_healthy(self) -> None:
        if not self._answers_within(self.startup_timeout_s):
            with self._lock:
                server, self._server = self._server, None
            if server is not None:
                _leave_to_exit(server)  # never answered: freeing it could wait for ever
            raise ProviderError(
                f"the local llama.cpp server for {self.weights!r} did not answer /health "
                f"within {self.startup_timeout_s:g}s; pass startup_timeout_s=... or check "
                "that the GGUF file loads",
                provider="local",
            )


def _leave_to_exit(server: Any) -> None:
    """Never free ``server`` (an xllamacpp server that never answered ``/health``): one more
    reference that nothing drops, so no destructor joins its threads, which for a server still
    starting waits for ever; the process's end takes its memory and threads."""
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(server))


@contextlib.contextmanager
def _interrupt_after() -> Iterator[None]:
    """A Ctrl-C during the block is raised when the block ends, not inside it (in the main
    thread, when Python's own handler is installed; elsewhere the block runs as it is).

    ``xllamacpp.Server(params)`` loads the weights in one C call; the KeyboardInterrupt raised
    as it returned dropped the server before anything held it, and freeing a server that is
    still starting waits for ever.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, _frame: pressed.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@functools.cache
def shared_server(weights: str, threads: int | None = None) -> LocalServer:
    """The process's one server for ``weights`` (created, not started; models start it)."""
    return LocalServer(weights, threads=threads)


class LocalModel(OpenAIModel):
    """A ``local:`` model: llama.cpp on 127.0.0.1, started on first use.

    Args:
        name: a ``local:`` name or a GGUF path (default ``smollm2-135m``).
        server: the server to use (default the process's shared one for ``name``).
        tool_mode: ``"json"`` (grammar-constrained JSON tool calls, see the module
            docstring) or ``"native"`` (OpenAI ``tools``).
        generation: sampling settings (default greedy, seed 0, at most 256 tokens).
        **kwargs: as :class:`OpenAIModel` (``max_retries``, ``timeout_s``).

    Example:
        >>> with LocalModel("smollm2-135m") as model:  # doctest: +SKIP
        ...     model.generate("", [Message.user("Say hi")])
    """

    provider = "local"
    structured_outputs = True
    """Predict passes ``response_schema`` to :meth:`converse` (see :meth:`OpenAIModel.converse`)."""

    def __init__(
        self,
        name: str = DEFAULT_LOCAL_MODEL,
        *,
        server: LocalServer | None = None,
        tool_mode: ToolMode = "json",
        generation: GenerationSettings | None = None,
        **kwargs: Any,
    ) -> None:
        api_key = kwargs.pop("api_key", None) or "EMPTY"  # the managed server checks none
        kwargs.pop("base_url", None)
        super().__init__(
            name,
            api_key=api_key,
            max_tokens_field="max_tokens",
            provider_name="local",
            tool_call_content="",
            generation=generation or DEFAULT_GENERATION,
            **kwargs,
        )
        self.server = server or shared_server(name)
        self.tool_mode: ToolMode = tool_mode

    def _make_client(self) -> Any:
        sdk = require_sdk("openai", "openai")
        self.server.start()
        s = self.settings
        return sdk.OpenAI(
            api_key=s.key(), base_url=self.server.base_url, max_retries=s.max_retries,
            timeout=s.timeout_s,
        )  # fmt: skip

    def __enter__(self) -> LocalModel:
        _ = self.client
        return self

    def __exit__(self, *exc: object) -> None:
        self._client = None
        self.server.stop()

    def _request(self, call: Call) -> dict[str, Any]:
        if not call.tools or self.tool_mode == "native":
            return super()._request(call)
        return super()._request(
            Call(
                _with_tool_instructions(call.system, call.tools), _as_text_turns(call.messages),
                (), call.model, tool_schema(call.tools),
            )
        )  # fmt: skip

    def _converse(self, call: Call) -> ModelTurn:
        turn = super()._converse(call)
        if not call.tools or self.tool_mode == "native":
            return turn
        return _parsed_json_turn(turn, count=sum(m.role == "assistant" for m in call.messages))

    def _stream(self, call: Call) -> Iterator[str | ModelTurn]:
        if not call.tools or self.tool_mode == "native":
            yield from super()._stream(call)
            return
        turn = self._converse(call)
        if turn.text:
            yield turn.text
        yield turn


def tool_schema(tools: tuple[ToolSpec, ...]) -> dict[str, Any]:
    """The JSON schema of one turn in ``tool_mode="json"``: a call of one of ``tools``
    (``{"name": ..., "arguments": {...}}``) or the final ``{"answer": "..."}``."""
    calls = [
        {
            "type": "object",
            "properties": {
                "name": {"const": t.name},
                "arguments": t.parameters or {"type": "object"},
            },
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for t in tools
    ]
    answer = {
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": False,
    }
    return {"anyOf": [*calls, answer]}


def _with_tool_instructions(system: str, tools: tuple[ToolSpec, ...]) -> str:
    lines = [
        "You can call tools. Reply with exactly one JSON object: "
        '{"name": "<tool>", "arguments": {...}} to call a tool, or {"answer": "<text>"} '
        "when you have the final answer.",
        "Tools:",
        *(f"- {t.name}: {t.description} Arguments: {json.dumps(t.parameters)}" for t in tools),
    ]
    return (system + "\n\n" if system else "") + "\n".join(lines)


def _as_text_turns(messages: list[Message]) -> list[Message]:
    """The history in the JSON format: calls as the JSON the model wrote, results as text."""
    out: list[Message] = []
    for m in messages:
        if m.role == "assistant" and m.tool_calls:
            text = "\n".join(
                json.dumps({"name": c.name, "arguments": c.arguments}) for c in m.tool_calls
            )
            out.append(Message(role="assistant", content=text))
        elif m.role == "tool":
            label = "error" if m.is_error else "result"
            out.append(Message.user(f"Tool {m.name or ''} {label}: {m.content}"))
        else:
            out.append(m)
    return out


def _parsed_json_turn(turn: ModelTurn, *, count: int) -> ModelTurn:
    """The grammar-constrained reply as a tool call or the final text.

    A reply cut short (``finish_reason="length"``) is returned as it came, as for any provider.

    Raises:
        ModelOutputError: a complete reply that is not one JSON object of the schema.
    """
    if turn.finish_reason == "length":
        return turn
    try:
        value = json.loads(turn.text)
    except json.JSONDecodeError:
        raise ModelOutputError(
            "the local model's reply is not the JSON object its grammar asks for", raw=turn.text
        ) from None
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        arguments = value.get("arguments")
        call = ToolCall(
            id=f"call_{count}",
            name=value["name"],
            arguments=arguments if isinstance(arguments, dict) else {},
        )
        return turn.model_copy(
            update={"text": "", "tool_calls": (call,), "finish_reason": "tool_call"}
        )
    if isinstance(value, dict) and "answer" in value:
        answer = value["answer"]
        text = answer if isinstance(answer, str) else json.dumps(answer)
        return turn.model_copy(update={"text": text, "finish_reason": "stop"})
    raise ModelOutputError(
        "the local model's reply is neither a tool call nor an answer", raw=turn.text
    )
