"""What invoke returns for a graph with one output channel when the run stops early (issue 29).

Twin of tests/sidebyside/lowlevel_invoke_output.py: as LangGraph, the value
of the run's last values chunk, None when it wrote nothing to the channel.
"""

from __future__ import annotations

from typing import Any

from engine.channels import LastValue
from engine.checkpoint import InMemorySaver
from engine.pregel import NodeBuilder, Pregel


def _app(**options: Any) -> Pregel:
    one = NodeBuilder().subscribe_only("input").do(lambda x: x + 1).write_to("inbox")
    two = NodeBuilder().subscribe_only("inbox").do(lambda x: x + 1).write_to("output")
    return Pregel(
        nodes={"one": one, "two": two},
        channels={"inbox": LastValue(int), "output": LastValue(int), "input": LastValue(int)},
        input_channels="input",
        output_channels="output",
        **options,
    )


def test_a_run_that_writes_no_output_returns_none_though_the_channel_holds_an_older_value() -> None:
    app = _app(checkpointer=InMemorySaver(), interrupt_after_nodes=["one"])
    t1 = {"configurable": {"thread_id": "1"}}
    assert app.invoke(2, t1) is None
    assert app.invoke(None, t1) == 4
    assert app.invoke(20, t1) is None  # stopped after "one": "output" still holds 4
    assert app.get_state(t1).values["output"] == 4
    assert app.invoke(3, t1) is None
    assert app.invoke(None, t1) == 5
    # continuing a finished thread streams its values: the channel's value
    assert app.invoke(None, t1) == 5
    # the values stream shows every stream channel (invoke: the output channel's chunks only)
    assert list(app.stream(21, {"configurable": {"thread_id": "2"}}, stream_mode="values")) == [{"inbox": 22, "input": 21}]


def test_without_a_checkpointer_the_output_is_returned() -> None:
    assert _app().invoke(5) == 7
