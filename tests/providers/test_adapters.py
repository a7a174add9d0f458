"""The three SDK adapters against the loopback server: round trips, usage, streaming, settings."""

from __future__ import annotations

import pytest
from jdsl.errors import BadRequest
from jdsl.providers import GenerationSettings, Message, ModelTurn, ToolCall, ToolSpec, Usage
from loopback_server import Reply

LOOKUP = ToolSpec(
    name="lookup",
    description="Find a customer by email.",
    parameters={"type": "object", "properties": {"email": {"type": "string"}}},
)
LIST_ORDERS = ToolSpec(
    name="list_orders",
    description="List a customer's orders.",
    parameters={"type": "object", "properties": {"customer_id": {"type": "string"}}},
)
UNICODE = "héllo wörld — 世界 🌍 ok"


def collect(stream):
    items = list(stream)
    deltas = [i for i in items if isinstance(i, str)]
    turns = [i for i in items if isinstance(i, ModelTurn)]
    assert len(turns) == 1 and isinstance(items[-1], ModelTurn)
    return deltas, turns[0]


def test_predict_style_round_trip(server, make_model, vendor):
    server.script(Reply(text="2"))
    turn = make_model(vendor).converse("Answer with an index.", [Message.user("Which order?")])
    assert turn.text == "2"
    assert turn.tool_calls == ()
    assert turn.finish_reason == "stop"
    assert turn.usage == Usage(input_tokens=11, output_tokens=7, total_tokens=18)


def test_system_prompt_is_sent_the_vendor_way(server, make_model, vendor):
    server.script(Reply(text="ok"))
    make_model(vendor).converse("SYS", [Message(role="system", content="MORE"), Message.user("q")])
    body = server.requests[-1].body
    if vendor == "anthropic":
        assert body["system"] == "SYS\n\nMORE"
        assert [m["role"] for m in body["messages"]] == ["user"]
    elif vendor == "openai":
        assert [m["role"] for m in body["messages"]] == ["system", "system", "user"]
    else:
        assert body["systemInstruction"]["parts"][0]["text"] == "SYS\n\nMORE"
        assert [c["role"] for c in body["contents"]] == ["user"]


def test_tool_call_turn(server, make_model, vendor):
    server.script(Reply(tool_calls=[("call_1", "lookup", {"email": "a@example.com"})]))
    turn = make_model(vendor).converse("sys", [Message.user("cancel")], [LOOKUP])
    assert turn.finish_reason == "tool_call"
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [
        ("lookup", {"email": "a@example.com"})
    ]
    body = server.requests[-1].body
    sent = {"anthropic": "tools", "openai": "tools", "gemini": "tools"}[vendor]
    assert body[sent], "tools were not sent"


def react_history(first: ModelTurn, second: ModelTurn) -> list[Message]:
    messages = [Message.user("Cancel my order; my email is a@example.com")]
    messages.append(first.as_message())
    messages += [Message.tool(c, '{"customer_id": "c7"}') for c in first.tool_calls]
    messages.append(second.as_message())
    messages += [Message.tool(c, '[{"id": "o1"}]') for c in second.tool_calls]
    return messages


def test_react_style_multi_turn_tool_history(server, make_model, vendor):
    model = make_model(vendor)
    server.script(
        Reply(tool_calls=[("call_a", "lookup", {"email": "a@example.com"})]),
        Reply(text="Looking.", tool_calls=[("call_b", "list_orders", {"customer_id": "c7"})]),
        Reply(text="Your order is o1."),
    )
    first = model.converse(
        "sys", [Message.user("Cancel my order; my email is a@example.com")], [LOOKUP, LIST_ORDERS]
    )
    history = [Message.user("Cancel my order; my email is a@example.com"), first.as_message()]
    history += [Message.tool(c, '{"customer_id": "c7"}') for c in first.tool_calls]
    second = model.converse("sys", history, [LOOKUP, LIST_ORDERS])
    assert second.text == "Looking." and second.tool_calls[0].name == "list_orders"
    final = model.converse("sys", react_history(first, second), [LOOKUP, LIST_ORDERS])
    assert final.text == "Your order is o1."
    assert final.finish_reason == "stop"
    assert len(server.requests) == 3  # every request passed the vendor's history rules


def test_parallel_tool_calls_and_results(server, make_model, vendor):
    model = make_model(vendor)
    calls = [("c1", "lookup", {"email": "a@x"}), ("c2", "lookup", {"email": "b@x"})]
    server.script(Reply(tool_calls=calls), Reply(text="done"))
    first = model.converse("sys", [Message.user("both")], [LOOKUP])
    assert len(first.tool_calls) == 2
    history = [Message.user("both"), first.as_message()]
    history += [Message.tool(c, f"result {c.arguments['email']}") for c in first.tool_calls]
    assert model.converse("sys", history, [LOOKUP]).text == "done"


