"""A react leaf with several typed outputs, seen through the notebook's run views."""

from __future__ import annotations

from jdsl.providers.messages import ModelTurn, ToolCall
from jdsl.testing import ScriptedModel
from jdsl.text import parse_behavior
from jdsl.trace import ListTraceSink
from jdsl_nb.rundata import RunData
from jdsl_nb.views import run_html, run_text


def get_ticket(ticket_id: str) -> dict:
    """The ticket's text."""
    return {"ticket_id": ticket_id, "text": "checkout is down"}


def test_every_output_of_a_multi_output_react_shows_its_writer():
    tree = parse_behavior(
        "react \"ticket -> category, urgency: Literal['low', 'high']\" tools=[get_ticket] id=triage\n",
        name="triage",
        tools=[get_ticket],
    )
    model = ScriptedModel(
        ModelTurn(tool_calls=[ToolCall(id="c1", name="get_ticket", arguments={"ticket_id": "T7"})]),
        '{"category": "outage", "urgency": "high"}',
    )
    ctx = tree.run(model=model, trace_sink=ListTraceSink(), ticket="T7: checkout broken")
    run = RunData.build(ctx)
    text = run_text(run)
    assert "category = outage  (by triage)" in text and "urgency = high  (by triage)" in text
    assert "get_ticket(ticket_id='T7') chosen by the model @triage" in text
    assert "react(ticket -&gt; category, urgency, tools=[get_ticket])" in run_html(run)
