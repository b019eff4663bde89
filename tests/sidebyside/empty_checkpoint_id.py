"""A config whose checkpoint_id is "" (a client that always sends the key) names no version: the
saver's get_tuple, list, get_delta_channel_history, a graph's get_state, its history,
update_state and a run read the thread's newest, on the in-memory and SQLite savers."""

import operator
import sqlite3
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph

from observe import record


class S(TypedDict):
    log: Annotated[list, operator.add]


g = StateGraph(S)
g.add_node("a", lambda s: {"log": [len(s["log"])]})
g.add_edge(START, "a")

for name, saver in (("memory", InMemorySaver()), ("sqlite", SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False)))):
    app = g.compile(checkpointer=saver)
    app.invoke({"log": ["x"]}, {"configurable": {"thread_id": "t"}})
    app.invoke({"log": ["y"]}, {"configurable": {"thread_id": "t"}})
    empty = {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": ""}}
    found = saver.get_tuple(empty)
    record(name + " get_tuple", None if found is None else [found.checkpoint["channel_values"], found.metadata["step"]])
    record(name + " list", [t.metadata["step"] for t in saver.list(empty)])
    if name == "sqlite":  # (before= an empty id: LangGraph's in-memory saver lists every version, its SQL savers none)
        record(name + " list before", [t.metadata["step"] for t in saver.list({"configurable": {"thread_id": "t"}}, before=empty)])
    record(name + " delta history", saver.get_delta_channel_history(config=empty, channels=["log"]))
    record(name + " get_state", [app.get_state(empty).values, app.get_state(empty).metadata["step"]])
    record(name + " history", [h.metadata["step"] for h in app.get_state_history(empty)])
    app.update_state(empty, {"log": ["u"]})
    record(name + " after update", app.get_state({"configurable": {"thread_id": "t"}}).values)
    record(name + " run", app.invoke({"log": ["z"]}, empty))