def test_tool_history_violation_is_a_bad_request(server, make_model, vendor):
    orphan = ToolCall(id="call_zz", name="nowhere", arguments={})
    history = [
        Message.user("q"),
        Message.assistant("", [ToolCall(id="call_1", name="lookup", arguments={})]),
        Message.tool(orphan, "stray"),
    ]
    with pytest.raises(BadRequest) as info:
        make_model(vendor).converse("sys", history, [LOOKUP])
    assert info.value.status_code == 400
    assert info.value.detail


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"input": 5}, Usage(input_tokens=5)),
        ({}, None),
    ],
)
def test_absent_usage_counts_stay_absent(server, make_model, vendor, usage, expected):
    server.script(Reply(text="x", usage=usage))
    assert make_model(vendor).converse("s", [Message.user("q")]).usage == expected


def test_usage_mapping_with_cache_and_reasoning(server, make_model, vendor):
    usage = {"input": 100, "output": 20, "cached": 40, "cache_creation": 10, "reasoning": 6}
    server.script(Reply(text="x", usage=usage))
    got = make_model(vendor).converse("s", [Message.user("q")]).usage
    expected = {
        # Anthropic: input = input + cache creation + cache read
        "anthropic": Usage(
            input_tokens=150, output_tokens=20, total_tokens=170, cached_input_tokens=40
        ),
        "openai": Usage(
            input_tokens=100,
            output_tokens=20,
            total_tokens=120,
            cached_input_tokens=40,
            reasoning_tokens=6,
        ),
        # Gemini: output = candidates + thoughts, total from totalTokenCount
        "gemini": Usage(
            input_tokens=100,
            output_tokens=26,
            total_tokens=126,
            cached_input_tokens=40,
            reasoning_tokens=6,
        ),
    }[vendor]
    assert got == expected


@pytest.mark.parametrize(
    ("finish", "expected"), [("length", "length"), ("filter", "content_filter")]
)
def test_finish_reasons(server, make_model, vendor, finish, expected):
    server.script(Reply(text="cut", finish=finish))
    assert make_model(vendor).converse("s", [Message.user("q")]).finish_reason == expected


@pytest.mark.parametrize("chunk_size", [1, 3, 7])
@pytest.mark.parametrize("crlf", [True, False])
def test_stream_split_at_awkward_boundaries(server, make_model, vendor, chunk_size, crlf):
    server.chunk_size, server.crlf = chunk_size, crlf
    reply = Reply(text=UNICODE, tool_calls=[("call_9", "lookup", {"email": "ü@例.jp"})])
    server.script(reply, reply)
    model = make_model(vendor)
    deltas, turn = collect(model.stream("s", [Message.user("q")], [LOOKUP]))
    assert "".join(deltas) == UNICODE
    converse = model.converse("s", [Message.user("q")], [LOOKUP])
    assert turn.text == converse.text
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [
        (c.name, c.arguments) for c in converse.tool_calls
    ]
    assert turn.usage == converse.usage and turn.finish_reason == converse.finish_reason


def test_stream_stopped_early_closes_cleanly(server, make_model, vendor):
    server.script(Reply(text=UNICODE * 3), Reply(text="next"))
    model = make_model(vendor)
    stream = model.stream("s", [Message.user("q")])
    assert isinstance(next(stream), str)
    stream.close()
    assert model.converse("s", [Message.user("q")]).text == "next"


def test_generation_settings_are_applied(server, make_model, vendor):
    settings = GenerationSettings(temperature=0.2, top_p=0.9, max_tokens=50, stop=("END",))
    server.script(Reply(text="ok"))
    make_model(vendor, generation=settings).converse("s", [Message.user("q")])
    body = server.requests[-1].body
    if vendor == "anthropic":
        picked = (body["temperature"], body["top_p"], body["max_tokens"], body["stop_sequences"])
    elif vendor == "openai":
        picked = (body["temperature"], body["top_p"], body["max_tokens"], body["stop"])
    else:
        g = body["generationConfig"]
        picked = (g["temperature"], g["topP"], g["maxOutputTokens"], g["stopSequences"])
    assert picked == (0.2, 0.9, 50, ["END"])


def test_anthropic_rejects_seed_and_defaults_max_tokens(server, make_model):
    with pytest.raises(BadRequest, match="seed"):
        make_model("anthropic", generation=GenerationSettings(seed=1))
    server.script(Reply(text="ok"))
    make_model("anthropic").converse("s", [Message.user("q")])
    assert server.requests[-1].body["max_tokens"] == 4096


