"""What invoke returns when the run writes nothing to its output (issue 29).

Twins of tests/sidebyside/lowlevel_invoke_output.py and no_values_chunk.py: as
LangGraph, the value of the run's last values chunk, None when it wrote nothing
to the output channel (or keys).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine.channels import LastValue
from engine.checkpoint import InMemorySaver
from engine.graph import END, START, StateGraph
from engine.pregel import NodeBuilder, Pregel
from engine.types import interrupt


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


# -- a StateGraph (several output keys): the same rule, and the values chunk at an interrupt


class _Log(TypedDict, total=False):
    log: Annotated[list, operator.add]
    x: int


def _ask(state: _Log) -> dict[str, Any]:
    interrupt("q")
    return {"x": 9}


def _state_graph(node: Any, **compile_options: Any) -> Any:
    b = StateGraph(_Log)
    b.add_node("a", node)
    b.add_edge(START, "a")
    b.add_edge("a", END)
    return b.compile(**compile_options)


def test_a_state_graph_run_that_writes_no_state_key_returns_none() -> None:
    """Twin of tests/sidebyside/no_values_chunk.py: as LangGraph's invoke, the last values chunk."""
    quiet = _state_graph(lambda s: {})
    assert quiet.invoke({}) is None
    assert quiet.invoke({"x": 1}) == {"log": [], "x": 1}  # the input wrote a key: its chunk
    saved = _state_graph(lambda s: {}, checkpointer=InMemorySaver())
    t = {"configurable": {"thread_id": "t"}}
    assert saved.invoke({"x": 1}, t) == {"log": [], "x": 1}
    assert saved.invoke({}, t) is None  # the thread holds x = 1, but the run streamed no values
    assert saved.invoke(None, t) == {"log": [], "x": 1}  # continuing a version streams its values
    assert saved.invoke({"log": [1]}, t, output_keys=["x"]) is None  # a chunk of the output keys only
    out = saved.invoke({}, t, version="v2")
    assert out.value is None and out.interrupts == ()
    breakpoint_after = _state_graph(lambda s: {}, checkpointer=InMemorySaver(), interrupt_after=["a"])
    assert breakpoint_after.invoke({}, {"configurable": {"thread_id": "b"}}) is None


def test_an_interrupt_streams_the_state_with_its_questions_though_no_values_came_before() -> None:
    g = _state_graph(_ask, checkpointer=InMemorySaver())
    chunks = list(g.stream({}, {"configurable": {"thread_id": "i"}}, stream_mode="values"))
    assert len(chunks) == 1 and chunks[0]["log"] == [] and [i.value for i in chunks[0]["__interrupt__"]] == ["q"]
    answer = g.invoke({}, {"configurable": {"thread_id": "j"}})
    assert answer["log"] == [] and [i.value for i in answer["__interrupt__"]] == ["q"]
