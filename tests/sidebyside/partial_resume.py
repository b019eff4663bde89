"""Issue 14 item 4: answering one of two parallel interrupts finishes that task only.

The answered task must not run again on the next call, and a later plain
Command(resume=value) answers the one still pending.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import call, history, record


class State(TypedDict):
    log: Annotated[list, operator.add]


runs: list[str] = []


def asker(name):
    def node(state: State) -> dict:
        runs.append(name)
        return {"log": [f"{name}:" + interrupt(f"q-{name}")]}

    return node


builder = StateGraph(State)
builder.add_node("p", asker("p"))
builder.add_node("q", asker("q"))
builder.add_edge(START, "p")
builder.add_edge(START, "q")
graph = builder.compile(checkpointer=InMemorySaver())

config = {"configurable": {"thread_id": "partial"}}
out = record("first call", graph.invoke({"log": []}, config))
first = out["__interrupt__"][0]
record("answer one", graph.invoke(Command(resume={first.id: "A"}), config))
record("state after one answer", graph.get_state(config))
record("answer the other plainly", graph.invoke(Command(resume="B"), config))
record("node runs", list(runs))
history(graph, config)
call("resume with nothing pending", graph.invoke, Command(resume="C"), config)
