"""How a package reads a run (:mod:`jdsl.compiler.reading`): kept in the manifest as JSON,
and, for a package compiled before it was kept, its program's scans only."""

from __future__ import annotations

import json
from types import SimpleNamespace

from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.reading import Reading, package_reading
from jdsl.compiler.staticize.loops import LoopSpec


def _episode() -> NormEpisode:
    return NormEpisode("e", (), (), (), {}, {}, None, True, None, "")


def test_a_reading_survives_the_manifest_as_json() -> None:
    reading = Reading(
        unused=("get_product_details",),
        noops=("think",),
        shared={"find_user_id_by_email_out": "find_user_id_out"},
        loops=(LoopSpec("get_order_details", "order_id", "u.orders", "", True, True),),
    )
    assert Reading.from_dict(json.loads(json.dumps(reading.to_dict()))) == reading
    package = SimpleNamespace(manifest={"source": {"reading": reading.to_dict()}}, ir={})
    assert package_reading(package) == reading


def test_a_package_without_a_reading_reads_a_run_with_its_scans_only() -> None:
    ir = {"format": "jdsl.behavior/v1", "root": {"kind": "root", "name": "x", "child": {
        "kind": "action", "id": "a", "tool": "get_order_details",
        "args": {"order_id": {"ref": "order_id"}}}}}  # fmt: skip
    package = SimpleNamespace(manifest={"source": {}}, ir=ir)
    reading = package_reading(package)
    assert reading == Reading()
    episode = _episode()
    assert reading.read(episode) is episode
