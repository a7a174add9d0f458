"""What a tau-bench import gives a run as its inputs: only what the agent was told.

tau-bench's ``info.task.user_id`` is the task's hidden answer key. In retail the user gives an
email or a name and zip code (the agent looks the id up); in airline the user states the id. A
run input is what the conversation's user messages state, never the hidden task info, which
stays metadata.
"""

from __future__ import annotations

import json
from pathlib import Path

from jdsl.demo.retail_styles import style_runs
from jdsl.envs.data import data_path
from jdsl.importers import read_tau_bench
from jdsl.importers.conversation import UserTurn

RAW = Path(str(data_path("tau_airline", "raw", "gpt-4o-airline.dev.json")))


def _user_text(conversation) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(t.content for t in conversation.turns if isinstance(t, UserTurn))


def test_a_retail_run_gets_no_hidden_user_id_as_an_input(tmp_path: Path) -> None:
    path = tmp_path / "retail.json"
    path.write_text(json.dumps(style_runs("direct")[:6]), encoding="utf-8")
    found = read_tau_bench(path)
    assert found.conversations
    for conversation in found.conversations:
        hidden = conversation.metadata["user_id"]
        assert hidden and hidden not in _user_text(conversation)  # the user never says it
        assert "user_id" not in conversation.inputs, conversation.episode_id


def test_an_airline_run_keeps_the_user_id_its_user_states() -> None:
    found = read_tau_bench(RAW)
    stated = [c for c in found.conversations if c.metadata["user_id"] in _user_text(c)]
    assert len(stated) == 70  # 17 of 87 users never say it (e.g. only a reservation id)
    for conversation in found.conversations:
        expected = {"user_id": conversation.metadata["user_id"]} if conversation in stated else {}
        assert conversation.inputs == expected, conversation.episode_id


def test_an_episode_file_run_keeps_the_user_id_only_when_stated() -> None:
    found = read_tau_bench(data_path("tau_airline", "episodes.json"))
    for conversation in found.conversations:
        said = conversation.metadata["user_id"] in _user_text(conversation)
        assert ("user_id" in conversation.inputs) == said
