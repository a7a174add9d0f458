"""``jdsl --version`` and the command line's start import no heavy module: each command's
module (the compiler, the tree, the demo, jsonschema) is imported when that command runs."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("jdsl.compiler", "jdsl.tree", "jdsl.demo", "jdsl.interaction", "jdsl.package",
         "jsonschema", "pydantic")  # fmt: skip

SCRIPT = f"""
import sys
import jdsl.cli
try:
    jdsl.cli.app(sys.argv[1:], prog_name="jdsl")
except SystemExit as exc:
    assert exc.code in (0, None), exc.code
print(sorted(m for m in {HEAVY!r} if m in sys.modules))
"""


def _imported(*args: str) -> tuple[str, str]:
    done = subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True,
                          text=True, check=False, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    *out, heavy = done.stdout.strip().splitlines()
    return "\n".join(out), heavy


def test_version_imports_no_heavy_module() -> None:
    out, heavy = _imported("--version")
    assert out.startswith("jdsl ") and heavy == "[]"


def test_import_jdsl_is_light_and_names_still_resolve() -> None:
    code = ("import sys, jdsl; light = 'jdsl.tree' not in sys.modules; "
            "from jdsl import act, root, Sequence; print(light, act.__module__)")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)  # fmt: skip
    assert done.stdout.split() == ["True", "jdsl.dsl"]


def test_help_still_lists_every_command(runner) -> None:
    from jdsl.cli import app

    shown = runner.invoke(app, ["--help"])
    assert shown.exit_code == 0, shown.output
    for name in ("package", "import", "export", "demo", "run", "show", "doctor", "compile"):
        assert name in shown.output
