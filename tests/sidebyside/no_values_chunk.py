"""What invoke returns, and the values chunk at an interrupt, when a run writes no state key.

As LangGraph 1.2.22: invoke returns the run's last "values" chunk, so None
when neither the input nor a node wrote a key of the output (whatever the
thread holds from earlier runs); the chunk streamed at an interrupt holds the
state the step started from, even when no values chunk came before it.
"""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from observe import record


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]
    x: int


def ask(state: State) -> dict:
    interrupt("q")
    return {"x": 9}


def graph(node, **options):
    b = StateGraph(State)
    b.add_node("a", node)
    b.add_edge(START, "a")
    b.add_edge("a", END)
    return b.compile(**options)


quiet = graph(lambda s: {})
record("no saver, empty input", quiet.invoke({}))
record("no saver, a key", quiet.invoke({"x": 1}))
record("node returns None", graph(lambda s: None).invoke({}))
record("ainvoke", asyncio.run(quiet.ainvoke({})))
record("stream", list(quiet.stream({}, stream_mode="values")))

saved = graph(lambda s: {}, checkpointer=InMemorySaver())
t = {"configurable": {"thread_id": "t"}}
record("first turn", saved.invoke({"x": 1}, t))
record("empty turn on a thread with state", saved.invoke({}, t))
record("continue", saved.invoke(None, t))
record("other key than the output's", saved.invoke({"log": [1]}, t, output_keys=["x"]))
record("output key", saved.invoke({"x": 3}, t, output_keys=["x"]))
record("v2", saved.invoke({}, t, version="v2"))
record("breakpoint after", graph(lambda s: {}, checkpointer=InMemorySaver(), interrupt_after=["a"]).invoke({}, {"configurable": {"thread_id": "b"}}))

asking = graph(ask, checkpointer=InMemorySaver())
record("interrupt, empty input", asking.invoke({}, {"configurable": {"thread_id": "i"}}))
record("interrupt streamed", list(asking.stream({}, {"configurable": {"thread_id": "j"}}, stream_mode="values")))
record("interrupt streamed v2", list(asking.stream({}, {"configurable": {"thread_id": "k"}}, stream_mode="values", version="v2")))
record("resumed", asking.invoke(Command(resume="yes"), {"configurable": {"thread_id": "i"}}))
record("interrupt, a key", asking.invoke({"log": [1]}, {"configurable": {"thread_id": "l"}}))
