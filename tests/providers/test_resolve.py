"""resolve_model: prefixes, keys from env and .env, base URLs, typed errors, no fallback."""

from __future__ import annotations

import os

import pytest
from jdsl.errors import AuthenticationError, BindingError
from jdsl.providers import (
    AnthropicModel,
    GeminiModel,
    GenerationSettings,
    Message,
    OpenAIModel,
    ProviderRegistry,
    ProviderSettings,
    parse_model_id,
    read_env,
    resolve_model,
)
from jdsl.testing import ScriptedModel
from loopback_server import Reply

KEYS = {
    "ANTHROPIC_API_KEY": "sk-ant-test",
    "OPENAI_API_KEY": "sk-openai-test",
    "GEMINI_API_KEY": "gem-test",
    "DEEPSEEK_API_KEY": "sk-ds-test",
}


@pytest.mark.parametrize(
    ("model_id", "cls", "provider"),
    [
        ("claude-sonnet-4-5", AnthropicModel, "anthropic"),
        ("gpt-4o-mini", OpenAIModel, "openai"),
        ("o1-mini", OpenAIModel, "openai"),
        ("o3", OpenAIModel, "openai"),
        ("o4-mini", OpenAIModel, "openai"),
        ("chatgpt-4o-latest", OpenAIModel, "openai"),
        ("gemini-2.5-flash", GeminiModel, "gemini"),
        ("deepseek-chat", OpenAIModel, "deepseek"),
        ("anthropic:my-finetune", AnthropicModel, "anthropic"),
    ],
)
def test_prefixes_pick_the_vendor(model_id, cls, provider):
    model = resolve_model(model_id, env=KEYS)
    assert type(model) is cls and model.provider == provider
    assert model.model_id == model_id.split(":")[-1]


