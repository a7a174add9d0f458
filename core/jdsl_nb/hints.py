"""Error hints in the magics' own terms: ``--input``, ``--model``, ``--tools``, not ``run(...)``.

Core errors end with a fix written for the Python API (``run(email=...)``,
``root(...).model('model-id')``, ``root.bind(tools=[fn])``). In a ``%%behavior`` cell that fix
is the wrong advice; :func:`magic_hints` rewrites each such phrase into the magic flag that does
the same. Each rewrite is checked against the real error by ``tests/nb/test_magic_ergonomics``,
so a change of wording in core fails a test instead of leaving a Python hint behind.
"""

from __future__ import annotations

import re

__all__ = ["magic_hints"]

_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"Seed it as a run\(\) input \(run\((\w+)=\.\.\.\)\)"),
        r"Give it with --input \1=VALUE",
    ),
    (re.compile(r"\(e\.g\. store\(act\(\.\.\.\), '(\w+)'\)\)"), r"(e.g. act TOOL(...) -> \1)"),
    (
        re.compile(
            r"pass model=\.\.\. to run\(\) \(e\.g\. ScriptedModel\('\.\.\.'\) from "
            r"jdsl\.testing\) or set root\(\.\.\.\)\.model\('model-id'\)"
        ),
        "pass --model VAR (a model object in the notebook, e.g. model = ScriptedModel('...') "
        "from jdsl.testing) or --model MODEL_ID (e.g. --model claude-sonnet-4-5)",
    ),
    (
        re.compile(
            r"Bind it with root\.bind\(tools=\[fn\]\) or run\(\.\.\., tools=\{'(\w+)': fn\}\)"
        ),
        r"Define a function named '\1' in the notebook, or pass a dict or list of tools with "
        r"--tools VAR",
    ),
    (
        re.compile(
            r"Bind it with root\.bind\(predicates=\[fn\]\) or run\(\.\.\., "
            r"predicates=\{'(\w+)': fn\}\)"
        ),
        r"Define a function named '\1' in the notebook",
    ),
    (re.compile(r"the model passed to run\(\)"), "the --model object"),
    (
        re.compile(r"bind it: root\.bind\(tools=\{'(\w+)': fn\}\) or run\(tools=\.\.\.\)"),
        r"define a function named '\1' in the notebook, or pass --tools VAR",
    ),
    (
        re.compile(
            r"bind it: root\.bind\(predicates=\{'(\w+)': fn\}\) or run\(predicates=\.\.\.\)"
        ),
        r"define a function named '\1' in the notebook",
    ),
    (re.compile(r"give (\w+) as a run input"), r"give it with --input \1=VALUE"),
)


def magic_hints(text: str) -> str:
    """``text`` with every Python-API fix replaced by the magic flag that does the same."""
    for pattern, replacement in _REWRITES:
        text = pattern.sub(replacement, text)
    return text
