"""Issue 17 items 2-3, 7: interrupts and errors inside subgraphs, for each checkpointer mode.

An interrupt raised inside a subgraph ends the parent's call with it; the
parent's snapshot lists the subgraph task with the interrupt; Command(resume=)
on the parent resumes inside the subgraph. checkpointer=None: versions per
invocation; True: the subgraph's history lasts across calls; False: none.
Two interrupted tasks (one inside a subgraph) are answered by id, one at a
time. A node failing inside a subgraph fails the call; invoke(None) resumes
inside it without running its finished node again.
"""

import operator
import re
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import call, record

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def namespaces(saver, thread):
    found = {t.config["configurable"]["checkpoint_ns"] for t in saver.list(None) if t.config["configurable"]["thread_id"] == thread}
    return sorted(_UUID.sub("<id>", n) for n in found)


class S(TypedDict):
    log: Annotated[list, operator.add]


def ask(state):
    return {"log": ["ans:" + interrupt("q")]}


for mode in (None, True, False):
    sb = StateGraph(S)
    sb.add_node("ask", ask)
    sb.add_edge(START, "ask")
    pb = StateGraph(S)
    pb.add_node("child", sb.compile(checkpointer=mode))
    pb.add_edge(START, "child")
    saver = InMemorySaver()
    g = pb.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    record(f"{mode}: first", g.invoke({"log": ["a"]}, cfg))
    record(f"{mode}: state", g.get_state(cfg))
    record(f"{mode}: resumed", g.invoke(Command(resume="yes"), cfg))
    record(f"{mode}: second turn", g.invoke({"log": ["b"]}, cfg))
    record(f"{mode}: second resumed", g.invoke(Command(resume="no"), cfg))
    record(f"{mode}: namespaces", namespaces(saver, "t"))

# two interrupted tasks in one step, one inside a subgraph: answered by id
runs = []


def other(state):
    runs.append("other")
    return {"log": ["other:" + interrupt("r")]}


sb = StateGraph(S)
sb.add_node("ask", ask)
sb.add_edge(START, "ask")
pb = StateGraph(S)
pb.add_node("child", sb.compile())
pb.add_node("other", other)
pb.add_edge(START, "child")
pb.add_edge(START, "other")
g = pb.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "two"}}
out = g.invoke({"log": []}, cfg)
record("two: first", sorted(i.value for i in out["__interrupt__"]))  # LangGraph lists them as they were raised
ids = {i.value: i.id for i in out["__interrupt__"]}
record("two: answer the subgraph's", g.invoke(Command(resume={ids["q"]: "A"}), cfg))
record("two: state", g.get_state(cfg))
record("two: answer the other", g.invoke(Command(resume={ids["r"]: "B"}), cfg))
record("two: other ran", list(runs))
g.invoke({"log": []}, {"configurable": {"thread_id": "plain"}})
try:
    g.invoke(Command(resume="x"), {"configurable": {"thread_id": "plain"}})
except RuntimeError as e:  # LangGraph's is a RuntimeError, the engine's a RuntimeError subclass
    record("two: plain resume of two is refused", isinstance(e, RuntimeError))

# an error inside a subgraph
calls = []
fail = [True]


def first(state):
    calls.append("first")
    return {"log": ["first"]}


def flaky(state):
    calls.append("flaky")
    if fail[0]:
        raise RuntimeError("boom")
    return {"log": ["flaky"]}


ib = StateGraph(S)
ib.add_node("first", first)
ib.add_node("flaky", flaky)
ib.add_edge(START, "first")
ib.add_edge("first", "flaky")
ob = StateGraph(S)
ob.add_node("child", ib.compile())
ob.add_edge(START, "child")
g = ob.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "err"}}
call("error: first", g.invoke, {"log": []}, cfg)
record("error: state", g.get_state(cfg))
fail[0] = False
record("error: continued", g.invoke(None, cfg))
record("error: calls", list(calls))
