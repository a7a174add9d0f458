"""Issue 26 item 1: digests prove integrity, not authorship; a digest the user got from the
author over a trusted channel pins the package (a re-signed edit no longer passes)."""

from __future__ import annotations

import pytest
from jdsl.cli import app
from jdsl.errors import PackageError
from jdsl.package import export_jdsl, load_package
from typer.testing import CliRunner


def test_a_pinned_digest_refuses_a_resigned_edit(small, resigned, tmp_path) -> None:
    good = export_jdsl(small, tmp_path / "good")
    pinned = small.manifest["manifest_digest"]
    assert load_package(good, digest=pinned).name == "small"
    forged = export_jdsl(resigned(small, {"manifest": {"model_id": "gpt-4o"}}), tmp_path / "forged")
    assert load_package(forged).name == "small"  # digests alone cannot tell
    with pytest.raises(PackageError, match="not the package the digest names"):
        load_package(forged, digest=pinned)
    runner = CliRunner()
    assert runner.invoke(app, ["package", "verify", str(good), "--digest", pinned]).exit_code == 0
    bad = runner.invoke(app, ["package", "verify", str(forged), "--digest", pinned])
    assert bad.exit_code == 1 and "not the package the digest names" in bad.output
    shown = runner.invoke(app, ["package", "inspect", str(good)])
    assert f"digest        {pinned}" in shown.output
