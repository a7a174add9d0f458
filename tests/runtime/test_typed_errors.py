"""Typed errors at the edges: bad signatures, model objects, tool arguments, behavior text;
bools never equal numbers in check; lenient reading of one-output replies."""

from __future__ import annotations

import re
from typing import Any

import pytest
from jdsl import (
    ListTraceSink,
    Status,
    act,
    check,
    guard_call,
    invert,
    predict,
    react,
    ref,
    repeat,
    root,
    sel,
    seq,
    store,
)
from jdsl.errors import (
    AuthoringError,
    BehaviorSyntaxError,
    BindingError,
    ModelOutputError,
    SignatureError,
    ValidationError,
)
from jdsl.providers.messages import ModelTurn
from jdsl.signature import Signature
from jdsl.testing import FunctionModel, ScriptedModel
from jdsl.text import parse_behavior
from jdsl.tree import lenient_equal


def lookup(email: str, limit: int = 3) -> dict[str, Any]:
    return {"email": email, "limit": limit}


def picky(email: str) -> bool:
    raise TypeError("the tool's own TypeError")


# -- 4. signatures are checked when the node is built --------------------------------------
@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("a b c", "must contain '->'"),
        ("a -> b: intt", "unknown type 'intt'"),
        ("a ->", "no output"),
    ],
)
def test_a_bad_signature_is_a_signature_error_naming_it(text: str, says: str) -> None:
    with pytest.raises(SignatureError, match=says) as info:
        predict(text)
    assert info.value.signature == text and "errors.pydantic.dev" not in str(info.value)
    with pytest.raises(SignatureError, match=says):
        react(text, tools=[lookup])


def test_react_needs_a_well_formed_str_signature() -> None:
    with pytest.raises(SignatureError, match="no output"):
        react("q ->", tools=[lookup])
    with pytest.raises(SignatureError, match="is a str"):
        predict(42)  # type: ignore[arg-type]
    assert predict(Signature.parse("q -> n: int")).signature == "q -> n: int"


# -- 4. model objects ------------------------------------------------------------------------
@pytest.mark.parametrize("reply", [None, 42])
def test_a_model_returning_a_non_turn_is_a_model_output_error(reply: Any) -> None:
    class Broken:
        def converse(self, *args: Any) -> Any:
            return reply

    sink = ListTraceSink()
    with pytest.raises(ModelOutputError, match="Broken.converse must return a ModelTurn"):
        root("p").do(predict("q -> a")).run(model=Broken(), trace_sink=sink, q="x")
    assert sink.events[-1].payload["error_type"] == "ModelOutputError"
    with pytest.raises(ModelOutputError, match="Broken.converse must return a ModelTurn"):
        root("r").do(react("q -> a", tools=[lookup])).run(model=Broken(), q="x")


def test_a_model_returning_text_still_works() -> None:
    model = FunctionModel(lambda *a: ModelTurn(text="fine"))
    assert root("p").do(predict("q -> a")).run(model=model, q="x").blackboard["a"] == "fine"


def test_a_model_without_converse_is_a_binding_error_at_run_start() -> None:
    calls: list[str] = []

    def first() -> None:
        calls.append("first")

    tree = root("p").do(seq(act(first), predict("q -> a")))
    with pytest.raises(BindingError, match=r"\(object object\) has no converse") as info:
        tree.run(model=object(), q="x")
    assert info.value.kind == "model" and calls == []
    assert root("t").do(act(first)).run(model=object()).status is Status.SUCCESS  # not needed


# -- 4. tool arguments -----------------------------------------------------------------------
def test_a_wrong_keyword_gets_a_note_naming_the_node_and_parameters() -> None:
    # bound by name (as behavior text binds): act(lookup, mail=...) is refused when built
    tree = root("t").do(act("lookup", mail=ref("email")) >> "c").bind(tools=[lookup])
    for sink in (None, ListTraceSink()):
        with pytest.raises(TypeError, match="unexpected keyword argument 'mail'") as info:
            tree.run(trace_sink=sink, email="a@x.com")
        notes = "\n".join(info.value.__notes__)
        assert "act(lookup) -> c called lookup(mail=...)" in notes
        assert "its parameters are lookup(email, limit=3)" in notes
        assert "raised in node 'root/action.0'" in notes


