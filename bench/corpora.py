"""Trace corpora for the compiler benchmark, written as JSONL trace files.

- :func:`retail_corpus`: ``n`` episodes of the retail teacher (docs/design.md appendix B, "Retail Fixture":
  lookup -> list_orders -> predict the target -> get_order) over the retail fixture, world ``i``
  for episode ``i``. Odd worlds have their pending order first, and the scripted model answers
  the pending order's index, so the predicted index varies as a real model's would.
- :func:`airline_corpus`: the real tau-bench airline episodes shipped with jdsl, imported with
  ``jdsl.importers.import_tau_bench``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["airline_corpus", "retail_corpus", "retail_teacher"]


def retail_teacher() -> Any:
    """The retail teacher tree (tools bound by name at run time)."""
    from jdsl import act, predict, ref, root, seq

    return root("retail_lookup", system="You are a careful retail agent.").do(seq(
        act("lookup", email=ref("email")) >> "customer",
        act("list_orders", customer_id=ref("customer.id")) >> "orders",
        predict("request, orders -> selected_index: int", id="resolve_target",
                instructions="Pick the order the customer means; answer with its 0-based index."),
        act("get_order", order_id=ref("orders[$selected_index].id")) >> "order",
    ))  # fmt: skip


def retail_corpus(path: Path, episodes: int, *, start: int = 0) -> Path:
    """Run the teacher ``episodes`` times, traced to a new JSONL file ``path``; returns ``path``.

    Episode ``i`` (``ep_<i>``, world ``i``) for ``i`` from ``start``.

    Raises:
        RuntimeError: a teacher run did not end in success (the corpus would be wrong).
    """
    from jdsl.envs.fixtures import RetailWorld
    from jdsl.testing import ScriptedModel
    from jdsl.trace import JsonlTraceSink

    path.unlink(missing_ok=True)
    sink = JsonlTraceSink(path, resume=False)
    tree = retail_teacher()
    for i in range(start, start + episodes):
        pending_first = i % 2 == 1
        statuses = ("pending", "shipped") if pending_first else ("shipped", "pending")
        world = RetailWorld.numbered(i, statuses=statuses)
        ctx = tree.run(
            model=ScriptedModel("0" if pending_first else "1"), trace_sink=sink,
            capture_id="bench_retail", episode_id=f"ep_{i}", tools=world.tools(),
            email=world.email, request="cancel my pending order",
        )  # fmt: skip
        if ctx.status is None or ctx.status.value != "success":
            raise RuntimeError(f"retail teacher episode {i} ended {ctx.status}: {ctx.error}")
    sink.close()
    return path


def airline_corpus(path: Path) -> Path:
    """The shipped tau-bench airline episodes imported to a new JSONL file ``path``."""
    from jdsl.envs.data import data_path
    from jdsl.importers import import_tau_bench
    from jdsl.trace import JsonlTraceSink

    source = data_path("tau_airline", "episodes.json")
    path.unlink(missing_ok=True)
    import_tau_bench(str(source), sink=JsonlTraceSink(path, resume=False))
    return path