def test_keys_and_base_urls_come_from_env():
    env = {**KEYS, "OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "ANTHROPIC_BASE_URL": "http://h:2"}
    openai = resolve_model("gpt-4o", env=env)
    assert openai.settings.key() == "sk-openai-test"
    assert openai.settings.base_url == "http://127.0.0.1:1/v1"
    assert resolve_model("claude-x", env=env).settings.base_url == "http://h:2"
    deepseek = resolve_model("deepseek-reasoner", env=env)
    assert deepseek.settings.base_url == "https://api.deepseek.com"
    assert deepseek.settings.key() == "sk-ds-test" and deepseek.max_tokens_field == "max_tokens"


def test_google_api_key_is_the_gemini_fallback():
    assert resolve_model("gemini-pro", env={"GOOGLE_API_KEY": "g"}).settings.key() == "g"


@pytest.mark.parametrize(
    ("model_id", "variable"),
    [
        ("claude-x", "ANTHROPIC_API_KEY"),
        ("gpt-x", "OPENAI_API_KEY"),
        ("gemini-x", "GEMINI_API_KEY or GOOGLE_API_KEY"),
        ("deepseek-chat", "DEEPSEEK_API_KEY"),
    ],
)
def test_a_missing_key_says_exactly_what_to_set(model_id, variable):
    with pytest.raises(AuthenticationError) as info:
        resolve_model(model_id, env={k: v for k, v in KEYS.items() if k not in variable})
    assert variable in str(info.value) and ".env" in str(info.value)


@pytest.mark.parametrize("model_id", ["llama3.1:8b", "mistral-large", "", "foo:bar"])
def test_an_unknown_prefix_is_a_binding_error_not_a_fallback(model_id):
    with pytest.raises(BindingError) as info:
        resolve_model(model_id, env=KEYS)
    assert "openai-compatible:<model>@<base_url>" in str(info.value)
    assert info.value.kind == "model"


@pytest.mark.parametrize(
    ("model_id", "said"),
    [
        ("openai:", "model id 'openai:' names no model after 'openai:': write openai:<model>"),
        ("local:", "names no model after 'local:': write local:<name>, e.g. local:smollm2-135m"),
        ("anthropic:  ", "names no model after 'anthropic:'"),
        ("openai-compatible:", "write openai-compatible:<model>@<http(s) base URL>"),
        ("", "model id is empty (a shell variable that is not set?)"),
        (" gpt-4o", "model id ' gpt-4o' has spaces around its name: pass 'gpt-4o'"),
        ("openai: gpt-4o", "has spaces around its name: pass 'openai:gpt-4o'"),
    ],
)
def test_a_malformed_model_id_says_how_to_write_it(model_id, said):
    with pytest.raises(BindingError) as info:
        resolve_model(model_id, env=KEYS)
    assert said in str(info.value) and "no provider serves it" not in str(info.value)
    assert info.value.kind == "model"


def test_openai_compatible_form_never_sends_the_openai_key():
    model = resolve_model("openai-compatible:llama3.1:8b@http://127.0.0.1:11434/v1", env=KEYS)
    assert isinstance(model, OpenAIModel) and model.provider == "openai-compatible"
    assert model.model_id == "llama3.1:8b"
    assert model.settings.base_url == "http://127.0.0.1:11434/v1"
    assert model.settings.key() == "EMPTY"
    keyed = resolve_model(
        "openai-compatible:m",
        env={"OPENAI_COMPATIBLE_API_KEY": "k", "OPENAI_COMPATIBLE_BASE_URL": "http://x/v1"},
    )
    assert keyed.settings.key() == "k" and keyed.settings.base_url == "http://x/v1"


def test_parse_model_id_keeps_at_signs_in_model_names():
    assert parse_model_id("openai-compatible:org/model@v2@https://h.example/v1") == (
        "openai-compatible",
        "org/model@v2",
        "https://h.example/v1",
    )


def test_explicit_settings_win_over_env():
    settings = ProviderSettings(
        api_key="explicit",
        base_url="http://e/v1",
        max_retries=0,
        generation=GenerationSettings(seed=4),
    )
    model = resolve_model("gpt-4o", env=KEYS, settings=settings)
    assert model.settings.key() == "explicit" and model.settings.base_url == "http://e/v1"
    assert model.settings.max_retries == 0 and model.settings.generation.seed == 4


def test_dotenv_is_read_without_touching_os_environ(isolated_env):
    (isolated_env / ".env").write_text("ANTHROPIC_API_KEY=from-dotenv\n")
    model = resolve_model("claude-x")
    assert model.settings.key() == "from-dotenv"
    assert "ANTHROPIC_API_KEY" not in os.environ


def test_the_environment_wins_over_dotenv(isolated_env, monkeypatch):
    (isolated_env / ".env").write_text("OPENAI_API_KEY=from-dotenv\n")
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert read_env()["OPENAI_API_KEY"] == "from-env"
    assert "OPENAI_API_KEY" not in read_env({})  # an explicit env skips .env


def test_a_registered_model_wins_over_the_vendor_prefix():
    registry = ProviderRegistry()
    local = ScriptedModel("hi")
    registry.register("local", local, prefixes=["claude-"])
    assert resolve_model("claude-x", registry=registry, env={}) is local
    assert isinstance(resolve_model("gpt-4o", registry=registry, env=KEYS), OpenAIModel)


def test_keys_never_show_in_repr():
    model = resolve_model("gpt-4o", env=KEYS)
    assert "sk-openai-test" not in repr(model) and "sk-openai-test" not in repr(model.settings)


def test_resolved_model_talks_to_the_configured_server(server):
    server.script(Reply(text="pong"))
    env = {"ANTHROPIC_API_KEY": server.api_key, "ANTHROPIC_BASE_URL": server.url("anthropic")}
    model = resolve_model("claude-haiku", env=env, settings=ProviderSettings(max_retries=0))
    assert model.converse("s", [Message.user("ping")]).text == "pong"
    assert server.requests[-1].body["model"] == "claude-haiku"


@pytest.mark.parametrize(
    "url",
    ["ftp://h/v1", "http://user:sk-secret@h/v1", "https://h/v1?key=sk-secret", "localhost:8000"],
)
def test_base_urls_must_be_plain_http(url):
    with pytest.raises(BindingError, match="base_url") as info:
        ProviderSettings(base_url=url)
    assert "sk-secret" not in str(info.value)
    with pytest.raises(BindingError):
        resolve_model(
            f"openai-compatible:m@{url}" if url.startswith("http") else "gpt-4o",
            env={**KEYS, "OPENAI_BASE_URL": url},
        )


@pytest.mark.parametrize("model_id", [None, 3])
def test_a_model_id_that_is_not_text_is_a_binding_error(model_id):
    with pytest.raises(BindingError, match="model id must be a string") as info:
        resolve_model(model_id, env=KEYS)  # type: ignore[arg-type]
    assert "gpt-4o-mini" in str(info.value) and info.value.kind == "model"


def test_openai_compatible_needs_a_base_url():
    with pytest.raises(BindingError, match="has no base URL") as info:
        resolve_model("openai-compatible:llama", env=KEYS)
    assert "openai-compatible:<model>@<http(s) base URL>" in str(info.value)
    assert "OPENAI_COMPATIBLE_BASE_URL" in str(info.value)
    explicit = resolve_model(
        "openai-compatible:llama", env={}, settings=ProviderSettings(base_url="http://h/v1")
    )
    assert explicit.settings.base_url == "http://h/v1"


@pytest.mark.parametrize(
    ("model_id", "problem"),
    [
        ("openai-compatible:llama@notaurl", "'notaurl' after '@' is not an http(s) base URL"),
        ("openai-compatible:llama@ftp://h/v1", "'ftp://h/v1' after '@' is not an http(s)"),
        ("openai-compatible:@http://h/v1", "there is no model name before '@'"),
    ],
)
def test_openai_compatible_text_after_at_must_be_a_url(model_id, problem):
    env = {"OPENAI_COMPATIBLE_BASE_URL": "http://x/v1"}
    with pytest.raises(BindingError) as info:
        resolve_model(model_id, env=env)
    assert problem in str(info.value)
    assert "openai-compatible:<model>@<http(s) base URL>" in str(info.value)


@pytest.mark.parametrize(
    ("model_id", "key", "base"),
    [
        ("claude-x", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
        ("gpt-4o", "OPENAI_API_KEY", "OPENAI_BASE_URL"),
        ("gemini-2.0", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"),
        ("deepseek-chat", "DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL"),
        ("openai-compatible:m", "OPENAI_COMPATIBLE_API_KEY", "OPENAI_COMPATIBLE_BASE_URL"),
    ],
)
def test_a_dotenv_base_url_never_takes_the_environment_key_elsewhere(
    isolated_env, monkeypatch, model_id, key, base
):
    (isolated_env / ".env").write_text(f"{base}=http://evil.example/v1\n")
    monkeypatch.setenv(key, "real-key-from-env")
    with pytest.raises(BindingError, match=f"{base} is set in .*\\.env.*{key}"):
        resolve_model(model_id)
    (isolated_env / ".env").write_text(f"{base}=http://evil.example/v1\n{key}=dotenv-key\n")
    monkeypatch.delenv(key)
    model = resolve_model(model_id)  # a .env that sets both: its own key goes to its own URL
    assert model.settings.base_url == "http://evil.example/v1"
    assert model.settings.key() == "dotenv-key"
    monkeypatch.setenv(base, "http://mine.example/v1")
    monkeypatch.setenv(key, "real-key-from-env")
    assert resolve_model(model_id).settings.base_url == "http://mine.example/v1"