def test_a_typeerror_from_inside_a_tool_gets_no_argument_note() -> None:
    with pytest.raises(TypeError, match="own TypeError") as info:
        root("t").do(act(picky, email="a")).run()
    assert not any("its parameters are" in n for n in info.value.__notes__)
    with pytest.raises(TypeError) as info:
        root("g").do(guard_call("picky", mail="a")).bind(predicates=[picky]).run()
    assert any("guard_call(picky) called picky(mail=...)" in n for n in info.value.__notes__)


# -- 4. behavior text that is not a str ------------------------------------------------------
@pytest.mark.parametrize(("text", "hint"), [(None, "as a str"), (b"root a", "decode")])
def test_behavior_text_must_be_a_str(text: Any, hint: str) -> None:
    with pytest.raises(BehaviorSyntaxError, match="must be a str") as info:
        parse_behavior(text)
    assert hint in info.value.hint


# -- 5. bools are not numbers in check --------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "expected", "result"),
    [
        (True, 1, False),
        (1, True, False),
        (False, 0, False),
        (0.0, False, False),
        (True, True, True),
        (1, 1.0, True),
        ([True], [1], False),
        ({"a": [0]}, {"a": [False]}, False),
        ({"a": [1, "x"]}, {"a": [1, "x"]}, True),
    ],
)
def test_bools_never_equal_numbers(value: Any, expected: Any, result: bool) -> None:
    assert lenient_equal(value, expected) is result


def test_check_fails_for_a_bool_against_a_number() -> None:
    assert root("c").do(check("n", 1)).run(n=True).status is Status.FAILURE
    assert root("c").do(check("n", 1)).run(n=1).status is Status.SUCCESS


# -- 6. lenient one-output replies -------------------------------------------------------------
@pytest.mark.parametrize(
    ("signature", "reply", "value"),
    [
        ("q -> n: int", '{"n": 7}', 7),
        ("q -> n: int", '  {"n": "7"} ', 7),
        ("q -> n: int", "```\n7\n```", 7),
        ("q -> n: int", '```json\n{"n": 7}\n```', 7),
        ("q -> answer", '{"answer": "Paris"}', "Paris"),
        ("q -> answer", '{"answer": 5}', "5"),
        ("q -> answer", "```text\nParis\n```", "Paris"),
        ("q -> xs: list[int]", '{"xs": [1, 2]}', [1, 2]),
        ("q -> xs: list[int]", "```json\n[1, 2]\n```", [1, 2]),
        ("q -> ok: bool", '{"ok": true}', True),
        ("q -> info: dict", '{"info": 1}', {"info": 1}),  # a dict output is the object itself
        ("q -> answer", '{"answer": "a", "other": 1}', '{"answer": "a", "other": 1}'),
        ("q -> answer", "Paris", "Paris"),
    ],
)
def test_one_output_unwraps_fences_and_its_own_key(signature: str, reply: str, value: Any) -> None:
    name = Signature.parse(signature).output_names[0]
    assert Signature.parse(signature).parse_output(reply) == {name: value}


@pytest.mark.parametrize(
    ("reply", "says"),
    [('{"m": 7}', "is not a valid int"), ('{"n": 7, "m": 1}', "is not a valid int"),
     ("```\nseven\n```", "'seven' is not a valid int"), ('{"n": 7', "is not a valid int")],
)  # fmt: skip
def test_other_objects_and_bad_fenced_values_still_fail(reply: str, says: str) -> None:
    with pytest.raises(ModelOutputError, match=says):
        Signature.parse("q -> n: int").parse_output(reply)


def test_predict_writes_an_unwrapped_single_output() -> None:
    tree = root("p").do(predict("q -> n: int"))
    assert tree.run(model=ScriptedModel('{"n": 7}'), q="x").blackboard["n"] == 7
    assert tree.run(model=ScriptedModel("```\n7\n```"), q="x").blackboard["n"] == 7


# -- authoring builders refuse bad arguments when the tree is built --------------------------
def _built(make: Any) -> AuthoringError:
    with pytest.raises(AuthoringError) as info:
        make()
    assert isinstance(info.value, TypeError)  # ``except TypeError`` keeps working
    return info.value


