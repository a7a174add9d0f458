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
