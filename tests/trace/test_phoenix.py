"""A real trace backend: a local Arize Phoenix receives jdsl spans over OTLP/HTTP and gives them
back through its own client, with the span tree and the GenAI attributes intact.

The server is ``phoenix serve`` on 127.0.0.1 (free ports, a temporary working directory and
SQLite file, telemetry and external resources off), stopped when the module's tests end.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

if importlib.util.find_spec("phoenix") is None:  # not importorskip: importing phoenix takes s
    pytest.skip(
        "arize-phoenix is not installed (pip install 'jdsl[phoenix]')", allow_module_level=True
    )
pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]  # Phoenix's own

from jdsl.demo.family import cancel_tasks, task_inputs  # noqa: E402
from jdsl.demo.teacher import GoldChoice, offline_teacher, teacher_tree  # noqa: E402
from jdsl.envs.tau_retail import RetailEnv, tree_tools  # noqa: E402
from jdsl.trace import ListTraceSink  # noqa: E402
from jdsl.trace.otel import OtelSink, export_otel  # noqa: E402

_START_TIMEOUT_S = 120


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _command() -> list[str]:
    exe = Path(sys.executable).parent / "phoenix"
    return (
        [str(exe), "serve"]
        if exe.exists()
        else [sys.executable, "-m", "phoenix.server.main", "serve"]
    )


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a local Phoenix, started for this module and stopped after it."""
    work = tmp_path_factory.mktemp("phoenix")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PHOENIX_", "OTEL_"))}
    env.update(
        PHOENIX_WORKING_DIR=str(work), PHOENIX_HOST="127.0.0.1", PHOENIX_PORT=str(port),
        PHOENIX_GRPC_PORT=str(_free_port()), PHOENIX_SQL_DATABASE_URL=f"sqlite:///{work}/phoenix.db",
        PHOENIX_TELEMETRY_ENABLED="false", PHOENIX_ALLOW_EXTERNAL_RESOURCES="false",
    )  # fmt: skip
    log = (work / "server.log").open("wb")
    server = subprocess.Popen(_command(), env=env, cwd=work, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, server, work / "server.log")
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
        log.close()
        shutil.rmtree(work, ignore_errors=True)


def _wait_ready(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + _START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"phoenix serve exited {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    pytest.fail(f"phoenix serve not ready in {_START_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")


def _retail_run(sink: Any) -> Any:
    task = cancel_tasks()[0]
    return teacher_tree().run(
        model=offline_teacher(GoldChoice.of(task)), trace_sink=sink,
        tools=tree_tools(RetailEnv()), **task_inputs(task),
    )  # fmt: skip


def _spans(url: str, project: str, expected: int) -> list[dict[str, Any]]:
    """The project's spans once Phoenix has stored ``expected`` of them (it ingests async)."""
    from phoenix.client import Client

    client = Client(base_url=url)
    deadline = time.monotonic() + 30
    spans: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        try:
            spans = list(client.spans.get_spans(project_identifier=project, limit=1000))
        except Exception:  # noqa: BLE001 - the project appears with its first span
            spans = []
        if len(spans) >= expected:
            return spans
        time.sleep(0.5)
    pytest.fail(f"Phoenix holds {len(spans)} of {expected} spans of project {project!r}")


def _attributes(span: dict[str, Any]) -> dict[str, Any]:
    """Flat ``a.b.c`` attributes whether Phoenix returns them flat or nested."""
    flat: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{prefix}.{key}" if prefix else key, inner)
        else:
            flat[prefix] = value

    walk("", dict(span.get("attributes") or {}))
    return flat


def _check_retail_tree(spans: list[dict[str, Any]]) -> None:
    by_id = {s["context"]["span_id"]: s for s in spans}
    (agent,) = [s for s in spans if not s.get("parent_id")]
    assert agent["name"] == "invoke_agent retail_cancel"
    assert _attributes(agent)["gen_ai.operation.name"] == "invoke_agent"
    assert len({s["context"]["trace_id"] for s in spans}) == 1

    def parent(span: dict[str, Any]) -> dict[str, Any]:
        return by_id[span["parent_id"]]

    root_span = next(s for s in spans if s["name"] == "root 'retail_cancel'")
    assert parent(root_span) is agent
    cancel = next(s for s in spans if s["name"] == "execute_tool cancel_pending_order")
    assert parent(cancel)["name"] == "act(cancel_pending_order) -> cancelled"
    attributes = _attributes(cancel)
    assert attributes["gen_ai.tool.name"] == "cancel_pending_order"
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    chats = [s for s in spans if s["name"].startswith("chat ")]
    assert len(chats) == 2
    assert {_attributes(parent(s))["jdsl.node.id"] for s in chats} == {
        "choose_order",
        "choose_reason",
    }
    assert all(_attributes(s)["gen_ai.operation.name"] == "chat" for s in chats)
    assert {s["span_kind"] for s in chats} == {"LLM"}  # Phoenix reads openinference.span.kind


def test_a_recorded_retail_run_exported_to_phoenix_reads_back_as_its_span_tree(phoenix) -> None:
    sink = ListTraceSink()
    assert _retail_run(sink).status.value == "success"
    count = export_otel(sink.events, endpoint=phoenix, service_name="jdsl-recorded")
    spans = _spans(phoenix, "jdsl-recorded", count)
    assert len(spans) == count
    _check_retail_tree(spans)


def test_a_live_run_streams_its_spans_to_phoenix(phoenix) -> None:
    with OtelSink(phoenix, service_name="jdsl-live") as sink:
        assert _retail_run(sink).status.value == "success"
    assert sink.errors == 0
    spans = _spans(phoenix, "jdsl-live", 21)
    _check_retail_tree(spans)
