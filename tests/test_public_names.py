"""Each package's public names (``__all__``) are pinned: adding or removing one is a choice
made here, in review, not a side effect of an edit elsewhere."""

from __future__ import annotations

import importlib

import pytest

PUBLIC_NAMES: dict[str, list[str]] = {
    "jdsl": [
        "Action", "BehaviorCheckError", "BindingError", "Bindings", "Blackboard", "Check",
        "CheckReport", "ContextWindow", "Decorator", "Failure", "ForEach", "Guard", "GuardCall",
        "Invert", "JdslError", "ListTraceSink", "Message", "ModelOutputError", "ModelTurn", "Node",
        "OneShot", "Optional", "Predict", "Problem", "React", "Ref", "RefError", "Repeat", "Root",
        "RunContext", "Selector", "Sequence", "Signature", "SignatureError", "Status", "Timeout",
        "Tool", "ToolCall", "ToolSpec", "TraceEvent", "Usage", "ValidationError", "Write",
        "__version__", "act", "assign_runtime_ids", "check", "for_each", "guard", "guard_call",
        "invert", "oneshot", "optional", "predict", "react", "ref", "repeat", "root", "sel", "seq",
        "store", "timeout", "tool", "tool_name", "tool_spec",
    ],
    "jdsl.commands": [
        "compile_command", "demo_command", "doctor_command", "episode_timeline", "export_app",
        "import_app", "package_app", "package_summary", "parse_inputs", "read_tools", "report_run",
        "run_command", "run_model", "show_command",
    ],
    "jdsl.compiler": [
        "ATOM_TYPES", "BranchAlternative", "BranchPlan", "CallDivergence", "Candidate",
        "CompileError", "CompileInputError", "CompileReport", "CompileResult", "CompiledBehavior",
        "CompiledBranch", "CompilerModel", "Divergence", "EpisodeRecords", "EventRecord",
        "Execution", "Fact", "GuardObservation", "HeldOutReport", "HeldOutRow",
        "HeuristicCompilerModel", "LLMCompilerModel", "Lane", "MIN_BRANCH_SUPPORT",
        "ModelDecision", "NodeProvenance", "NormEpisode", "NormStep", "NormStore",
        "PackageMetrics", "RecordedToolFailure", "ReplayTools", "ReplayedCall", "StateIndex",
        "TreeShape", "VerificationReport", "as_records", "build_package", "check_chains",
        "claim_text", "compile_behavior", "compile_normalized", "consolidate", "decision_model",
        "execute", "execute_all", "expected_calls", "extract_facts", "find_source", "find_sources",
        "group_episodes", "holdout_split", "inputs_text", "ir_paths", "is_meaningful",
        "modal_skeleton", "normalize_all", "normalize_episode", "package_metrics", "plan_branches",
        "promote", "require_success", "run_inputs", "staticize", "top_key", "validate_package",
        "verify",
    ],
    "jdsl.demo": [
        "COMPILE_SIZE", "DEFAULT_OUT", "DemoResult", "FAMILY", "FamilySplit", "GoldChoice",
        "OFFLINE_TEACHER_ID", "RESIDUAL_OUTPUTS", "TeacherModelError", "cancel_tasks",
        "identity_form", "offline_teacher", "run_demo", "split_family", "task_inputs", "task_name",
        "teacher_text", "teacher_tree",
    ],
    "jdsl.drawing": [
        "LEGEND_TEXT", "NODE_STYLE", "NOT_RUN_STYLE", "RENDERER_ENV", "Rendered", "STATUS_COLOURS",
        "as_ir", "available_renderers", "drawing_html", "drawing_label", "is_ir_node",
        "labelled_children", "legend_entries", "legend_html", "node_label", "node_statuses",
        "outline_html", "render_svg", "shorten", "structural_ids", "tree_dot", "unescape_quotes",
        "wrap_label",
    ],
    "jdsl.envs": [
        "DataNotFoundError", "RetailEnv", "RetailTask", "RetailWorld", "data_path", "gold_replay",
        "load_json", "load_tasks", "read_text", "retail_fixture_tools", "reward", "reward_info",
    ],
    "jdsl.envs.tau_retail": [
        "CANCEL_REASONS", "CAPABILITY_PREFIX", "RETAIL_TOOLS", "RetailAction", "RetailEnv",
        "RetailReward", "RetailSnapshot", "RetailState", "RetailStep", "RetailTask",
        "RetailToolError", "TERMINAL_TOOLS", "capability_tools", "evaluate_arithmetic",
        "gold_replay", "load_tasks", "retail_snapshot", "retail_tool_schemas", "reward",
        "reward_info", "structured_result", "tree_tools",
    ],
    "jdsl.flows": [
        "ActionTable", "ActionTarget", "ContextItem", "ContextRetriever", "Document",
        "DuplicatePolicy", "FlowResult", "Fts5Unavailable", "McpRequest", "McpTarget",
        "OnUndeclared", "Provenance", "RagSelection", "RagStrategy", "ReactError", "ReactResult",
        "RetrievalError", "Services", "SkillSource", "SqliteFtsRetriever", "StopReason",
        "SubtreeTarget", "ToolTarget", "WorkingContext", "ingress_item", "load_skill",
        "markdown_sections", "mcp_flow", "rag_flow", "rag_strategy", "react_flow", "skill_flow",
        "tool_call_flow",
    ],
    "jdsl.importers": [
        "AGENT_NODE_ID", "AssistantTurn", "Conversation", "DOMAINS", "ImportFormatError",
        "ImportSkipWarning", "OtelImport", "OtlpSpan", "SkippedEpisode", "Strategy", "TauEpisode",
        "TauImport", "ToolOutcome", "UserTurn", "conversation_events", "detect_strategy",
        "import_openai_chat", "import_otel", "import_tau_bench", "is_error_text",
        "openai_chat_conversations", "otel_conversations", "parse_result", "read_otlp_json",
        "read_tau_bench", "tau_bench_conversations",
    ],
    "jdsl.interaction": [
        "Artifact", "BraveSearchProvider", "CATEGORIES", "COMMAND_NAMES", "CancelToken",
        "Cancellation", "CommandResult", "Delivery", "Executor", "HOST_NAME", "InMemorySink",
        "LocalExecutor", "McpCallResult", "McpCapability", "McpClient", "McpRegistry",
        "McpToolInfo", "McpToolPage", "Observation", "OutputMessage", "OutputSink", "Receipt",
        "Reference", "RegisteredTool", "ResultError", "ResultStatus", "Sandbox", "SearchProvider",
        "Tool", "ToolContext", "ToolRegistry", "ToolResult", "Unregister", "as_registered",
        "check_error", "deliver", "error_from_exception", "is_cancelled", "observation_text",
        "observe", "read_only_command_tools", "sanitize_message", "tool", "tool_description",
        "tool_name", "tool_spec", "validate_result", "web_search_tool",
    ],
    "jdsl.ir": [
        "BEHAVIOR_FORMAT", "BehaviorDocument", "MAX_REPEAT", "NODE_FIELDS", "ValidationReport",
        "from_ir", "ir_digest", "ir_json_schema", "load_stored_schema", "to_ir", "validate_ir",
        "write_stored_schema",
    ],
    "jdsl.package": [
        "BehaviorPackage", "InputUse", "LoadedPackage", "MAX_COMPRESSION_RATIO",
        "MAX_MEMBER_BYTES", "MAX_TOTAL_BYTES", "Manifest", "PACKAGE_FORMAT", "SIGNATURE_FORMAT",
        "SUFFIX", "ToolContract", "ToolEffects", "Tools", "default_effects", "digest", "dump_json",
        "export_dir", "export_jdsl", "input_types", "load_package", "manifest_digest",
        "package_digest", "package_from_root", "verify_package", "zip_bytes",
    ],
    "jdsl.providers": [
        "AnthropicModel", "DEFAULT_MAX_RETRIES", "DEFAULT_TIMEOUT_S", "Divergence", "FinishReason",
        "GeminiModel", "GenerationSettings", "LanguageModel", "Message", "ModelTurn",
        "OpenAIModel", "ProviderRegistry", "ProviderSettings", "ReplayDivergence", "ReplayModel",
        "Role", "SDKModel", "StreamingModel", "ToolCall", "ToolSpec", "Unregister", "Usage",
        "as_messages", "as_turn", "generate_text", "model_hint", "parse_model_id", "read_env",
        "resolve_model",
    ],
    "jdsl.text": [
        "DEFAULT_NAME", "format_behavior", "format_expression", "format_node", "parse_behavior",
        "parse_behavior_ir", "parse_expression",
    ],
    "jdsl.trace": [
        "BaseTraceSink", "BlobStore", "Chainer", "CorruptBlobError", "DEFAULT_BLOB_THRESHOLD",
        "EmitRecorder", "Episode", "EventKind", "EventSource", "FanoutSink", "JsonlTraceSink",
        "ListTraceSink", "MissingBlobError", "ModelCall", "NullTraceSink", "PARENT_KINDS",
        "PAYLOAD_FIELDS", "Parent", "Recorder", "Redactor", "SCHEMA_VERSION", "SafeSink",
        "ToolInvocation", "Trace", "TraceEvent", "TraceFormatError", "TraceNotFoundError",
        "TracePathError", "TraceSink", "blob_dir_for", "canonical_json", "hydrate",
        "hydrate_value", "is_blob_marker", "iter_episodes", "iter_events", "jsonable",
        "new_episode_id", "offload", "payload_problems", "read_events", "recorder_for",
        "segment_episodes", "verify_chain",
    ],
    "jdsl.trace.otel": [
        "DEFAULT_SERVICE_NAME", "OtelExportError", "OtelSink", "SpanBuilder", "export_otel",
        "otlp_json", "trace_spans", "traces_endpoint", "write_otlp_json",
    ],
    "jdsl.tree": [
        "Abandoned", "Action", "AnyNode", "Bindings", "Blackboard", "Check", "ContextWindow",
        "Decorator", "Failure", "ForEach", "Guard", "GuardCall", "INPUT_WRITER", "Invert",
        "NODE_CLASSES", "Node", "OneShot", "Optional", "Predict", "RETURNED_FAILURE", "React",
        "Read", "Repeat", "Root", "RunContext", "ScopedContext", "Selector", "Sequence", "Status",
        "Timeout", "Write", "assign_runtime_ids", "lenient_equal", "typed_equal",
    ],
    "jdsl_nb": [
        "CompileView", "RunData", "RunView", "compile_html", "drawing_html", "html_view",
        "load_ipython_extension", "node_statuses", "provenance", "render_svg", "run_html",
        "text_view", "tree_dot", "tree_html", "unload_ipython_extension",
    ],
    "jdsl_nb.widgets": [
        "CompileView", "DiffView", "RunView", "candidates_frame",
    ],
}
"""Package -> its ``__all__``, sorted (``jdsl.compiler``: the names it exports today)."""


@pytest.mark.parametrize("package", sorted(PUBLIC_NAMES))
def test_public_names_are_pinned(package: str) -> None:
    module = importlib.import_module(package)
    assert sorted(module.__all__) == PUBLIC_NAMES[package]
    assert len(set(module.__all__)) == len(module.__all__), "a name is listed twice"
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert not missing, f"{package}.__all__ names what it does not define: {missing}"
