"""tau-bench results files shaped as *other* models and tau-bench versions write them.

jdsl is measured on one real results file (gpt-4o airline, ``tool-calling``). Real files of other
models and tau-bench revisions differ from it in ways this module reproduces, each as a
transformation of a real or scripted file (never new tool results: every result is the real
file's, or :class:`~jdsl.envs.tau_retail.RetailEnv`'s over the benchmark's database):

* message shapes: text alongside ``tool_calls``; parallel calls in one assistant message;
  ``content: ""`` and the extra keys a provider SDK's ``model_dump()`` adds (``function_call``,
  ``refusal``, ``audio``, ``index``); tool messages without ``name``; arguments as objects;
* run metadata: ``info`` without ``task`` / ``reward_info`` / ``user_cost`` or with extra keys;
  trials 0..k; instruction texts of another task revision;
* agents: a weak model (mostly reward 0; repeated identical reads, a wrong argument then the
  right one, a tool that does not exist, a hand-over in the middle); ``react`` with Thought
  blocks holding JSON-looking text; very long runs.

``python -m bench.unseen_files OUT_DIR`` writes one ``<name>.json`` per variation.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from jdsl.demo.retail_styles import Style, style_runs
from jdsl.envs.data import data_path
from jdsl.importers.tau_results import as_action_traj

Row = dict[str, Any]
Msg = dict[str, Any]


def airline_rows() -> list[Row]:
    """The shipped gpt-4o airline results file (87 runs)."""
    rows: list[Row] = json.loads(
        data_path("tau_airline", "raw", "gpt-4o-airline.dev.json").read_text(encoding="utf-8")
    )
    return rows


def _map_traj(rows: list[Row], fn: Callable[[list[Msg], random.Random], list[Msg]]) -> list[Row]:
    rng = random.Random(7)
    return [dict(copy.deepcopy(r), traj=fn(copy.deepcopy(r["traj"]), rng)) for r in rows]


def text_with_calls(traj: list[Msg], rng: random.Random) -> list[Msg]:
    """Claude/Gemini through litellm: a sentence before every tool call."""
    for m in traj:
        if m.get("tool_calls") and not m.get("content"):
            name = m["tool_calls"][0]["function"]["name"]
            m["content"] = f"Let me use {name} to check that for you."
    return traj


def parallel(traj: list[Msg], rng: random.Random) -> list[Msg]:
    """Consecutive single-call turns merged into one assistant message with several calls
    (results follow in call order), as models with parallel tool calls write them."""
    out: list[Msg] = []
    i = 0
    while i < len(traj):
        m = traj[i]
        if m["role"] == "assistant" and m.get("tool_calls"):
            calls, results = list(m["tool_calls"]), []
            j = i + 1
            while j < len(traj) and traj[j]["role"] == "tool":
                results.append(traj[j])
                j += 1
            while (
                j + 1 < len(traj)
                and traj[j]["role"] == "assistant"
                and traj[j].get("tool_calls")
                and not traj[j].get("content")
                and traj[j + 1]["role"] == "tool"
                and len(calls) < 3
                and traj[j]["tool_calls"][0]["id"] not in {c["id"] for c in calls}
            ):
                calls += traj[j]["tool_calls"]
                results.append(traj[j + 1])
                j += 2
            out.append(dict(m, tool_calls=calls))
            out.extend(results)
            i = j
            continue
        out.append(m)
        i += 1
    return out


def first_call_only(traj: list[Msg], rng: random.Random) -> list[Msg]:
    """tau-bench before it cut ``tool_calls`` to the first: the model asked for two calls at
    once (this one and the run's next), only the first ran and was answered; the model made the
    second again in a later turn."""
    calls = [m for m in traj if m.get("tool_calls")]
    for this, after in zip(calls, calls[1:], strict=False):
        extra = {**after["tool_calls"][0], "id": after["tool_calls"][0]["id"] + "x"}
        this["tool_calls"] = [*this["tool_calls"], extra]
    return traj


def sdk_dump(traj: list[Msg], rng: random.Random) -> list[Msg]:
    """A provider SDK's ``model_dump()``: ``content: ""`` with calls, null extras, call
    ``index``, and tool messages without ``name``."""
    for m in traj:
        if m["role"] == "assistant":
            m.update(function_call=None, refusal=None, audio=None)
            if m.get("tool_calls"):
                m["content"] = m.get("content") or ""
                for k, c in enumerate(m["tool_calls"]):
                    c["index"] = k
            else:
                m["tool_calls"] = None
        if m["role"] == "tool":
            m.pop("name", None)
    return traj


def blank_ids(traj: list[Msg], rng: random.Random) -> list[Msg]:
    """Model servers that give every call the id ``""`` (tau-bench copies it to the tool
    message's ``tool_call_id``)."""
    for m in traj:
        for c in m.get("tool_calls") or ():
            c["id"] = ""
        if m["role"] == "tool":
            m["tool_call_id"] = ""
    return traj


def args_objects(traj: list[Msg], rng: random.Random) -> list[Msg]:
    """Arguments as JSON objects instead of JSON text (exports through another SDK)."""
    for m in traj:
        for c in m.get("tool_calls") or ():
            c["function"]["arguments"] = json.loads(c["function"]["arguments"] or "{}")
    return traj


def info_variants(rows: list[Row]) -> list[Row]:
    """``info`` as other revisions write it, cycling: without ``task``; without
    ``reward_info`` and ``user_cost``; with extra keys; ``task`` without ``user_id``; no
    ``info`` at all; ``trial`` missing."""
    out = []
    for k, r in enumerate(copy.deepcopy(rows)):
        info = r["info"]
        kind = k % 6
        if kind == 0:
            info.pop("task", None)
        elif kind == 1:
            info.pop("reward_info", None)
            info.pop("user_cost", None)
        elif kind == 2:
            info.update(total_cost=0.123, agent_cost=0.1, error=None, traceback=None)
            info["task"]["annotator"] = "3"
        elif kind == 3:
            info["task"].pop("user_id", None)
        elif kind == 4:
            r.pop("info")
        else:
            r.pop("trial")
        out.append(r)
    return out


def trials(rows: list[Row], k: int) -> list[Row]:
    """``run.py --num-trials k``: every run's trial renumbered 0..k-1 round the file's
    order, with a few more runs per task (the file's runs of another trial)."""
    by_task: dict[Any, list[Row]] = {}
    for r in rows:
        by_task.setdefault(r["task_id"], []).append(r)
    out = []
    for t in range(k):
        for task_id in sorted(by_task):
            runs = by_task[task_id]
            out.append(dict(copy.deepcopy(runs[t % len(runs)]), trial=t))
    return out


def reworded(rows: list[Row]) -> list[Row]:
    """Instruction texts of another task revision (tau-bench edited task texts)."""
    out = copy.deepcopy(rows)
    for r in out:
        task = r["info"]["task"]
        task["instruction"] = "Your name is " + task["instruction"].replace("You are ", "", 1)
    return out


_JSONY = (
    'The tool said {"status": "pending", "order_id": "#W0000000"}; I think the next call is '
    '{"name": "get_order_details", "arguments": {"order_id": "#W0000000"}} but let me check.'
)


def react_jsony(traj: list[Msg], rng: random.Random) -> list[Msg]:
    """``react`` whose Thought blocks hold JSON-looking text (and the word Action)."""
    out = as_action_traj(traj, react=True)
    for m in out:
        if m["role"] == "system":  # the react agent's prompt: policy, the tools, the format
            m["content"] += (
                "\n#Available tools\n"
                + json.dumps([{"type": "function", "function": {"name": "get_weather"}}])
                + "\n# Instruction\nAnswer in this format:\nThought:\n<one line>\nAction:\n"
                '{"name": <the action>, "arguments": <its arguments as JSON>}\n'
            )
        m.update(tool_calls=None, function_call=None)  # litellm Message fields
        if m["role"] == "assistant":
            m["content"] = m["content"].replace(
                "Thought:\n", f"Thought:\n{_JSONY} The Action I take:\n", 1
            )
    return out


def weak(traj: list[Msg], rng: random.Random, *, hand_over: bool = True) -> list[Msg]:
    """A weak model: every read repeated, a tool that does not exist, a lookup with a wrong id
    first (answered ``Error: ...``), and a hand-over to a human agent in the middle."""
    out: list[Msg] = []
    n = 0

    def call(name: str, args: dict[str, Any], result: str) -> Iterator[Msg]:
        nonlocal n
        n += 1
        cid = f"call_weak_{n}"
        fn = {"name": name, "arguments": json.dumps(args)}
        yield {"role": "assistant", "content": None, "tool_calls": [
            {"id": cid, "type": "function", "function": fn}]}  # fmt: skip
        yield {"role": "tool", "tool_call_id": cid, "name": name, "content": result}

    first_user = True
    for i, m in enumerate(traj):
        if m["role"] == "user" and not first_user and rng.random() < 0.15:
            out.extend(call("lookup_booking", {"query": "status"}, "Unknown action lookup_booking"))
        out.append(m)
        if m["role"] == "user":
            first_user = False
        calls = m.get("tool_calls") or []
        if m["role"] == "tool" and i > 0 and (traj[i - 1].get("tool_calls") or []):
            fn = traj[i - 1]["tool_calls"][0]["function"]
            if fn["name"].startswith(("get_", "search_", "find_", "list_")):
                args = json.loads(fn["arguments"] or "{}")
                out.extend(call(fn["name"], args, m["content"]))  # the same read again
        if calls and calls[0]["function"]["name"].startswith("get_") and rng.random() < 0.3:
            args = json.loads(calls[0]["function"]["arguments"] or "{}")
            key = next(iter(args), None)
            if key and isinstance(args[key], str):
                wrong = {**args, key: args[key].lower() + "x"}
                what = key.removesuffix("_id")
                bad = list(call(calls[0]["function"]["name"], wrong, f"Error: {what} not found"))
                out[-1:-1] = bad  # before the right call
    if hand_over and len(out) > 6:
        mid = len(out) // 2
        while mid < len(out) and out[mid]["role"] != "user":
            mid += 1
        hand = list(call("transfer_to_human_agents", {"summary": "help"}, "Transfer successful"))
        out[mid:mid] = hand
    return out


def few_successes(rows: list[Row]) -> list[Row]:
    """Mostly failures: every failed run, and the first successful run of one task in three."""
    seen: set[Any] = set()
    out = []
    for r in rows:
        if r["reward"] < 1 or (r["task_id"] not in seen and len(seen) % 3 == 0):
            out.append(r)
        if r["reward"] >= 1:
            seen.add(r["task_id"])
    return out


def long_run(traj: list[Msg], rng: random.Random) -> list[Msg]:
    """Very long runs: each user/assistant exchange chatted out ten times."""
    out: list[Msg] = []
    for m in traj:
        out.append(m)
        if m["role"] == "user" and out[-2:-1] and out[-2]["role"] == "assistant":
            for _ in range(10):
                out.append({"role": "assistant", "content": "Could you say that once more?"})
                out.append({"role": "user", "content": m["content"]})
    return out


def weak_retail(strategy: str = "tool-calling", *, hand_over: bool = True) -> list[Row]:
    """A weak model on retail: 85 % of runs fail, 12 tasks a family, two trials, its
    tool-calling runs made weak (:func:`weak`; ``hand_over``: with a hand-over in the middle),
    then written in ``strategy``."""
    style = Style("weak", "tool-calling", "instruction", "mixed", extra_reads=0.3, recover=0.4,
                  fail=0.85, second_run=1.0, tasks_per_family=12)  # fmt: skip
    rows = _map_traj(style_runs(style), lambda t, r: weak(t, r, hand_over=hand_over))
    if strategy != "tool-calling":
        for r in rows:
            r["traj"] = as_action_traj(r["traj"], react=strategy == "react")
    return rows


def variations() -> dict[str, list[Row]]:
    """Every variation by name (the module docstring)."""
    air = airline_rows()
    retail = style_runs(Style("v1retail", "tool-calling", "instruction", "mixed",
                              extra_reads=0.2, fail=0.2, second_run=1.0))  # fmt: skip
    return {
        "air_text_with_calls": _map_traj(air, text_with_calls),
        "air_parallel": _map_traj(air, parallel),
        "air_first_call_only": _map_traj(air, first_call_only),
        "air_sdk_dump": _map_traj(air, sdk_dump),
        "air_blank_ids": _map_traj(air, blank_ids),
        "air_args_objects": _map_traj(air, args_objects),
        "air_info_variants": info_variants(air),
        "air_trials5": trials(air, 5),
        "air_reworded": reworded(air),
        "air_react_jsony": _map_traj(air, react_jsony),
        "air_weak": _map_traj(few_successes(air), weak),
        "air_long": _map_traj(air, long_run),
        "retail_v1": retail,
        "retail_reworded": reworded(retail),
        "retail_parallel_text": _map_traj(_map_traj(retail, parallel), text_with_calls),
        "retail_weak_tc": weak_retail(),
        "retail_weak_act": weak_retail("act"),
        "retail_weak_no_hand_over": weak_retail("react", hand_over=False),
        "retail_react_12_tasks": style_runs(
            Style(
                "r12",
                "react",
                "name_zip",
                "mixed",
                extra_reads=0.3,
                think=0.3,
                recover=0.2,
                fail=0.3,
                tasks_per_family=12,
            )
        ),
        "retail_trials4": style_runs(
            Style("k4", "act", "email", "mixed", extra_reads=0.3, think=0.2, recover=0.2, fail=0.3),
            trials=4,
        ),
        "retail_react_jsony": _map_traj(retail, react_jsony),
    }


def main(argv: list[str]) -> None:
    out = Path(argv[0] if argv else "unseen")
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in variations().items():
        (out / f"{name}.json").write_text(json.dumps(rows), encoding="utf-8")
        ok = sum(r.get("reward") == 1.0 for r in rows)
        print(f"{out / name}.json: {len(rows)} runs, {ok} with reward 1")


if __name__ == "__main__":
    main(sys.argv[1:])
