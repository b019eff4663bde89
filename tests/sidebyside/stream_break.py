"""stream() left early, on an SQLite saver, with each durability; then the thread.

A caller that breaks out of a ``for chunk in graph.stream(...)`` loop stops the
run there: what the thread's history holds afterwards (with
``durability="async"``, whose writes go on while the next step runs, and
"sync" and "exit"), and that the thread goes on from where it stopped.
"""

import operator
import os
import sqlite3
import tempfile
from typing import Annotated, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from observe import history, record


class State(TypedDict):
    log: Annotated[list, operator.add]


def step(name: str):
    def node(state: State) -> dict:
        return {"log": [name]}

    return node


b = StateGraph(State)
for name in ["a", "b", "c", "d"]:
    b.add_node(name, step(name))
b.add_edge(START, "a")
b.add_edge("a", "b")
b.add_edge("b", "c")
b.add_edge("c", "d")
b.add_edge("d", END)

path = os.path.join(tempfile.mkdtemp(), "break.db")
saver = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
graph = b.compile(checkpointer=saver)

for durability in ["async", "sync", "exit"]:
    config = {"configurable": {"thread_id": f"break-{durability}"}}
    seen = []
    for chunk in graph.stream({"log": []}, config, stream_mode="updates", durability=durability):
        seen.append(chunk)
        if "b" in chunk:
            break
    record(f"{durability}: seen", seen)
    state = graph.get_state(config)
    record(f"{durability}: state", {"values": state.values, "next": state.next})
    history(graph, config, f"{durability}: history")
    record(f"{durability}: go on", graph.invoke(None, config, durability=durability))
    history(graph, config, f"{durability}: history after")

config = {"configurable": {"thread_id": "break-values"}}
seen = []
for chunk in graph.stream({"log": []}, config, stream_mode="values"):
    seen.append(chunk)
    if len(seen) == 2:
        break
record("values: seen", seen)
history(graph, config, "values: history")
record("values: a new input", graph.invoke({"log": ["new"]}, config))
history(graph, config, "values: history after")

config = {"configurable": {"thread_id": "break-first"}}
for chunk in graph.stream({"log": []}, config, stream_mode=["updates", "values"]):
    break
record("first chunk only", chunk)
history(graph, config, "first chunk: history")
