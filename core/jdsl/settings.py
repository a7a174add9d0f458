"""Behaviour settings (budgets and limits) from a strict YAML file (docs/design.md §7).

Precedence: library defaults < YAML file < call arguments. Credentials never live here: they
stay in the environment / ``.env``. The YAML is strict: unknown keys, duplicate keys, anchors
and aliases are errors, so a typo cannot silently fall back to a default.

Example YAML::

    react:
      max_steps: 8
      max_action_calls: 16
      timeout_s: 120
    mcp:
      max_pages: 100
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from jdsl.errors import JdslError

__all__ = [
    "CommandSettings",
    "ExecutorSettings",
    "McpSettings",
    "RagSettings",
    "ReactSettings",
    "Settings",
    "SettingsError",
    "load_settings",
]


class SettingsError(JdslError, ValueError):
    """A settings file that is not valid.

    Attributes:
        path: the file, when one was read.
    """

    def __init__(self, message: str, *, path: str | None = None) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class ReactSettings(_Section):
    """Budgets of ``react_flow``: model calls, action calls, tokens, wall time (seconds)."""

    max_steps: int = Field(default=8, ge=1)
    max_action_calls: int = Field(default=16, ge=0)
    max_total_tokens: int | None = Field(default=None, ge=1)
    timeout_s: float = Field(default=30.0, gt=0)


class McpSettings(_Section):
    """MCP discovery limits."""

    max_pages: int = Field(default=100, ge=1)
    max_capabilities: int = Field(default=1000, ge=1)


class CommandSettings(_Section):
    """Output bounds of the read-only command tools."""

    max_entries: int = Field(default=1000, ge=1, le=10_000)
    max_stdout_bytes: int = Field(default=64 << 10, ge=1, le=1 << 20)
    max_stderr_bytes: int = Field(default=8 << 10, ge=1, le=64 << 10)


class ExecutorSettings(_Section):
    """Limits of :class:`jdsl.interaction.LocalExecutor`."""

    timeout_s: float = Field(default=5.0, gt=0)
    max_output_bytes: int = Field(default=65536, ge=1)


class RagSettings(_Section):
    """Defaults of ``rag_flow``."""

    limit: int = Field(default=5, ge=1)


class Settings(_Section):
    """All behaviour settings; every field has a library default.

    Example:
        >>> Settings().react.max_steps
        8
        >>> Settings().merged({"react": {"max_steps": 3}}).react.max_steps
        3
    """

    react: ReactSettings = ReactSettings()
    mcp: McpSettings = McpSettings()
    commands: CommandSettings = CommandSettings()
    executor: ExecutorSettings = ExecutorSettings()
    rag: RagSettings = RagSettings()
    concurrency: int | None = Field(default=None, ge=1)

    def merged(self, overrides: dict[str, Any]) -> Settings:
        """A copy with ``overrides`` (nested dicts, validated as strictly as the file) applied."""
        data = self.model_dump()
        for key, value in overrides.items():
            if isinstance(value, dict) and isinstance(data.get(key), dict):
                data[key] = {**data[key], **value}
            else:
                data[key] = value
        return _validate(data, None)


class _StrictLoader(yaml.SafeLoader):
    """A SafeLoader that refuses duplicate keys, anchors and aliases."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.constructor.ConstructorError(
                None, None, "aliases are not allowed in settings", event.start_mark
            )
        event = self.peek_event()
        if getattr(event, "anchor", None):
            raise yaml.constructor.ConstructorError(
                None, None, "anchors are not allowed in settings", event.start_mark
            )
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _validate(data: Any, path: str | None) -> Settings:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SettingsError("the settings file must hold a mapping at the top", path=path)
    try:
        return Settings.model_validate(data)
    except PydanticValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise SettingsError(f"invalid settings ({problems})", path=path) from None


def load_settings(path: str | os.PathLike[str] | None = None) -> Settings:
    """Read settings from a YAML file (None: the library defaults).

    Raises:
        SettingsError: the file is missing, is not strict YAML (duplicate keys, anchors,
            aliases), or has unknown keys or invalid values.
    """
    if path is None:
        return Settings()
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise SettingsError(
            f"cannot read the settings file ({exc.strerror})", path=str(file)
        ) from None
    try:
        data = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise SettingsError(f"not strict YAML: {exc}", path=str(file)) from None
    return _validate(data, str(file))
