"""Shared helpers of the tutorial tests: where the notebooks are, the offline set-up, running."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).parents[2] / "notebooks"
KEY_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENAI_COMPATIBLE_API_KEY",
)
CLOSED = "http://127.0.0.1:9"
# a string each tutorial's outputs must show: the lesson actually happened
EXPECTED = {
    "01_quickstart.ipynb": "written by root/sequence.0/action.1",
    "02_predict_and_react.ipynb": "'max_steps'",
    "03_compile_retail.ipynb": "verification passed",
    "04_real_traces.ipynb": "airline_test_18",
    "05_providers_and_tools.ipynb": "cited: ['tau_retail/wiki.md#cancel-pending-order']",
}


# what a tutorial's prose says, and the output that must show it: (prose, output) pairs, both
# compared with whitespace collapsed; outputs include the static HTML views (tags removed)
CLAIMS: dict[str, list[tuple[str, str]]] = {
    "01_quickstart.ipynb": [
        ("gives its 16 tools", "'think', 'transfer_to_human_agents']"),
        ("The run view above is a step-through debugger", "RunView(status='success', events=24)"),
        ("the tree is recoloured as of that step", "the live view steps through the run"),
    ],
    "02_predict_and_react.ipynb": [
        (
            "The run view's header says where the run stopped and why",
            "stopped at predict(request -> reason) [root/predict.0]: output reason:",
        ),
        (
            "summarised as the tool call it requests (`requests "
            'get_order_details(order_id="#W7602708")`)',
            '7 7 model.responded root/react.0 requests get_order_details(order_id="#W7602708")',
        ),
        (
            "reports it, naming both nodes",
            "act escalate(level=urgency) passes urgency to parameter level: integer, but predict "
            '"ticket -> urgency" [rate_urgency] writes it as string',
        ),
        (
            "a run does the same check first and stops with the report",
            "BehaviorCheckError: the tree does not pass its static check",
        ),
        (
            "stops with a reason, reports the actions it left pending",
            "('partial', 'max_steps', ['get_order_details'])",
        ),
        (
            "The run view's slider walks the same events one by one",  # the last cell: a live view
            "RunView(status='success', events=17) (live view; the static view is the output above)",
        ),
    ],
    "03_compile_retail.ipynb": [
        (
            "The `verification` line says how many episodes were executed and matched.",
            "verification passed - executed 24 teacher episodes, 24 matched",
        ),
        (
            "The package prints back as editable behavior text:",  # and the next cell prints it
            "act retail.cancel_pending_order(order_id=user.orders[$order_index], reason=reason) "
            "-> cancelled id=retail_cancel",
        ),
        ("ordered by support (15 and 9 episodes)", "15 episodes, when exists(email)"),
        (
            "`dev/6` states a name and four candidate emails",
            "dev/6 none no identity the package can use",
        ),
    ],
    "04_real_traces.ipynb": [
        (
            "(a *lineage* path such as `get_user_details_out.reservations[0]`)",
            "get_user_details_out.reservations[0]",
        ),
        (
            "(`reservation_id = ref reservation_id (input, stated by the user)`)",
            "get_reservation_details.reservation_id = ref reservation_id (input, stated by the user)",
        ),
        (
            "Verification **passes, with one run handed to the fallback**",
            "executed 3 episode(s), 2 matched, 1 fallback",
        ),
        (
            "the `branch` line's `hand over to the fallback`",
            "hand over to the fallback (1 episodes",
        ),
        (
            "Some families with no dataflow ref verify (`airline_test_36`",
            "airline_test_36 3 0 0 passed",
        ),
        (
            "every family of three runs verifies (`airline_test_18` with one run handed over",
            "airline_test_18 3 0 1 passed",
        ),
        ("Three families of two runs fail (`airline_test_12`", "airline_test_12 2 1 0 failed"),
        ("`airline_test_13` and", "airline_test_13 2 6 1 failed"),
        ("and `airline_test_40`)", "airline_test_40 2 0 0 failed"),
        (
            "the family whose held-out run the table above hands to its *fallback*",
            "6 passed 2.0 2.0 0.0 fallback",  # its two compile runs are matched
        ),
        (
            "(`handed to the fallback at step 0 after 0 matching write(s)`)",
            "episode tau_airline_test_2_2: handed to the fallback at step 0 after 0 matching write(s)",
        ),
        ("the route decision answers `other`", "was false (route = 'other')"),
        ("stands against `(no call)`", "package: (no call)"),
        ("the row under step 0 marks where the fallback", "fallback fallback takes over"),
        ("Here there are none:", "[]"),
    ],
    "05_providers_and_tools.ipynb": [
        (
            "A missing key is a clear error that names the variable to set",
            "ANTHROPIC_API_KEY in the environment or a .env file",
        ),
        (
            "A tool is callable only with a `tool` grant for its name",
            "Denied: tool permission denied for 'cancel_pending_order'",
        ),
    ],
}


def flat(text: str) -> str:
    return " ".join(text.split())


def markdown_text(nb: nbformat.NotebookNode) -> str:
    return flat("\n".join(c.source for c in nb.cells if c.cell_type == "markdown"))


def output_all(nb: nbformat.NotebookNode) -> str:
    """Every output as text: streams, text/plain, and text/html without its tags."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            parts += [out.get("text", ""), str(data.get("text/plain", ""))]
            markup = re.sub(r"<style>.*?</style>", " ", str(data.get("text/html", "")), flags=re.S)
            parts.append(html.unescape(re.sub(r"<[^>]+>", " ", markup)))
    return flat("\n".join(parts))


def tutorial_paths() -> list[Path]:
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def offline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No keys, no reachable proxy, no stray renderer choice: the CI set-up."""
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(name, CLOSED)
    monkeypatch.setenv("NO_PROXY", "")


def execute(path: Path, workdir: Path, kernel_name: str = "python3") -> nbformat.NotebookNode:
    """Run every cell of ``path`` in ``workdir``; raises CellExecutionError on a failing cell."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=300, kernel_name=kernel_name, resources={"metadata": {"path": str(workdir)}}
    )
    client.execute()
    return nb


def output_text(nb: nbformat.NotebookNode) -> str:
    """Every stream and text/plain output of ``nb``, joined."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.append(json.dumps(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)