@pytest.mark.parametrize(
    ("make", "builder", "says"),
    [
        (lambda: act(lookup) >> 5, "store", r"key must be a blackboard key.*got 5"),
        (lambda: act(lookup) >> "", "store", r"key must be .*got ''"),
        (lambda: store(act(lookup), 5), "store", r"key must be .*got 5"),
        (lambda: root("x").model(42), "Root.model", r"model_id must be a model id.*got 42"),
        (lambda: root("x", model=""), "root", r"model must be a model id"),
        (lambda: root(""), "root", r"name must be the skill's name.*got ''"),
        (lambda: act(None), "act", r"fn must be a callable or the non-empty name.*got None"),
        (lambda: act(""), "act", r"fn must be a callable"),
        (lambda: guard_call(5), "guard_call", r"predicate must be a callable"),
        (lambda: root("x").do(42), "Root.do", r"takes one node such as seq\(...\), got 42"),
        (lambda: root("x").do(root("y")), "Root.do", r"got a root"),
        (lambda: root("x").do(act(lookup)).do(act(lookup)), "Root.do", r"already has a child"),
        (lambda: seq(42), "seq", r"seq\(\): children\[\] must be a node .*got 42; wrap a callable"),
        (lambda: sel(act(lookup), "x"), "sel", r"sel\(\): children\[\] must be a node"),
        (lambda: repeat(act(lookup), until=5), "repeat", r"repeat\(\): until must be a node"),
        (lambda: invert(None), "invert", r"invert\(\): child must be a node .*got None"),
        (lambda: seq(root("y")), "seq", r"got a root; a root is only ever the outermost"),
        (lambda: react("q -> a", tools=5), "react", r"tools must be a list"),
        (lambda: react("q -> a", tools="lookup"), "react", r"tools must be a list"),
        (lambda: react("q -> a", tools=[5]), "react", r"tools\[\] must be a callable"),
        (lambda: predict("q -> a", examples=5), "predict", r"examples must be a list of dicts"),
        (lambda: predict("q -> a", examples=[5]), "predict", r"examples\[\] must be a mapping"),
        (lambda: predict("q -> a", input_sources=5), "predict", r"input_sources must be a map"),
        (lambda: check(5, 1), "check", r"key must be a blackboard key"),
        (lambda: root("x").bind(tools=5), "bind", r"tools must be a \{name: callable\} mapping"),
        (lambda: root("x").bind(tools=[5]), "bind", r"tools: 5 is not callable"),
        (lambda: root("x").bind(predicates={1: lookup}), "bind", r"name must be a non-empty"),
        (lambda: root("x").do(act(lookup)).run(tools="lookup"), "bind", r"tools must be a"),
        (lambda: check("k"), "check", r"needs the value to compare with"),
        (lambda: act(lookup, 1, 2, 3), "act", r"arguments do not fit lookup"),
        (lambda: act(lookup, mail=ref("email")), "act", r"unexpected keyword argument 'mail'"),
        (lambda: guard_call(picky, mail="a"), "guard_call", r"do not fit picky\(email\): got an"),
        (lambda: act(max, "x"), "act", r"max: Python cannot read its parameters"),
    ],
)
def test_a_bad_authoring_argument_is_an_authoring_error_at_build_time(
    make: Any, builder: str, says: str
) -> None:
    error = _built(make)
    assert error.builder == builder
    assert re.search(says, str(error)), str(error)


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda: act(lookup, email="a", id=""), "act(): id must be a non-empty string"),
        (lambda: guard_call(picky, email="a", id=""), "guard_call(): id must be a non-empty"),
        (lambda: predict("q -> a", examples=[{"x": 1}]), "examples must be a list of {input"),
        (lambda: predict("q -> a", input_sources={"q": "a..b"}), "malformed path 'a..b'"),
        (lambda: check("a..b", 1), "check(): key: malformed path 'a..b'"),
    ],
)
def test_a_node_the_text_would_refuse_is_refused_when_built(make: Any, says: str) -> None:
    # the same rules as behavior text and validate_ir: formatted, such a tree would not parse
    with pytest.raises(ValidationError) as info:
        make()
    assert says in str(info.value), str(info.value)


def test_a_well_formed_tree_still_builds_and_runs_without_serializer_warnings(
    recwarn: pytest.WarningsChecker,
) -> None:
    tree = root("x").model("m").do(seq(store(act(lookup, email="a"), "c"), act(lookup) >> "d"))
    tree.run(trace_sink=ListTraceSink(), tools={"lookup": lambda email="b": email})
    assert [str(w.message) for w in recwarn.list if "serializ" in str(w.message)] == []


def test_a_tool_name_that_is_not_a_str_is_a_tool_error() -> None:
    from jdsl import tool
    from jdsl.errors import ToolError

    with pytest.raises(ToolError, match="tool name 5 is not a valid host name") as info:
        tool(lookup, name=5)  # type: ignore[arg-type]
    assert info.value.code == "INVALID_NAME"
