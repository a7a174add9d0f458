"""``python -m jdsl ...``: the ``jdsl`` command line (:data:`jdsl.cli.app`)."""

from __future__ import annotations

from jdsl.cli import app

if __name__ == "__main__":
    app(prog_name="jdsl")
