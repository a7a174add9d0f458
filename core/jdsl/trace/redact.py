"""Redaction of secrets before a trace reaches disk.

A :class:`Redactor` removes two things from JSON data (in values and in dict keys alike):

* values stored under sensitive key names (``password``, ``api_key``, ``authorization``,
  ``access_token``, ...) — but usage counters such as ``input_tokens`` are kept;
* substrings that look like credentials: OpenAI / Anthropic / GitHub / AWS / Google / Slack keys,
  JWTs, PEM private keys, ``Bearer ...`` and ``Authorization: Basic ...`` headers;
* and, once a value was hidden by its name (a key, a ``{"key": ..., "value": ...}`` or
  ``{"store": ..., "result": ...}`` field, a path), that value wherever it appears later: in
  tool arguments, a rendered prompt, an error message (:meth:`Redactor.follow`).

Sinks apply it to the payload *before* the event is stamped, so the hash chain covers the
redacted payload and stays verifiable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from jdsl.trace.messages import MESSAGES_FROM

__all__ = [
    "DEFAULT_KEEP_KEYS",
    "DEFAULT_SECRET_PATTERNS",
    "DEFAULT_SENSITIVE_WORDS",
    "Redactor",
    "scrub",
]

PLACEHOLDER = "«redacted»"

DEFAULT_SECRET_PATTERNS: tuple[str, ...] = (
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)",
    r"\bsk-ant-[A-Za-z0-9_\-]{16,}",
    r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
    r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\bAIza[0-9A-Za-z_\-]{35}",
    r"\bxox[abposr]-[A-Za-z0-9\-]{10,}",
    r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
    r"(?i:(?<=\bbearer ))[A-Za-z0-9._~+/\-]{8,}=*",
    r"(?i:(?<=\bauthorization: basic ))[A-Za-z0-9+/]{8,}={0,2}",
)
"""Regexes of secret-looking substrings (each match is replaced by the placeholder).

