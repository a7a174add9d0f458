"""The trace compiler: episodes -> exact lineage -> candidates -> Behavior IR -> package.

One module per pass (docs/design.md appendix B, docs/design.md §6): :mod:`.normalize`,
:mod:`.lineage`, :mod:`.candidates`, :mod:`.consolidate`, :mod:`.staticize` (one pass: plan
with :mod:`.branches` and :mod:`.staticize.shape`, then emit with :mod:`.staticize.emit`;
helpers :mod:`.selection`, :mod:`.arguments`, :mod:`.guards`; results in :mod:`.compiled`),
:mod:`.residualize`,
:mod:`.verify` (with :mod:`.replay`, execution replay: :class:`ReplayTools`, :func:`execute`;
:mod:`.decisions`: what an executed tree is answered and given),
:mod:`.package` (assembly), :mod:`.metrics`; :mod:`.pipeline` chains them in
:func:`compile_normalized` (:func:`compile_behavior` normalizes first).

This package exports what a user of the compiler needs: compiling (:func:`compile_behavior`,
:func:`compile_normalized`, their results and errors), normalizing episodes, grouping them into
families, held-out validation and execution replay. Everything else is imported from its module
(``jdsl.compiler.consolidate``, ``jdsl.compiler.staticize``...).
"""

from jdsl.compiler.compiled import CompiledBehavior
from jdsl.compiler.errors import CompileError, CompileInputError
from jdsl.compiler.families import group_episodes
from jdsl.compiler.holdout import HeldOutReport, HeldOutRow, holdout_split, validate_package
from jdsl.compiler.normalize import normalize_all, normalize_episode
from jdsl.compiler.normalized import NormEpisode
from jdsl.compiler.pipeline import (
    CompiledFamilies,
    CompileReport,
    CompileResult,
    compile_behavior,
    compile_normalized,
)
from jdsl.compiler.replay import Execution, ReplayTools, execute
from jdsl.compiler.residualize import CompilerModel, HeuristicCompilerModel, LLMCompilerModel
from jdsl.compiler.verify import VerificationReport

__all__ = [
    "CompileError",
    "CompileInputError",
    "CompileReport",
    "CompileResult",
    "CompiledBehavior",
    "CompiledFamilies",
    "CompilerModel",
    "Execution",
    "HeldOutReport",
    "HeldOutRow",
    "HeuristicCompilerModel",
    "LLMCompilerModel",
    "NormEpisode",
    "ReplayTools",
    "VerificationReport",
    "compile_behavior",
    "compile_normalized",
    "execute",
    "group_episodes",
    "holdout_split",
    "normalize_all",
    "normalize_episode",
    "validate_package",
]
