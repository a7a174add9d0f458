"""The retail read tools, calculate, the episode bookkeeping and the jdsl tool surface."""

from __future__ import annotations

import inspect
import json

import pytest
from jdsl.envs.data import load_json
from jdsl.envs.tau_retail import RETAIL_TOOLS, RetailEnv, evaluate_arithmetic, retail_tool_schemas
from jdsl.errors import BindingError
from jdsl.interaction.registry import ToolRegistry
from jdsl.interaction.sandbox import Sandbox
from jdsl.interaction.tools import Tool, tool_spec
from jdsl.providers.messages import ToolCall

USERS = load_json("tau_retail", "db", "users.json")


def test_records_are_returned_as_json_dumps_of_the_record() -> None:
    env = RetailEnv()
    assert env.step("get_user_details", {"user_id": "noah_brown_6181"}) == json.dumps(
        USERS["noah_brown_6181"]
    )
    order = json.loads(env.step("get_order_details", {"order_id": "#W6067464"}))
    assert order["order_id"] == "#W6067464"
    product = json.loads(env.step("get_product_details", {"product_id": "6819683148"}))
    assert product["name"] == "Grill"


def test_find_user_by_email_ignores_case_and_by_name_zip_needs_the_exact_zip() -> None:
    env = RetailEnv()
    assert (
        env.step("find_user_id_by_email", {"email": "Noah.Brown7922@EXAMPLE.com"})
        == "noah_brown_6181"
    )
    args = {"first_name": "NOAH", "last_name": "brown", "zip": "80279"}
    assert env.step("find_user_id_by_name_zip", args) == "noah_brown_6181"
    assert (
        env.step("find_user_id_by_name_zip", {**args, "zip": "80279 "}) == "Error: user not found"
    )


def test_look_ups_see_this_episodes_changes() -> None:
    env = RetailEnv()
    address = {
        "address1": "1 A St",
        "address2": "",
        "city": "Reno",
        "state": "NV",
        "country": "USA",
        "zip": "89501",
    }
    env.step("modify_user_address", {"user_id": "noah_brown_6181", **address})
    by_new_zip = {"first_name": "Noah", "last_name": "Brown", "zip": "89501"}
    assert env.step("find_user_id_by_name_zip", by_new_zip) == "noah_brown_6181"
    assert RetailEnv().step("find_user_id_by_name_zip", by_new_zip) == "Error: user not found"


def test_list_all_product_types_is_sorted_by_name() -> None:
    types = json.loads(RetailEnv().step("list_all_product_types", {}))
    assert len(types) == 50 and list(types) == sorted(types)
    assert types["Grill"] == "6819683148"


@pytest.mark.parametrize(
    ("expression", "result"),
    [
        ("2 + 2", "4.0"),
        ("(1027.76 + 96) * 1", "1123.76"),
        ("10 / 3", "3.33"),
        ("-3.5 * 2", "-7.0"),
        ("2 ** 10", "1024.0"),
        ("7 // 2", "3.0"),
    ],
)
def test_calculate_evaluates_arithmetic_and_rounds_to_two_places(
    expression: str, result: str
) -> None:
    assert RetailEnv().step("calculate", {"expression": expression}) == result


@pytest.mark.parametrize("expression", ["2 +", "()", "9 ** 9 ** 9", ""])
def test_calculate_reports_a_bad_expression_as_an_error_string(expression: str) -> None:
    assert RetailEnv().step("calculate", {"expression": expression}).startswith("Error: ")


def test_evaluate_arithmetic_rejects_anything_but_numbers() -> None:
    with pytest.raises(ValueError, match="unsupported"):
        evaluate_arithmetic("(1, 2)")
    with pytest.raises(SyntaxError):
        evaluate_arithmetic("1 +* 2 )")


def test_think_and_transfer() -> None:
    env = RetailEnv()
    assert env.step("think", {"thought": "the order is pending"}) == ""
    assert not env.done
    assert (
        env.step("transfer_to_human_agents", {"summary": "wants a refund"}) == "Transfer successful"
    )
    assert env.done
    assert [s.name for s in env.history] == ["think", "transfer_to_human_agents"]


def test_a_failed_transfer_does_not_end_the_episode() -> None:
    env = RetailEnv()
    assert env.step("transfer_to_human_agents", {}).startswith("Error: ")
    assert not env.done


def test_the_tools_follow_the_benchmark_schemas() -> None:
    schemas = retail_tool_schemas()
    assert sorted(RETAIL_TOOLS) == sorted(entry["name"] for entry in schemas)
    for entry in schemas:
        params = list(inspect.signature(RETAIL_TOOLS[entry["name"]]).parameters)[1:]
        assert params == list(entry["parameters"]["properties"]), entry["name"]


def test_env_tools_are_bound_jdsl_tools_with_the_schemas() -> None:
    env = RetailEnv()
    tools = {t.name: t for t in env.tools()}
    assert len(tools) == 16 and all(isinstance(t, Tool) for t in tools.values())
    get_order = tools["get_order_details"]
    assert get_order.parameters["required"] == ["order_id"]
    assert get_order.description == "Get the status and details of an order."
    assert tool_spec(get_order).parameters == get_order.parameters
    assert get_order(order_id="#W0") == "Error: order not found"
    tools["cancel_pending_order"](order_id="#W7602708", reason="no longer needed")
    assert env.db.read("orders", "#W7602708")["status"] == "cancelled"
    assert [s.name for s in env.history] == ["get_order_details", "cancel_pending_order"]


def test_env_tools_can_be_chosen_by_name() -> None:
    env = RetailEnv()
    assert [t.name for t in env.tools(["think", "calculate"])] == ["think", "calculate"]
    assert [s.name for s in env.tool_specs(["think"])] == ["think"]
    with pytest.raises(BindingError, match="no retail tool named 'refund'"):
        env.tools(["refund"])


def test_respond_records_the_agents_replies() -> None:
    env = RetailEnv()
    env.respond("Your order is cancelled.")
    assert env.replies == ["Your order is cancelled."]


def test_env_tools_register_in_a_tool_registry_and_answer_with_the_env_strings() -> None:
    env = RetailEnv()
    registry = ToolRegistry(env.tools(), sandbox=Sandbox(grants={"tool": ["*"]}))  # schemas checked
    assert len(registry) == 16
    result = registry.call(
        ToolCall(id="c1", name="get_order_details", arguments={"order_id": "#W6067464"})
    )
    assert result.ok and json.loads(result.content)["status"] == "delivered"
    refused = registry.call(
        ToolCall(
            id="c2",
            name="cancel_pending_order",
            arguments={"order_id": "#W6067464", "reason": "no longer needed"},
        )
    )
    assert refused.content == "Error: non-pending order cannot be cancelled"
    assert [s.result for s in env.history] == [result.content, refused.content]