Each runs in linear time: a pattern that can fail after a long run (the JWT's dot) starts only
where a run of its characters starts, so ``"eyJ-" * 16384`` is scanned once, not once per
``eyJ`` (issue #17, D2)."""

_DEFAULT_REGEX = re.compile("|".join(f"(?:{p})" for p in DEFAULT_SECRET_PATTERNS))

DEFAULT_SENSITIVE_WORDS: frozenset[str] = frozenset(
    {
        "password", "passwd", "passphrase", "secret", "token", "apikey", "authorization",
        "auth", "cookie", "credential", "credentials", "privatekey", "bearer",
    }
)  # fmt: skip
"""Key-name words that mark a value as secret (``access_token`` -> words access, token)."""

DEFAULT_KEEP_KEYS: frozenset[str] = frozenset(
    {
        "input_tokens", "output_tokens", "total_tokens", "cached_input_tokens",
        "reasoning_tokens", "max_tokens", "max_output_tokens",
        "prompt_tokens", "completion_tokens", "cache_read_input_tokens",
        "cache_creation_input_tokens",
    }
)  # fmt: skip
"""Key names that are never redacted: usage counters and limits."""

MIN_FOLLOWED = 6
"""The shortest text :meth:`Redactor.follow` makes secret: a shorter value (a PIN, ``"yes"``)
is hidden where it is named, but not searched for in every later text."""
MAX_FOLLOWED = 256
"""How many followed values a redactor keeps (the newest)."""
MAX_FOLLOWED_CHARS = 4096
"""The longest text followed (a longer one, a document under ``secret``, is hidden where it is
named; a key or token is far shorter, and a PEM key is found by its pattern)."""

_KEEP, _HIDE, _HIDE_UNLESS_NUMBER = 0, 1, 2
_CACHE_SIZE = 4096  # entries per cache before it is cleared
_CACHED_TEXT = 256  # strings up to this length are cached once redacted
_LONG_CHARS = 1 << 20  # longer ones are remembered up to this many characters in all

_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_EVENT_ID = re.compile(r"[0-9a-f]{1,128}")  # a kept reference's event id (jdsl's are hex)


class Redactor:
    """Replaces secrets in JSON data by a placeholder.

    Args:
        patterns: regexes of secret substrings; default :data:`DEFAULT_SECRET_PATTERNS`.
        key_names: extra key names whose values are always redacted (compared lower-cased).
        json_paths: dotted paths (``"request.headers.x-key"``) whose values are redacted; a path
            matches at any depth by suffix.
        placeholder: the replacement text.
        enabled: ``False`` makes :meth:`redact` return its input unchanged.
        sensitive_words: words that make a key name sensitive; default
            :data:`DEFAULT_SENSITIVE_WORDS`.
        keep_keys: key names never redacted; default :data:`DEFAULT_KEEP_KEYS`.

    A key is sensitive when it is in ``key_names``, or when one of its words (split at
    ``_``, ``-``, ``.``, spaces and camelCase), two adjacent words joined (``x-api-key`` ->
    ``apikey``) or the whole name joined is a sensitive word, unless it is in ``keep_keys``. Plural ``tokens``
    is not ``token``, so counters such as ``input_tokens`` survive.
    """

    def __init__(
        self,
        patterns: Iterable[str] | None = None,
        key_names: Iterable[str] = (),
        json_paths: Iterable[str] = (),
        placeholder: str = PLACEHOLDER,
        enabled: bool = True,
        *,
        sensitive_words: Iterable[str] | None = None,
        keep_keys: Iterable[str] | None = None,
    ) -> None:
        self.patterns = tuple(DEFAULT_SECRET_PATTERNS if patterns is None else patterns)
        self._regex = (
            _DEFAULT_REGEX
            if self.patterns == DEFAULT_SECRET_PATTERNS
            else re.compile("|".join(f"(?:{p})" for p in self.patterns) or "(?!)")
        )
        self.key_names = frozenset(k.lower() for k in key_names)
        self.json_paths = tuple(tuple(p.split(".")) for p in json_paths)
        self.placeholder = placeholder
        self.enabled = enabled
        words = DEFAULT_SENSITIVE_WORDS if sensitive_words is None else sensitive_words
        self.sensitive_words = frozenset(w.lower() for w in words)
        keep = DEFAULT_KEEP_KEYS if keep_keys is None else keep_keys
        self.keep_keys = frozenset(k.lower() for k in keep)
        self._replacement = placeholder.replace("\\", "\\\\")  # literal in re.sub
        self._key_rules: dict[str, int] = {}  # key name -> _KEEP / _HIDE / _HIDE_UNLESS_NUMBER
        self._texts: dict[str, str] = {}  # short strings already redacted
        self._long: dict[str, str] = {}  # long strings already redacted (_long_text)
        self._long_chars = 0  # their total length
        self._followed: dict[str, None] = {}  # secret values seen, oldest first
        self.followed_pattern: re.Pattern[str] | None = None
        """Matches any value :meth:`follow` made secret; None while there is none (read it
        to skip :meth:`follows` on a hot path; only :meth:`follow` sets it)."""

    def with_paths(self, paths: Iterable[str]) -> Redactor:
        """A copy that also redacts the given dotted JSON paths."""
        return Redactor(
            self.patterns,
            self.key_names,
            [".".join(p) for p in self.json_paths] + list(paths),
            self.placeholder,
            self.enabled,
            sensitive_words=self.sensitive_words,
            keep_keys=self.keep_keys,
        )

    def redact(self, value: Any) -> Any:
        """A copy of ``value`` with secrets replaced; the input is never mutated.

        A payload's ``messages_from`` reference (``{"event_id": str, "kept": int}``, see
        :mod:`jdsl.trace.messages`) is kept as it is: an event id is not content, and a followed
        value inside it (a PIN ``000000`` in ``...000000000c``) must not break the reference.
        """
        if not self.enabled:
            return value
        reference = value.get(MESSAGES_FROM) if type(value) is dict else None
        if _is_reference(reference):
            rest = self._walk({k: v for k, v in value.items() if k != MESSAGES_FROM}, ())
            return {**rest, MESSAGES_FROM: reference}
        return self._walk(value, ())

    def redact_text(self, text: str) -> str:
        """``text`` with every secret-looking substring, and every value this redactor has
        hidden before (:meth:`follow`), replaced."""
        if len(text) > _CACHED_TEXT:
            return self._long_text(text)
        done = self._texts.get(text)
        if done is None:
            if len(self._texts) >= _CACHE_SIZE:
                self._texts.clear()
            done = self._hide_followed(self._regex.sub(self._replacement, text))
            self._texts[text] = done
        return done

    def _long_text(self, text: str) -> str:
        """:meth:`redact_text` of a long text, remembered while the remembered texts total at
        most :data:`_LONG_CHARS` characters: a system prompt sent with every model request is
        scanned once, not once per request."""
        done = self._long.get(text)
        if done is None:
            done = self._hide_followed(self._regex.sub(self._replacement, text))
            if len(text) <= _LONG_CHARS:
                self._long_chars += len(text)
                if self._long_chars > _LONG_CHARS:
                    self._long.clear()
                    self._long_chars = len(text)
                self._long[text] = done
        return done

    def follow(self, value: Any) -> None:
        """Treat the text of ``value`` (its strings of :data:`MIN_FOLLOWED` to
        :data:`MAX_FOLLOWED_CHARS` characters, at any depth) as secret from now on: :meth:`redact` and :meth:`redact_text` hide it
        wherever it appears later, whole or inside a longer text.

        The redactor calls this itself for every value it hides by key name, by a named field
        (``{"key": "password", "value": ...}``) or a store name (``{"store": "password",
        "result": ...}``), or by path, so redaction follows the value into later tool
        arguments, prompts and error messages. The newest :data:`MAX_FOLLOWED` are kept.
        """
        found = [t for t in _texts_in(value)[-MAX_FOLLOWED:] if t not in self._followed]
        if not found:
            return
        for text in found:
            self._followed[text] = None
        while len(self._followed) > MAX_FOLLOWED:
            del self._followed[next(iter(self._followed))]
        ordered = sorted(self._followed, key=len, reverse=True)  # the longest match wins
        self.followed_pattern = re.compile("|".join(map(re.escape, ordered)))
        self._texts.clear()  # answers cached before may now hide more
        self._long.clear()
        self._long_chars = 0

    def follows(self, text: str) -> bool:
        """Whether ``text`` holds a value :meth:`follow` made secret (a quick check that
        :class:`~jdsl.trace.screen.RedactionScreen` adds to its own)."""
        found = self.followed_pattern
        return found is not None and found.search(text) is not None

    def _hide_followed(self, text: str) -> str:
        found = self.followed_pattern
        return text if found is None else found.sub(self._replacement, text)

    def is_sensitive_key(self, key: str, value: Any = None) -> bool:
        """Whether ``value`` under the key name ``key`` is redacted.

        A number under a name whose only sensitive word is ``token`` (``token_count``,
        ``promptTokenCount``) is a counter, not a secret, and is kept.
        """
        rule = self._key_rules.get(key)
        if rule is None:
            if len(self._key_rules) >= _CACHE_SIZE:
                self._key_rules.clear()
            rule = self._key_rules[key] = self._key_rule(key)
        if rule == _HIDE_UNLESS_NUMBER:
            return not (isinstance(value, int | float) and not isinstance(value, bool))
        return rule == _HIDE

    def _key_rule(self, key: str) -> int:
        lowered = key.lower()
        if lowered in self.keep_keys:
            return _KEEP
        if lowered in self.key_names:
            return _HIDE
        words = [w.lower() for w in _WORD.findall(key)]
        pairs = [a + b for a, b in zip(words, words[1:], strict=False)]
        hits = {w for w in [*words, *pairs, "".join(words)] if w in self.sensitive_words}
        if hits == {"token"}:
            return _HIDE_UNLESS_NUMBER
        return _HIDE if hits else _KEEP

    def _walk(self, value: Any, path: tuple[str, ...]) -> Any:
        kind = type(value)
        if kind is str:
            return self.redact_text(value)
        if kind is dict:
            return self._walk_mapping(value, path)
        if kind is int or kind is bool or kind is float or value is None:
            return value
        if isinstance(value, str):
            return self.redact_text(value)
        if isinstance(value, Mapping):
            return self._walk_mapping(value, path)
        if isinstance(value, list | tuple):
            return [self._walk(v, path) for v in value]
        return value

    def _walk_mapping(self, value: Mapping[Any, Any], path: tuple[str, ...]) -> dict[Any, Any]:
        named = _named_key(value)  # {"key": "password", "value": ...}: blackboard events
        hide_value = named is not None and self.is_sensitive_key(named)
        store = value.get("store")  # {"store": "password", "result": ...}: tool calls
        hide_result = type(store) is str and self.is_sensitive_key(store)
        paths = self.json_paths
        out: dict[Any, Any] = {}
        for key, item in value.items():
            name = key if type(key) is str else str(key)
            sub = (*path, name) if paths else path  # paths are only tracked when matched on
            if (
                self.is_sensitive_key(name, item)
                or (hide_value and key in ("value", "previous"))
                or (hide_result and key == "result")
                or (paths and self._on_path(sub))
            ):
                if item is not None:
                    self.follow(item)
                    item = self.placeholder
            else:
                item = self._walk(item, sub)
            out[self._redact_key(key, out)] = item
        return out

    def _redact_key(self, key: Any, out: Mapping[Any, Any]) -> Any:
        """``key`` with secrets replaced, like a value; ``#2``, ``#3``... keep two apart."""
        if not isinstance(key, str):
            return key
        clean = self.redact_text(key)
        if clean == key:
            return key
        unique, n = clean, 1
        while unique in out:
            n += 1
            unique = f"{clean}#{n}"
        return unique

    def _on_path(self, path: tuple[str, ...]) -> bool:
        """Whether ``path`` ends with one of :attr:`json_paths`."""
        return any(len(p) <= len(path) and path[-len(p) :] == p for p in self.json_paths)


_LOOSE_REGEX = re.compile(
    r"\b(?:sk|rk|pk)-[A-Za-z0-9_\-]{8,}|\bAIza[0-9A-Za-z_\-]{20,}|(?i:\bbearer)\s+\S+"
)
"""Shorter key-like runs that an error message also hides (it may hold a test or partial key)."""


def scrub(text: str, secrets: Iterable[str] = (), *, limit: int | None = None) -> str:
    """``text`` fit for an exception: known ``secrets`` and secret-looking substrings replaced.

    The one scrubber for vendor text that reaches an error (a provider's error code and message):
    each of ``secrets`` (the API keys in use), every match of :data:`DEFAULT_SECRET_PATTERNS`
    and shorter ``sk-...`` / ``AIza...`` / ``Bearer ...`` runs become the placeholder; the result is cut to ``limit``
    characters (after scrubbing, so a cut never leaves half a key visible).

    Example:
        >>> scrub("bad key sk-test-0123456789abcdefghijXYZ", limit=40)
        'bad key «redacted»'
    """
    for secret in secrets:
        if secret:
            text = text.replace(secret, PLACEHOLDER)
    text = _LOOSE_REGEX.sub(PLACEHOLDER, _DEFAULT_REGEX.sub(PLACEHOLDER, text))
    return text if limit is None else text[:limit]


def _is_reference(value: Any) -> bool:
    """Whether ``value`` is a ``messages_from`` reference: exactly ``{"event_id": <lower-case
    hex>, "kept": <int>}`` (anything else under the key is redacted like any value)."""
    if type(value) is not dict or value.keys() != {"event_id", "kept"}:
        return False
    event_id, kept = value["event_id"], value["kept"]
    return type(event_id) is str and _EVENT_ID.fullmatch(event_id) is not None and type(kept) is int


def _texts_in(value: Any, depth: int = 0) -> list[str]:
    """The strings in ``value`` (at most 64 levels down) long enough to follow."""
    if isinstance(value, str):
        keep = MIN_FOLLOWED <= len(value) <= MAX_FOLLOWED_CHARS and value != PLACEHOLDER
        return [value] if keep else []
    if depth > 64:
        return []
    if isinstance(value, Mapping):
        return [t for item in value.values() for t in _texts_in(item, depth + 1)]
    if isinstance(value, list | tuple):
        return [t for item in value for t in _texts_in(item, depth + 1)]
    return []


def _named_key(value: Mapping[Any, Any]) -> str | None:
    """The last segment of a ``key`` / ``path`` field naming what ``value`` holds."""
    for field in ("key", "path"):
        name = value.get(field)
        if isinstance(name, str) and name:
            return re.split(r"[.\[\]]", name.rstrip("]"))[-1] or None
    return None
