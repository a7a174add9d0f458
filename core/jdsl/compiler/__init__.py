"""The trace compiler: episodes -> exact lineage -> candidates -> Behavior IR -> package.

One module per pass (seeds/compiler-internals.md, DESIGN.md §6): :mod:`.normalize`,
:mod:`.lineage`, :mod:`.candidates`, :mod:`.consolidate`, :mod:`.staticize` (one pass: plan
with :mod:`.branches` and :mod:`.staticize.shape`, then emit with :mod:`.staticize.emit`;
helpers :mod:`.selection`, :mod:`.arguments`, :mod:`.guards`; results in :mod:`.compiled`),
:mod:`.residualize`,
:mod:`.verify` (with :mod:`.replay`, execution replay: :class:`ReplayTools`, :func:`execute`;
:mod:`.decisions`: what an executed tree is answered and given),
:mod:`.package` (assembly), :mod:`.metrics`; :mod:`.pipeline` chains them in
:func:`compile_behavior`.
"""

from jdsl.compiler.arguments import top_key
from jdsl.compiler.branches import MIN_BRANCH_SUPPORT, BranchPlan, Lane, plan_branches
from jdsl.compiler.candidates import ATOM_TYPES, Fact, claim_text, extract_facts
from jdsl.compiler.compiled import BranchAlternative, CompiledBranch
from jdsl.compiler.consolidate import Candidate, consolidate
from jdsl.compiler.errors import CompileError, CompileInputError
from jdsl.compiler.events import EpisodeRecords, EventRecord, as_records
from jdsl.compiler.families import group_episodes
from jdsl.compiler.holdout import (
    HeldOutReport,
    HeldOutRow,
    holdout_split,
    ir_paths,
    validate_package,
)
from jdsl.compiler.lineage import StateIndex, find_source, find_sources, is_meaningful
from jdsl.compiler.metrics import PackageMetrics, package_metrics
from jdsl.compiler.normalize import normalize_all, normalize_episode
from jdsl.compiler.normalized import GuardObservation, ModelDecision, NormEpisode, NormStep
from jdsl.compiler.package import build_package
from jdsl.compiler.pipeline import (
    CompileReport,
    CompileResult,
    check_chains,
    compile_behavior,
    compile_normalized,
    inputs_text,
    require_success,
)
from jdsl.compiler.replay import (
    CallDivergence,
    Divergence,
    Execution,
    RecordedToolFailure,
    ReplayedCall,
    ReplayTools,
    TreeShape,
    decision_model,
    execute,
    execute_all,
    expected_calls,
    run_inputs,
)
from jdsl.compiler.residualize import CompilerModel, HeuristicCompilerModel, LLMCompilerModel
from jdsl.compiler.staticize import CompiledBehavior, NodeProvenance, modal_skeleton, staticize
from jdsl.compiler.store import NormStore
from jdsl.compiler.verify import VerificationReport, promote, verify

__all__ = [
    "ATOM_TYPES",
    "BranchAlternative",
    "BranchPlan",
    "CallDivergence",
    "Candidate",
    "CompileError",
    "CompileInputError",
    "CompileReport",
    "CompileResult",
    "CompiledBehavior",
    "CompiledBranch",
    "CompilerModel",
    "Divergence",
    "EpisodeRecords",
    "EventRecord",
    "Execution",
    "Fact",
    "GuardObservation",
    "HeldOutReport",
    "HeldOutRow",
    "HeuristicCompilerModel",
    "LLMCompilerModel",
    "Lane",
    "MIN_BRANCH_SUPPORT",
    "ModelDecision",
    "NodeProvenance",
    "NormEpisode",
    "NormStore",
    "NormStep",
    "PackageMetrics",
    "RecordedToolFailure",
    "ReplayTools",
    "ReplayedCall",
    "StateIndex",
    "TreeShape",
    "VerificationReport",
    "as_records",
    "build_package",
    "check_chains",
    "claim_text",
    "compile_behavior",
    "compile_normalized",
    "consolidate",
    "decision_model",
    "execute",
    "execute_all",
    "expected_calls",
    "extract_facts",
    "find_source",
    "find_sources",
    "group_episodes",
    "holdout_split",
    "ir_paths",
    "inputs_text",
    "is_meaningful",
    "modal_skeleton",
    "normalize_all",
    "normalize_episode",
    "package_metrics",
    "plan_branches",
    "promote",
    "require_success",
    "run_inputs",
    "staticize",
    "top_key",
    "validate_package",
    "verify",
]
