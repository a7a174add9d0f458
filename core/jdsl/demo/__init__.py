"""The main job (``jdsl demo``): teacher traces on real retail tasks -> a verified package.

See :mod:`jdsl.demo.job` for the pipeline, :mod:`jdsl.demo.family` for the task family and its
split, :mod:`jdsl.demo.teacher` for the teacher behavior and the offline teacher model.
"""

from jdsl.demo.family import (
    COMPILE_SIZE,
    FAMILY,
    FamilySplit,
    cancel_tasks,
    identity_form,
    split_family,
    task_inputs,
    task_name,
)
from jdsl.demo.job import DEFAULT_OUT, DemoResult, run_demo
from jdsl.demo.teacher import (
    OFFLINE_TEACHER_ID,
    RESIDUAL_OUTPUTS,
    GoldChoice,
    TeacherModelError,
    offline_teacher,
    teacher_text,
    teacher_tree,
)

__all__ = [
    "COMPILE_SIZE",
    "DEFAULT_OUT",
    "FAMILY",
    "OFFLINE_TEACHER_ID",
    "RESIDUAL_OUTPUTS",
    "DemoResult",
    "FamilySplit",
    "GoldChoice",
    "TeacherModelError",
    "cancel_tasks",
    "identity_form",
    "offline_teacher",
    "run_demo",
    "split_family",
    "task_inputs",
    "task_name",
    "teacher_text",
    "teacher_tree",
]
