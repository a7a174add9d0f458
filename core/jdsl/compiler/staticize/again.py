"""Runs that write again where the compiled program ends: a route to the fallback there.

An intent family collapses immediate repeats of a write (:mod:`jdsl.compiler.families`): a run
that exchanges the items of two orders is in the family of runs that exchange one. In a large
family such runs are few, and each takes its own way (another order lookup, one or two product
lookups), so no path of theirs has the support to be compiled; the compiled program makes the
write once and ends, and those runs end without their second write.

:func:`again_fork` closes the program with a route decision asked after its last call: ``done``
(the run ends, as the compiled paths' runs do) or ``again`` (the run has more to do: a guard
that never holds hands the rest of the run to the package's fallback, which sees the
conversation and what the blackboard holds). In replay the route is answered from the record
(:mod:`jdsl.compiler.decisions`): ``again`` when the run made more successful writes than the
path it took through the program, else ``done``. It is added only when some successful run of
the family that no compiled path follows makes the writes of a compiled path and then more.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Sequence

from jdsl.compiler.branches import Lane
from jdsl.compiler.compiled import NodeProvenance
from jdsl.compiler.consolidate import support_grade
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.staticize.calls import route_check, route_decision
from jdsl.compiler.staticize.fragment import EMPTY, Build, Fragment, Here
from jdsl.compiler.store import episode_ids

__all__ = ["AGAIN", "again_fork", "writing_again"]

AGAIN = "the recorded run writes again here"
"""What the ``again`` alternative's guard compares (its reason, in the trace and the
fallback's input)."""


def _writes(episode: NormEpisode, read_only: Callable[[str], bool]) -> tuple[str, ...]:
    return tuple(s.logical_tool for s in episode.ok_steps() if not read_only(s.logical_tool))


def writing_again(
    pool: Sequence[NormEpisode],
    lanes: Sequence[Lane],
    kept: Collection[str],
    read_only: Callable[[str], bool],
) -> list[NormEpisode]:
    """The successful runs in ``pool`` that no compiled lane follows (``kept``: the ids of the
    runs that one does) and that make the writes of a compiled lane, then more. None when a
    lane loops over a write (a loop makes as many writes as its list holds)."""
    if any(" " in token and not read_only(token.split()[-1])
           for lane in lanes for token in lane.skeleton):  # fmt: skip
        return []
    paths = {_writes(lane.episodes[0], read_only) for lane in lanes if lane.episodes}
    found = []
    for episode in pool:
        if episode.episode_id in kept:
            continue
        writes = _writes(episode, read_only)
        if any(path and len(writes) > len(path) and writes[: len(path)] == path
               for path in paths):  # fmt: skip
            found.append(episode)
    return found


def again_fork(here: Here, again: Sequence[NormEpisode], tools: Sequence[str]) -> Fragment:
    """The route decision and selector closing the program (module docstring) at ``here``;
    ``again``: the runs that write again, ``tools``: the writes they go on with."""
    if not again:
        return EMPTY
    what = ", ".join(dict.fromkeys(t.rsplit(".", 1)[-1] for t in tools))
    routes = [("done", "the user's requests are all done: end the run"),
              ("again", f"the user asked for more ({what} again): hand the rest of the run "
                        "to the fallback")]  # fmt: skip
    b = Build(here)
    key, made = route_decision(b.here, routes, "more_to_do")  # one per program
    b.add(made)
    node_id = b.id("write_again")
    done_id, again_id = b.id(f"{node_id}_done"), b.id(f"{node_id}_again")
    done = route_check(b.here, key, "done", f"{node_id}_done_when")
    b.add(dataclasses.replace(done, nodes=()))  # its node goes into the alternative
    check = route_check(b.here, key, "again", f"{node_id}_again_when")
    b.add(dataclasses.replace(check, nodes=()))
    guard_id = b.id(f"{node_id}_hand_over")
    guard = {"kind": "guard", "id": guard_id,
             "expression": {"eq": [{"const": AGAIN}, {"const": "a compiled path"}]}}  # fmt: skip
    ids = tuple(sorted(episode_ids(again)))
    records = (
        NodeProvenance(
            node_id, "selector", support_grade(len(again)), source_episodes=ids,
            rationale=f"{len(again)} successful run(s) make the compiled writes, then more "
                      f"({what}), each its own way: a route decision after the last call "
                      "ends the run or hands the rest to the fallback",
        ),
        NodeProvenance(guard_id, "guard", support_grade(len(again)), source_episodes=ids,
                       rationale="the run writes again: the fallback takes over here"),
    )  # fmt: skip
    selector = {"kind": "selector", "id": node_id, "children": [
        {"kind": "sequence", "id": done_id, "children": list(done.nodes)},
        {"kind": "sequence", "id": again_id, "children": [*check.nodes, guard]},
    ]}  # fmt: skip
    note = (f"{len(again)} successful run(s) ({', '.join(ids[:3])}"
            f"{' ...' if len(ids) > 3 else ''}) write again after the compiled path's last "
            "write: a route decision at the end hands them to the fallback")  # fmt: skip
    return b.out + Fragment(nodes=(selector,), provenance=records, notes=(note,))
