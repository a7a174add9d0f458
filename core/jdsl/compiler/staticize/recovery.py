"""Recovery: where accepted RECOVERY evidence shows a failed call followed by another tool, the
compiled call becomes a selector whose first child may fail (docs/design.md appendix B §5,
step 4).

A failed call of ``primary`` followed by a successful ``backup`` compiles to
``sel(act primary(...) on_error=fail -> key, act backup(...) -> key)``: ``on_error="fail"``
turns the tool's exception (or returned FAILURE) into the node's FAILURE, so the selector tries
``backup``. Two shapes:

* *before*: the skeleton call is the recovering tool (``backup``) and the failed ``primary``
  calls of the supporting episodes come first; the primary's arguments are chosen like every
  call slot's (:func:`jdsl.compiler.arguments.choose_argument`: ref, run input or a constant
  with support) over those failed calls;
* *after*: the skeleton call is ``primary`` itself (it succeeded in the representative) and the
  recovering call of the supporting episodes is added after it, its arguments chosen the same
  way over those episodes' recovering calls.

Either way the family's other runs are the arguments' *peers* (:func:`_peers`): a source seen in
the recovering runs alone (one run, with a contract backing the recovery) that the same request
in another run contradicts is not a ref (:mod:`jdsl.compiler.support`).

Only accepted (uncontested) recoveries compile; contested ones are reported
(:func:`contested_notes`). Inside a branch alternative a recovering call must be read-only.
:func:`with_recovery` returns the node to emit and the fragment of what it took (ids, run
inputs, provenance, notes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from jdsl.compiler.arguments import choose_argument
from jdsl.compiler.candidates import RECOVERY
from jdsl.compiler.consolidate import Candidate
from jdsl.compiler.names import slug
from jdsl.compiler.normalized import NormStep
from jdsl.compiler.staticize.fragment import EMPTY, Build, Evidence, Fragment, Here, Slot, proof

__all__ = ["contested_notes", "with_recovery"]

Made = tuple[dict[str, Any] | None, Fragment]


def with_recovery(
    ev: Evidence, here: Here, node: dict[str, Any], slot: Slot
) -> tuple[dict[str, Any], Fragment]:
    """``node`` (a compiled action), wrapped in a recovery selector when evidence says so."""
    b = Build(here)
    for c in ev.recoveries:
        if c.claim["recover_with"] == slot.tool and c.claim["position"] == slot.position:
            primary, made = _call(ev, b.here, c, _failed_before(ev, c), c.claim["on_error_of"],
                                  node, "try")  # fmt: skip
            b.add(made)
            if primary is not None:
                return _selector(b, node, primary, node), b.out
    for c in ev.recoveries:
        if c.claim["on_error_of"] != slot.tool or c.claim["recover_with"] == slot.tool:
            continue
        if here.in_lane and not ev.read_only(c.claim["recover_with"]):
            continue  # never an effectful call inside a branch alternative
        backup, made = _call(ev, b.here, c, _recovering(ev, c), c.claim["recover_with"], node,
                             "recover")  # fmt: skip
        b.add(made)
        if backup is not None:
            return _selector(b, node, node, backup), b.out
    return node, b.out


def _selector(
    b: Build, node: dict[str, Any], first: dict[str, Any], fallback: dict[str, Any]
) -> dict[str, Any]:
    """``sel(first on_error=fail, fallback)``, named after the compiled action ``node``."""
    children = [{**first, "on_error": "fail"}, fallback]
    return {"kind": "selector", "id": b.id(f"recovery_{node['id']}"), "children": children}


def _failed_before(ev: Evidence, c: Candidate) -> list[NormStep]:
    """In each supporting episode: the failed ``on_error_of`` call right before the recovery."""
    found = []
    for eid in c.support:
        episode = ev.episode(eid)
        if episode is None:
            continue
        ok = episode.ok_steps()
        if c.claim["position"] >= len(ok):
            continue
        after = ok[c.claim["position"]]
        failed = [s for s in episode.steps[: after.index]
                  if not s.ok and s.logical_tool == c.claim["on_error_of"]]  # fmt: skip
        if failed:
            found.append(failed[-1])
    return found


def _recovering(ev: Evidence, c: Candidate) -> list[NormStep]:
    """In each supporting episode: the successful call that recovered."""
    found = []
    for eid in c.support:
        episode = ev.episode(eid)
        ok = episode.ok_steps() if episode is not None else ()
        if c.claim["position"] < len(ok):
            found.append(ok[c.claim["position"]])
    return found


def _peers(ev: Evidence, c: Candidate) -> Callable[[], list[NormStep]]:
    """The same request in the family's runs outside ``c``'s support: where a supporting run
    made the recovering call, the other runs' call of the same tool and their call of the tool
    that failed (it worked there): what holds a one-run source to the family
    (:func:`jdsl.compiler.support.contradicted`). Asked for once, when a source needs it."""

    def found() -> list[NormStep]:
        position, steps = c.claim["position"], dict[int, NormStep]()
        for eid in c.support:  # a supporting run that failed has no peers: the next one
            same = ev.same_calls(eid, position, c.support)
            same += ev.same_calls.instead(eid, position, c.claim["on_error_of"], c.support)
            steps.update((id(s), s) for s in same)
        return list(steps.values())

    return found


def _call(
    ev: Evidence,
    here: Here,
    c: Candidate,
    steps: Sequence[NormStep],
    tool: str,
    node: dict[str, Any],
    role: str,
) -> Made:
    """The other call of the recovery selector (``role``: ``try`` for a primary tried first,
    ``recover`` for a fallback), its arguments chosen over ``steps`` (None when one is neither
    a ref, a run input nor a supported constant: a note says so)."""
    if not steps:
        return None, EMPTY
    args: dict[str, Any] = {}
    out = EMPTY
    peers = _peers(ev, c)
    for arg in steps[0].arguments:
        choice = choose_argument(arg, steps, available=set(here.available), synthesized_input="\0",
                                 peers=peers)  # fmt: skip
        if choice.how not in ("dataflow", "input", "const") or choice.source == "\0":
            note = f"recovery {c.text} left out: its argument {arg} is not explained"
            return None, out + Fragment(notes=(note,))
        if choice.how == "input":
            out += Fragment.read(str(choice.source))
        args[arg] = choice.spec
    call_id = here.unique(f"{role}_{slug(tool)}_{c.claim['position']}")
    call: dict[str, Any] = {"kind": "action", "id": call_id, "tool": tool}
    if args:
        call["args"] = args
    if node.get("store"):
        call["store"] = node["store"]  # either call's result is read under the same key
    made = Fragment(ids=frozenset({call_id})) + proof(call_id, "action", [c], f"RECOVERY {c.text}")
    return call, out + made


def contested_notes(candidates: Sequence[Candidate]) -> list[str]:
    """Report lines for RECOVERY candidates left out because an episode contradicts them."""
    lines = [
        f"recovery {c.text} not compiled: contested ({len(c.support)} supporting, "
        f"{len(c.counterexamples)} contradicting episode(s))"
        for c in candidates
        if c.type == RECOVERY and c.status == "contested"
    ]
    return list(dict.fromkeys(lines))
