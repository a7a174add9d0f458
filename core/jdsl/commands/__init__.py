"""Every ``jdsl`` command (:mod:`jdsl.cli` only mounts them):

* ``jdsl compile`` (:mod:`jdsl.commands.compile`; ``--holdout``: :mod:`jdsl.commands.validate`);
* ``jdsl package inspect|verify|validate|run`` (:mod:`jdsl.commands.package`);
* ``jdsl import tau-bench|openai-chat|otel`` (:mod:`jdsl.commands.imports`);
* ``jdsl run FILE.behavior`` (:mod:`jdsl.commands.run`);
* ``jdsl show TRACES.jsonl|PKG|FILE.behavior`` (:mod:`jdsl.commands.show`);
* ``jdsl doctor`` (:mod:`jdsl.commands.doctor`);
* ``jdsl export otel`` (:mod:`jdsl.commands.export`);
* ``jdsl demo`` (:mod:`jdsl.commands.demo`, running :mod:`jdsl.demo.job`);

what every command shares at the boundary (errors -> ``error: <what> — <fix>``, output paths:
:mod:`jdsl.commands.boundary`), and what commands that run behaviors share: ``--input`` /
``--tools`` (:mod:`jdsl.commands.inputs`, reading inputs as :mod:`jdsl.inputs` says).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

from jdsl.lazy import lazy_getattr

if TYPE_CHECKING:
    from jdsl.commands.compile import compile_command
    from jdsl.commands.demo import demo_command
    from jdsl.commands.doctor import doctor_command
    from jdsl.commands.export import export_app
    from jdsl.commands.imports import import_app
    from jdsl.commands.inputs import parse_inputs, read_tools
    from jdsl.commands.package import package_app
    from jdsl.commands.run import report_run, run_command, run_model
    from jdsl.commands.show import episode_timeline, package_summary, show_command

__all__ = [
    "compile_command",
    "demo_command",
    "doctor_command",
    "episode_timeline",
    "export_app",
    "import_app",
    "package_app",
    "package_summary",
    "parse_inputs",
    "read_tools",
    "report_run",
    "run_command",
    "run_model",
    "show_command",
]

_HOME = MappingProxyType(
    {
        "compile_command": "jdsl.commands.compile",
        "demo_command": "jdsl.commands.demo",
        "doctor_command": "jdsl.commands.doctor",
        "episode_timeline": "jdsl.commands.show",
        "export_app": "jdsl.commands.export",
        "import_app": "jdsl.commands.imports",
        "package_app": "jdsl.commands.package",
        "package_summary": "jdsl.commands.show",
        "parse_inputs": "jdsl.commands.inputs",
        "read_tools": "jdsl.commands.inputs",
        "report_run": "jdsl.commands.run",
        "run_command": "jdsl.commands.run",
        "run_model": "jdsl.commands.run",
        "show_command": "jdsl.commands.show",
    }
)
"""Each name's module, imported on first use: a command's start imports only its own."""

__getattr__ = lazy_getattr(__name__, _HOME)
