"""What exact dataflow the airline trajectories contain, family by family (a fact of the data).

A compiled package can only take an argument from an earlier tool result when the trajectories
show that value flowing. This pins, for every task family with three or more episodes, whether
any tool argument equals (exactly, as a whole value) a scalar of an earlier result in the same
episode, or a run input.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from jdsl.envs.data import data_path
from jdsl.importers import import_tau_bench
from jdsl.trace import EventKind, TraceEvent


def _scalars(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _scalars(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _scalars(item, f"{path}[{index}]")
    elif isinstance(value, str) and len(value) >= 2:
        yield path, value


def _flows(episode: list[TraceEvent]) -> list[str]:
    sources = {v: f"inputs{p}" for p, v in _scalars(episode[0].payload["inputs"], "")}
    flows = []
    for event in episode:
        tool = event.payload.get("tool", {}).get("host_name")
        if event.kind == EventKind.TOOL_CALL_STARTED:
            for arg, value in event.payload["arguments"].items():
                if isinstance(value, str) and value in sources:
                    flows.append(f"{tool}.{arg} <- {sources[value]}")
        elif event.kind == EventKind.TOOL_CALL_COMPLETED:
            for path, value in _scalars(event.payload["result"], tool):
                sources.setdefault(value, path)
    return flows


def test_which_airline_families_show_exact_dataflow() -> None:
    episodes: dict[str, list[TraceEvent]] = defaultdict(list)
    for event in import_tau_bench(str(data_path("tau_airline", "episodes.json"))):
        episodes[event.episode_id].append(event)
    families: dict[str, list[list[str]]] = defaultdict(list)
    for events in episodes.values():
        families[events[0].payload["task_family"]].append(_flows(events))
    big = {f: flows for f, flows in families.items() if len(flows) >= 3}
    with_flow = sorted(f for f, flows in big.items() if any(flows))
    assert with_flow == ["airline_test_18", "airline_test_20", "airline_test_24", "airline_test_49"]
    # 36, 38, 42, 48: the only calls are get_reservation_details with the id the user typed and
    # transfer_to_human_agents with a free-text summary: no value flows between calls
    assert sorted(set(big) - set(with_flow)) == [
        "airline_test_36",
        "airline_test_38",
        "airline_test_42",
        "airline_test_48",
    ]
    assert (
        "get_reservation_details.reservation_id <- get_user_details.reservations[0]"
        in big["airline_test_18"][0]
    )
    assert "get_user_details.user_id <- inputs.user_id" in big["airline_test_18"][0]
