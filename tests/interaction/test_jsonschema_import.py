"""jsonschema is imported without rfc3987-syntax: that library builds 39 Lark grammars when
imported (~2.5 s CPU) for the ``iri`` formats, which no package schema check uses; every
command that loads a package paid it."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
from jdsl.interaction.schemas import check_schema, safe_validator
from jdsl.interaction.schemas import UnsafeSchemaError
check_schema({"type": "object", "properties": {"a": {"type": "string", "format": "uri"}}})
try:
    check_schema({"type": 5})
except UnsafeSchemaError:
    pass
else:
    raise SystemExit("an invalid schema passed")
assert not safe_validator({"type": "integer"}).is_valid("x")
import jdsl.inputs  # noqa: F401  (another user of jsonschema)
print("rfc3987_syntax" in sys.modules, "lark" in sys.modules)
"""


def test_checking_a_schema_never_imports_rfc3987_syntax() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]
