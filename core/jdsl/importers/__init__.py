"""Foreign traces -> jdsl traces: tau-bench runs (its results files, any agent strategy, or our
extraction format), OpenAI chat-completions logs, and OpenTelemetry spans (OTLP JSON) of agents
instrumented with the GenAI conventions or OpenInference.

Each foreign conversation becomes one jdsl episode whose events the compiler reads like a React
leaf's: ``model.requested`` / ``model.responded`` per assistant turn, ``tool.call.*`` per call
(results parsed when they are JSON text, ``"Error: ..."`` results as ``tool.call.failed``),
``user.message`` / ``assistant.message``, and task metadata in ``episode.started``::

    trace = import_tau_bench(data_path("tau_airline", "episodes.json"))   # a jdsl Trace
    found = read_tau_bench("results.json")     # conversations, skipped runs, summary()
    import_tau_bench(path, sink=JsonlTraceSink("airline.jsonl"))          # or straight to a file

The command line is ``jdsl import tau-bench|openai-chat|otel SOURCE -o TRACES.jsonl``
(:data:`jdsl.commands.imports.import_app`).
"""

from jdsl.importers.common import ImportFormatError
from jdsl.importers.conversation import (
    AGENT_NODE_ID,
    AssistantTurn,
    Conversation,
    ToolOutcome,
    UserTurn,
    conversation_events,
    is_error_text,
    parse_result,
)
from jdsl.importers.openai_chat import import_openai_chat, openai_chat_conversations
from jdsl.importers.otel import OtelImport, import_otel, otel_conversations
from jdsl.importers.otlp_json import OtlpSpan, read_otlp_json
from jdsl.importers.tau_bench import (
    DOMAINS,
    ImportSkipWarning,
    SkippedEpisode,
    TauEpisode,
    TauImport,
    import_tau_bench,
    read_tau_bench,
    tau_bench_conversations,
)
from jdsl.importers.tau_results import Strategy, detect_strategy

__all__ = [
    "AGENT_NODE_ID",
    "DOMAINS",
    "AssistantTurn",
    "Conversation",
    "ImportFormatError",
    "ImportSkipWarning",
    "SkippedEpisode",
    "Strategy",
    "OtelImport",
    "OtlpSpan",
    "TauEpisode",
    "TauImport",
    "ToolOutcome",
    "UserTurn",
    "conversation_events",
    "detect_strategy",
    "import_openai_chat",
    "import_otel",
    "import_tau_bench",
    "is_error_text",
    "openai_chat_conversations",
    "otel_conversations",
    "parse_result",
    "read_tau_bench",
    "read_otlp_json",
    "tau_bench_conversations",
]
