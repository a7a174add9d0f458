"""Model providers behind one neutral message model (DESIGN.md §4, §7).

The SDK adapters (:class:`AnthropicModel`, :class:`OpenAIModel`, :class:`GeminiModel`) import
their SDKs lazily, on first use; :func:`resolve_model` turns a model id into one of them.
"""

from jdsl.providers.anthropic import AnthropicModel
from jdsl.providers.base import SDKModel
from jdsl.providers.gemini import GeminiModel
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
    as_turn,
    generate_text,
)
from jdsl.providers.openai import OpenAIModel
from jdsl.providers.registry import ProviderRegistry, Unregister
from jdsl.providers.replay import Divergence, ReplayDivergence, ReplayModel
from jdsl.providers.resolve import model_hint, parse_model_id, resolve_model
from jdsl.providers.settings import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT_S,
    ProviderSettings,
    read_env,
)

__all__ = [
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT_S",
    "AnthropicModel",
    "Divergence",
    "FinishReason",
    "GeminiModel",
    "GenerationSettings",
    "LanguageModel",
    "Message",
    "ModelTurn",
    "OpenAIModel",
    "ProviderRegistry",
    "ProviderSettings",
    "ReplayDivergence",
    "ReplayModel",
    "Role",
    "SDKModel",
    "StreamingModel",
    "ToolCall",
    "ToolSpec",
    "Unregister",
    "Usage",
    "as_messages",
    "as_turn",
    "generate_text",
    "model_hint",
    "parse_model_id",
    "read_env",
    "resolve_model",
]
