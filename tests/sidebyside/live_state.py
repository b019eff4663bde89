"""Issue 14 item 3: get_state without a checkpoint id is the live view.

Writes of the tasks that finished in the current step are applied to values,
next lists the tasks still to run, interrupts only the questions still
waiting. With a checkpoint id it is the record of that version.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import call, record


class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def ask(state: State) -> dict:
    return {"log": ["ask:" + interrupt("q")]}


def boom(state: State) -> dict:
    raise ValueError("boom")


def fan(*names, fns):
    builder = StateGraph(State)
    for name in names:
        builder.add_node(name, fns[name])
        builder.add_edge(START, name)
    return builder.compile(checkpointer=InMemorySaver())


config = {"configurable": {"thread_id": "live"}}

graph = fan("p", "ask", fns={"p": lambda s: {"log": ["p"], "x": 5}, "ask": ask})
record("interrupted call", graph.invoke({"x": 1, "log": []}, config))
live = record("live", graph.get_state(config))
record("recorded", graph.get_state(live.config))
record("values stream of the resume", list(graph.stream(Command(resume="A"), config, stream_mode="values")))
record("after", graph.get_state(config))

graph = fan("p", "boom", fns={"p": lambda s: {"log": ["p"], "x": 5}, "boom": boom})
call("failed call", graph.invoke, {"x": 1, "log": []}, config)
live = record("live after error", graph.get_state(config))
record("recorded after error", graph.get_state(live.config))

graph = fan("p", "ask", fns={"p": lambda s: {"log": ["p"], "x": 5}, "ask": ask})
record("values stream at an interrupt", list(graph.stream({"x": 1, "log": []}, config, stream_mode="values")))
