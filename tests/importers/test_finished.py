"""Every importer ends each run it writes with ``episode.finished``: a run without it reads
as cut off mid-run and is never compiled from (tests/compiler/test_cut_episodes.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from jdsl.envs.data import data_path
from jdsl.importers import import_openai_chat, import_otel, import_tau_bench
from jdsl.trace import EventKind, Trace, segment_episodes

sys.path.insert(0, str(Path(__file__).parent))
from test_openai_chat import CONVERSATION  # noqa: E402

OTEL = Path(__file__).parent / "fixtures" / "openai_agent.otlp.json"


def _chat(tmp_path: Path) -> Path:
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(CONVERSATION) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("which", ["tau-bench", "openai-chat", "otel"])
def test_each_imported_run_ends_with_episode_finished(which: str, tmp_path: Path) -> None:
    trace: Trace = {
        "tau-bench": lambda: import_tau_bench(Path(str(data_path("tau_airline", "episodes.json")))),
        "openai-chat": lambda: import_openai_chat(_chat(tmp_path)),
        "otel": lambda: import_otel(OTEL),
    }[which]()
    episodes = segment_episodes(list(trace))
    assert episodes
    for episode in episodes:
        assert episode.complete, episode.episode_id
        assert episode.events[-1].kind == EventKind.EPISODE_FINISHED
