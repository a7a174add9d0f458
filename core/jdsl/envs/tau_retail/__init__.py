"""The tau-bench (v1) retail environment, re-implemented over the real database.

Written from ``tau_retail/TOOLS.md``; the data (users, orders, products, tasks, tool schemas) is
the benchmark's own, shipped in :mod:`jdsl.data` (MIT, Copyright (c) 2024 Sierra)::

    env = RetailEnv()                                  # a fresh episode
    env.step("get_order_details", {"order_id": "#W6067464"})   # JSON text of the order
    tools = env.tools()                                # jdsl tools with the benchmark schemas
    tools = tree_tools(env)                            # the same, returning data (for trees)
    capability_tools()                                 # keyed retail.<name>, for packages
    reward(env, load_tasks("train")[0])                # 1.0 / 0.0 as tau-bench scores it
"""

from jdsl.envs.tau_retail.env import RETAIL_TOOLS, RetailEnv, RetailStep, retail_tool_schemas
from jdsl.envs.tau_retail.initial import initial_reads
from jdsl.envs.tau_retail.reads import TERMINAL_TOOLS, evaluate_arithmetic
from jdsl.envs.tau_retail.store import RetailSnapshot, RetailState, retail_snapshot
from jdsl.envs.tau_retail.tasks import (
    RetailAction,
    RetailReward,
    RetailTask,
    gold_replay,
    load_tasks,
    reward,
    reward_info,
)
from jdsl.envs.tau_retail.tree_tools import (
    CAPABILITY_PREFIX,
    RetailToolError,
    capability_tools,
    structured_result,
    tree_tools,
)
from jdsl.envs.tau_retail.writes import CANCEL_REASONS

__all__ = [
    "CANCEL_REASONS",
    "CAPABILITY_PREFIX",
    "RETAIL_TOOLS",
    "TERMINAL_TOOLS",
    "RetailAction",
    "RetailEnv",
    "RetailReward",
    "RetailSnapshot",
    "RetailState",
    "RetailStep",
    "RetailTask",
    "RetailToolError",
    "capability_tools",
    "evaluate_arithmetic",
    "gold_replay",
    "initial_reads",
    "load_tasks",
    "retail_snapshot",
    "retail_tool_schemas",
    "reward",
    "reward_info",
    "structured_result",
    "tree_tools",
]
