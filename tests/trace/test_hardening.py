"""Issue #17: secrets in dict keys are redacted like values (S4), and every secret pattern runs
in linear time on adversarial text (D2: ``"eyJ-" * 16384`` was quadratic)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from jdsl.dsl import act, root
from jdsl.trace import JsonlTraceSink, Redactor, read_events, verify_chain

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"
SECRETS = [
    PEM,
    "sk-ant-api03-" + "Q" * 40,
    "sk-proj-" + "x" * 40,
    "ghp_" + "a" * 36,
    "github_pat_" + "B" * 30,
    "AKIAIOSFODNN7EXAMPLE",
    "AIza" + "S" * 35,
    "xoxb-1234567890-abcdef",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "Bearer abcdef0123456789",
]


@pytest.mark.parametrize("secret", SECRETS)
def test_a_secret_in_a_dict_key_is_redacted(secret):
    out = Redactor().redact({"users": {secret: "u1", "plain": "u2"}})
    assert secret.split()[-1] not in str(out)
    assert out["users"]["plain"] == "u2" and len(out["users"]) == 2


def test_two_redacted_keys_do_not_overwrite_each_other():
    a, b = "sk-proj-" + "a" * 30, "sk-proj-" + "b" * 30
    out = Redactor().redact({a: 1, b: 2})
    assert sorted(out.values()) == [1, 2] and a not in str(out) and b not in str(out)


@pytest.mark.parametrize("secret", SECRETS)
def test_a_traced_tool_result_keyed_by_a_secret_reaches_disk_redacted(tmp_path: Path, secret):
    def users() -> dict:
        """List users by key."""
        return {"users": {secret: "u1"}}

    path = tmp_path / "t.jsonl"
    with JsonlTraceSink(path) as sink:
        root("keys").do(act(users) >> "table").run(trace_sink=sink)
    text = path.read_text(encoding="utf-8")
    assert secret.split()[-1] not in text and "\\n".join(secret.split("\n")) not in text
    assert verify_chain(read_events(path)) == []


ADVERSARIAL = ["eyJ-", "eyJ.", "eyJa.eyJb.", "sk-", "sk-ant-", "ghp_", "xoxb-", "AKIA", "AIza",
               "Bearer ", "-----BEGIN PRIVATE KEY-----"]  # fmt: skip


@pytest.mark.parametrize("unit", ADVERSARIAL)
def test_every_secret_pattern_is_linear_on_repeated_prefixes(unit):
    text = (unit * ((1 << 18) // len(unit) + 1))[: 1 << 18]  # 256 KiB; "eyJ-" took > 20 s before
    started = time.perf_counter()
    Redactor().redact_text(text)
    assert time.perf_counter() - started < 2.0