def test_openai_token_field_and_seed(server, make_model):
    server.script(Reply(text="ok"), Reply(text="ok"))
    settings = GenerationSettings(max_tokens=9, seed=3)
    make_model("openai", generation=settings, max_tokens_field="max_completion_tokens").converse(
        "s", [Message.user("q")]
    )
    body = server.requests[-1].body
    assert body["max_completion_tokens"] == 9 and body["seed"] == 3 and "max_tokens" not in body
    make_model("openai", generation=settings).converse("s", [Message.user("q")])
    assert server.requests[-1].body["max_tokens"] == 9  # a non-OpenAI base URL


def test_invalid_generation_settings_fail_validation():
    with pytest.raises(ValueError):
        GenerationSettings(temperature=3.0)
    with pytest.raises(ValueError):
        GenerationSettings(stop=("",))


@pytest.mark.parametrize("streamed", [False, True])
def test_anthropic_thinking_blocks_are_kept_and_replayed(server, make_model, streamed):
    model = make_model("anthropic")
    reply = Reply(
        thinking=("let me think", "SIG-abc"), tool_calls=[("tu_1", "lookup", {"email": "e"})]
    )
    server.script(reply, Reply(text="done"))
    ask = [Message.user("q")]
    turn = (
        collect(model.stream("s", ask, [LOOKUP]))[1]
        if streamed
        else model.converse("s", ask, [LOOKUP])
    )
    blocks = turn.metadata["anthropic"]["content"]
    assert blocks[0] == {"type": "thinking", "thinking": "let me think", "signature": "SIG-abc"}
    assert turn.text == ""  # thinking is never public text
    history = [*ask, turn.as_message(), Message.tool(turn.tool_calls[0], "found")]
    model.converse("s", history, [LOOKUP])
    replayed = server.requests[-1].body["messages"][1]["content"]
    assert replayed[0]["type"] == "thinking" and replayed[0]["signature"] == "SIG-abc"


@pytest.mark.parametrize("streamed", [False, True])
def test_gemini_thought_signatures_are_kept_and_replayed(server, make_model, streamed):
    model = make_model("gemini")
    reply = Reply(
        thinking=("pondering", "SIG-gem"), tool_calls=[("fc_1", "lookup", {"email": "e"})]
    )
    server.script(reply, Reply(text="done"))
    ask = [Message.user("q")]
    turn = (
        collect(model.stream("s", ask, [LOOKUP]))[1]
        if streamed
        else model.converse("s", ask, [LOOKUP])
    )
    assert turn.text == "" and turn.tool_calls[0].id == "fc_1"
    assert "gemini" in turn.metadata
    history = [*ask, turn.as_message(), Message.tool(turn.tool_calls[0], '{"id": "c7"}')]
    model.converse("s", history, [LOOKUP])
    contents = server.requests[-1].body["contents"]
    signed = [p for p in contents[1]["parts"] if "thoughtSignature" in p]
    assert signed and signed[0]["functionCall"]["name"] == "lookup"
    response = contents[2]["parts"][0]["functionResponse"]
    assert response == {"id": "fc_1", "name": "lookup", "response": {"id": "c7"}}


def test_gemini_invents_ids_it_never_sends(server, make_model):
    model = make_model("gemini")
    server.script(Reply(tool_calls=[("x", "lookup", {})], native_ids=False), Reply(text="ok"))
    turn = model.converse("s", [Message.user("q")], [LOOKUP])
    assert turn.tool_calls[0].id.startswith("call_")
    history = [Message.user("q"), turn.as_message(), Message.tool(turn.tool_calls[0], "plain text")]
    model.converse("s", history, [LOOKUP])
    parts = server.requests[-1].body["contents"]
    assert "id" not in parts[1]["parts"][0]["functionCall"]
    assert parts[2]["parts"][0]["functionResponse"] == {
        "name": "lookup",
        "response": {"result": "plain text"},
    }


def test_openai_tool_history_wire_shape(server, make_model):
    model = make_model("openai")
    server.script(Reply(tool_calls=[("call_1", "lookup", {"email": "e"})]), Reply(text="ok"))
    turn = model.converse("s", [Message.user("q")], [LOOKUP])
    history = [
        Message.user("q"),
        turn.as_message(),
        Message.tool(turn.tool_calls[0], "r", is_error=True),
    ]
    model.converse("s", history, [LOOKUP])
    sent = server.requests[-1].body["messages"]
    assert sent[2] == {  # not api.openai.com: "" (see test_wire_model)
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "lookup", "arguments": '{"email": "e"}'},
            }
        ],
    }
    assert sent[3] == {"role": "tool", "tool_call_id": "call_1", "content": "r"}
    assert server.requests[-1].body["tools"][0]["type"] == "function"
