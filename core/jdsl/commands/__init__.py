"""The commands ``jdsl`` mounts beside compile / package / import / demo (see :mod:`jdsl.cli`):

* ``jdsl run FILE.behavior`` (:mod:`jdsl.commands.run`);
* ``jdsl show TRACES.jsonl|PKG|FILE.behavior`` (:mod:`jdsl.commands.show`);
* ``jdsl doctor`` (:mod:`jdsl.commands.doctor`);
* ``jdsl export otel`` (:mod:`jdsl.commands.export`);

and what commands that run behaviors share: ``--input`` / ``--tools`` (:mod:`jdsl.commands.inputs`).
"""

from jdsl.commands.doctor import doctor_command
from jdsl.commands.export import export_app
from jdsl.commands.inputs import parse_inputs, read_tools
from jdsl.commands.run import report_run, run_command, run_model
from jdsl.commands.show import episode_timeline, package_summary, show_command

__all__ = [
    "doctor_command",
    "episode_timeline",
    "export_app",
    "package_summary",
    "parse_inputs",
    "read_tools",
    "report_run",
    "run_command",
    "run_model",
    "show_command",
]
