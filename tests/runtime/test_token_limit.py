"""A model reply cut at its token limit (``finish_reason="length"``) is named as such, not as
"not parseable JSON" (fresh8 finding 9: a small local model counted an unbounded ``list[int]``
up to its 256-token cap), and a fallback react that failed says why on the run's result."""

from __future__ import annotations

from jdsl import ModelTurn, Status, guard, predict, react, root, sel
from jdsl.testing import FunctionModel


def _cut(system, messages, tools, model_id) -> ModelTurn:
    return ModelTurn(text='{"indexes": [1, 2, 3, 4, 5, 6, 7,', finish_reason="length")


def test_a_predict_cut_at_the_token_limit_says_so_and_how_to_raise_it() -> None:
    tree = root("r").do(predict("q -> indexes: list[int]", id="choose_indexes"))
    ctx = tree.run(model=FunctionModel(_cut), q="which?")
    assert ctx.status is Status.FAILURE
    reason = ctx.failure.reason
    assert "token limit" in reason and "max_tokens" in reason, reason
    assert "not parseable JSON" not in reason


def test_a_fallback_cut_at_the_token_limit_says_why_it_failed() -> None:
    tree = root("r").do(sel(guard("ready == true", id="is_ready"),
                            react("q -> answer", tools=[], id="fallback")))  # fmt: skip
    ctx = tree.run(model=FunctionModel(_cut), q="?", ready=False)
    assert ctx.status is Status.FAILURE and ctx.takeover is not None
    assert ctx.failure.node_id.endswith("fallback")
    assert "token limit" in ctx.failure.reason, ctx.failure.reason


def test_the_status_line_says_why_the_fallback_failed(capsys) -> None:
    import pytest
    import typer
    from jdsl.commands.run import report_run

    tree = root("r").do(sel(guard("ready == true", id="is_ready"),
                            react("q -> answer", tools=[], id="fallback")))  # fmt: skip
    ctx = tree.run(model=FunctionModel(_cut), q="?", ready=False)
    with pytest.raises(typer.Exit):
        report_run(ctx)
    status = capsys.readouterr().out.splitlines()[0]
    assert status.startswith("status: failure (fallback took over at is_ready: "), status
    assert "the fallback failed: react stopped: max_tokens (the model's reply was cut" in status
