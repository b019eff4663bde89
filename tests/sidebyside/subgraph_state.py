"""Issue 17 items 4-5: reading a subgraph's state, its history, updating it; streaming with subgraphs=True.

get_state(subgraphs=True) puts the interrupted subgraph's snapshot in its
task's state (nested two deep); without it the task's state is the config
naming the subgraph's namespace. get_state_history and update_state take a
subgraph's checkpoint_ns; after such an update the root's resume answers the
question asked again. stream(subgraphs=True) yields (namespace, chunk) in
every mode; without it nothing from inside the subgraph is streamed.
"""

import operator
import re
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import record, token

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def ns(value):
    if isinstance(value, tuple):
        return [ns(v) for v in value]
    return _UUID.sub(lambda m: token("id", m.group(0)), value)


def task_state(snapshot):
    """Each task's state: a nested snapshot (recorded whole, with its own tasks' states), or a config."""
    out = []
    for t in snapshot.tasks:
        s = t.state
        if s is None or isinstance(s, dict):
            out.append(s and {"thread_id": s["configurable"]["thread_id"], "checkpoint_ns": ns(s["configurable"]["checkpoint_ns"])})
        else:
            out.append({"snapshot": s, "ns": ns(s.config["configurable"]["checkpoint_ns"]), "tasks": task_state(s)})
    return out


class S(TypedDict):
    log: Annotated[list, operator.add]


def ask(state):
    get_stream_writer()({"asking": len(state["log"])})
    return {"log": ["ans:" + interrupt("q")]}


inner = StateGraph(S)
inner.add_node("prep", lambda s: {"log": ["prep"]})
inner.add_node("ask", ask)
inner.add_edge(START, "prep")
inner.add_edge("prep", "ask")
mid = StateGraph(S)
mid.add_node("inner", inner.compile())
mid.add_edge(START, "inner")
top = StateGraph(S)
top.add_node("pre", lambda s: {"log": ["pre"]})
top.add_node("mid", mid.compile())
top.add_edge(START, "pre")
top.add_edge("pre", "mid")
g = top.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t"}}

for chunk in g.stream({"log": ["a"]}, cfg, stream_mode=["updates", "values", "custom"]):
    record("stream without subgraphs", chunk)
for ns_, mode, chunk in g.stream({"log": ["b"]}, {"configurable": {"thread_id": "s"}}, stream_mode=["updates", "values", "custom"], subgraphs=True):
    record("stream with subgraphs", [ns(ns_), mode, chunk])
for ns_, chunk in g.stream(Command(resume="yes"), {"configurable": {"thread_id": "s"}}, subgraphs=True):
    record("resume stream with subgraphs", [ns(ns_), chunk])

state = g.get_state(cfg)
record("state", state)
record("task state without subgraphs", task_state(state))
deep = g.get_state(cfg, subgraphs=True)
record("task state with subgraphs", task_state(deep))

mid_cfg = deep.tasks[0].state.config
inner_cfg = deep.tasks[0].state.tasks[0].state.config
record("inner history", list(g.get_state_history({"configurable": {"thread_id": "t", "checkpoint_ns": inner_cfg["configurable"]["checkpoint_ns"]}})))
record("mid history", list(g.get_state_history({"configurable": {"thread_id": "t", "checkpoint_ns": mid_cfg["configurable"]["checkpoint_ns"]}})))
record("get_state of the inner namespace", g.get_state({"configurable": {"thread_id": "t", "checkpoint_ns": inner_cfg["configurable"]["checkpoint_ns"]}}))

updated = g.update_state({"configurable": {"thread_id": "t", "checkpoint_ns": inner_cfg["configurable"]["checkpoint_ns"]}}, {"log": ["edited"]}, as_node="prep")
record("update_state in the inner namespace", ns(updated["configurable"]["checkpoint_ns"]))
record("after the update, inner", g.get_state({"configurable": {"thread_id": "t", "checkpoint_ns": inner_cfg["configurable"]["checkpoint_ns"]}}))
# The updated version waits for nothing: the root's answer goes to the question asked again.
record("resumed after the update", g.invoke(Command(resume="yes"), cfg))
record("after the resume, inner", g.get_state({"configurable": {"thread_id": "t", "checkpoint_ns": inner_cfg["configurable"]["checkpoint_ns"]}}))
