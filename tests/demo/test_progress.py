"""The demo's progress bars end their line in a log, so its headings do not run into them."""

from __future__ import annotations

from jdsl.demo.retail_job import _bar


def test_a_bar_in_a_log_ends_its_line(capsys) -> None:
    for _ in _bar(range(3), "teacher runs", True):
        pass
    err = capsys.readouterr().err
    assert "teacher runs" in err and err.endswith("\n")  # the next heading starts a new line
