"""A quick screen of encoded payloads: can the :class:`~jdsl.trace.Redactor` change this one?

Walking a payload to redact it costs more than encoding it. The screen looks at the payload's
canonical JSON instead: one search for secret-looking text (the redactor's own patterns, over
keys and values alike), and the key names (``"name":``) and named fields (``"key"`` /
``"path"`` values, which hide a blackboard value) checked with the redactor's key rules. Only
a payload the screen flags is walked; one it passes is exactly what the walk would return, so
the screen changes the cost of redaction, never its result. Redactors with ``json_paths`` are
always walked, and a payload holding a value the redactor follows (:meth:`Redactor.follow`,
checked on every payload, never remembered) is walked too.
"""

from __future__ import annotations

import re

from jdsl.trace.redact import DEFAULT_SECRET_PATTERNS, Redactor
from jdsl.trace.shared import JsonText

__all__ = ["RedactionScreen"]

_SEGMENT = re.compile(r"[.\[\]]")
_MEMO_CHARS, _MEMO_SIZE = 1024, 2048  # texts remembered: at most this long, this many
_DEFAULT_HINTS = (
    "PRIVATE KEY-----", "sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "AKIA",
    "ASIA", "AIza", "xox", "eyJ",
)  # fmt: skip
"""A literal every match of a :data:`DEFAULT_SECRET_PATTERNS` pattern contains (besides the
case-insensitive ``bearer`` and ``authorization: basic``): text with none of them has no
default secret."""
_NAMED = ('"key":"', '"path":"', '"store":"')


class RedactionScreen:
    """Screens canonical JSON text for a :class:`Redactor` (see the module doc)."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._secret = re.compile("|".join(f"(?:{p})" for p in redactor.patterns) or "(?!)")
        self._safe_keys: set[str] = set()
        self._answers: dict[str, bool] = {}  # short text -> may_redact
        self._hints = redactor.patterns == DEFAULT_SECRET_PATTERNS
        self.fingerprint = (
            repr((
                redactor.patterns, sorted(redactor.key_names), redactor.json_paths,
                sorted(redactor.sensitive_words), sorted(redactor.keep_keys),
            ))
            if type(redactor) is Redactor
            else None
        )  # fmt: skip
        """What the screen's answers depend on, as text (its hash is kept): screens with
        equal fingerprints give the same answers. None for a subclass of :class:`Redactor`,
        whose rules its fields do not tell: its answers are its own."""

    @classmethod
    def of(cls, redactor: Redactor | None) -> RedactionScreen | None:
        """The screen of an enabled redactor, else None (nothing to redact)."""
        return cls(redactor) if redactor is not None and redactor.enabled else None

    def may_redact(self, text: str) -> bool:
        """Whether redacting the payload encoded as ``text`` could change it.

        ``text`` is the payload's canonical JSON; with no backslash in it, every ``":`` ends a
        key and no string holds a quote, so keys and named fields are found by splitting.
        Answers for short texts are remembered (runs of one tree repeat their node events).
        """
        known = self._answers.get(text)
        if known is None:
            known = self._screen(text)
            if len(text) <= _MEMO_CHARS:
                if len(self._answers) >= _MEMO_SIZE:
                    self._answers.clear()
                self._answers[text] = known
        return known or self.redactor.follows(text)

    def may_redact_text(self, shared: JsonText) -> bool:
        """:meth:`may_redact` of a shared payload's text, remembered on it (``screened``), so
        the runs of one tree screen a node's payloads once, whichever sink writes them."""
        fingerprint = self.fingerprint
        if fingerprint is None:  # a Redactor subclass: screened as any payload text
            return self.may_redact(shared.text)
        known = shared.screened.get(fingerprint)
        if known is None:
            known = shared.screened[fingerprint] = self._screen(shared.text)
        return known or self.redactor.follows(shared.text)

    def _screen(self, text: str) -> bool:
        if self.redactor.json_paths or "\\" in text or self._secret_in(text):
            return True
        keys = [part[part.rfind('"') + 1 :] for part in text.split('":')[:-1]]
        safe = self._safe_keys
        if not safe.issuperset(keys):
            sensitive = self.redactor.is_sensitive_key
            for key in keys:
                if key not in safe:
                    if sensitive(key, None):
                        return True
                    if len(safe) < 4096:
                        safe.add(key)
        return ('"key":"' in text or '"path":"' in text or '"store":"' in text) and any(
            self._named_sensitive(text, marker) for marker in _NAMED
        )

    def _secret_in(self, text: str) -> bool:
        if self._hints:
            for hint in _DEFAULT_HINTS:
                if hint in text:
                    break
            else:
                lower = text.lower()
                if "bearer " not in lower and "authorization: basic " not in lower:
                    return False  # no default pattern's literal: no search needed
        return self._secret.search(text) is not None

    def _named_sensitive(self, text: str, marker: str) -> bool:
        """Whether a ``"key"`` / ``"path"`` / ``"store"`` field names a sensitive value (it is
        hidden)."""
        at = text.find(marker)
        while at >= 0:
            start = at + len(marker)
            name = text[start : text.find('"', start)]
            last = _SEGMENT.split(name.rstrip("]"))[-1]
            if last and self.redactor.is_sensitive_key(last):
                return True
            at = text.find(marker, start)
        return False
