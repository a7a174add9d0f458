"""Environments over real data: the tau-bench retail environment and the package-data accessors.

See :mod:`jdsl.envs.tau_retail` (``RetailEnv``, tasks, reward) and :mod:`jdsl.envs.data`.
"""

from jdsl.envs.data import DataNotFoundError, data_path, load_json, read_text
from jdsl.envs.tau_retail import RetailEnv, RetailTask, gold_replay, load_tasks, reward, reward_info

__all__ = [
    "DataNotFoundError",
    "RetailEnv",
    "RetailTask",
    "data_path",
    "gold_replay",
    "load_json",
    "load_tasks",
    "read_text",
    "reward",
    "reward_info",
]
