"""Environments: the tau-bench retail environment over real data, and the small retail fixture.

See :mod:`jdsl.envs.tau_retail` (``RetailEnv``, tasks, reward), :mod:`jdsl.envs.data` (package
data) and :mod:`jdsl.envs.fixtures` (``retail_fixture_tools`` for tests and tutorials).
"""

from jdsl.envs.data import DataNotFoundError, data_path, load_json, read_text
from jdsl.envs.fixtures import RetailWorld, retail_fixture_tools
from jdsl.envs.tau_retail import RetailEnv, RetailTask, gold_replay, load_tasks, reward, reward_info

__all__ = [
    "DataNotFoundError",
    "RetailEnv",
    "RetailTask",
    "RetailWorld",
    "data_path",
    "gold_replay",
    "load_json",
    "load_tasks",
    "read_text",
    "retail_fixture_tools",
    "reward",
    "reward_info",
]
