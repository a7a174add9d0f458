"""Model providers behind one neutral message model (DESIGN.md §4, §7)."""

from jdsl.providers.messages import (
    FinishReason,
    GenerationSettings,
    LanguageModel,
    Message,
    ModelTurn,
    Role,
    StreamingModel,
    ToolCall,
    ToolSpec,
    Usage,
    as_messages,
    generate_text,
)

__all__ = [
    "FinishReason",
    "GenerationSettings",
    "LanguageModel",
    "Message",
    "ModelTurn",
    "Role",
    "StreamingModel",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "as_messages",
    "generate_text",
]
