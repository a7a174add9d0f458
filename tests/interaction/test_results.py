from __future__ import annotations

import pytest
from jdsl.errors import ToolError
from jdsl.interaction import ResultError, check_error, error_from_exception, sanitize_message
from jdsl.interaction.results import check_json, unsafe_reason

UNSAFE = [
    "x" * 513,
    "line one\nline two",
    "tab\tseparated",
    "got header Bearer eyJhbGciOi",
    "key sk-abcdef123456 leaked",
    "api_key=12345",
    "cannot open /home/alice/notes.txt",
    "cannot open C:\\Users\\alice",
    "share \\\\server\\share\\x",
    "at run (file.ts:1:2)",
    'File "/x/y.py", line 3',
    "Traceback (most recent call last)",
]


@pytest.mark.parametrize("message", UNSAFE)
def test_unsafe_messages_are_rejected(message: str) -> None:
    assert unsafe_reason(message) is not None
    with pytest.raises(ToolError) as exc:
        check_error(ResultError(code="X", message=message))
    assert exc.value.code == "UNSAFE_ERROR"


@pytest.mark.parametrize(
    "message", ["order not found", "see https://example.com/docs", "50/50 split", "a/b.txt missing"]
)
def test_safe_messages_pass(message: str) -> None:
    assert check_error(ResultError(code="NOT_FOUND", message=message)).message == message


def test_extra_error_fields_are_dropped() -> None:
    error = ResultError.model_validate({"code": "X", "message": "m", "stack": "s", "token": "t"})
    assert error.model_dump() == {"code": "X", "message": "m", "retryable": False}


def test_retryable_must_be_a_bool() -> None:
    with pytest.raises(ValueError):
        ResultError.model_validate({"code": "X", "message": "m", "retryable": "yes"})


@pytest.mark.parametrize("message", UNSAFE)
def test_sanitize_makes_any_text_safe(message: str) -> None:
    assert unsafe_reason(sanitize_message(message)) is None


def test_error_from_exception_hides_paths_and_keys() -> None:
    exc = FileNotFoundError("[Errno 2] No such file: '/srv/app/secret.json' key sk-live12345")
    error = error_from_exception(exc)
    assert error.code == "TOOL_EXCEPTION"
    assert "/srv" not in error.message and "sk-live" not in error.message
    assert error.message.startswith("FileNotFoundError:")


def test_check_json_rejects_cycles_and_non_json() -> None:
    cyclic: list = []
    cyclic.append(cyclic)
    for bad in (cyclic, {"x": float("inf")}, {1: "int key"}, {"f": print}):
        with pytest.raises(ToolError):
            check_json(bad)
    check_json({"a": [1, 2.5, None, True, "s"]})
