"""Issue 17 item 7: going back in time on the parent takes its subgraphs back with it.

A fork of an older parent version (invoke(None, config naming it)), and a run
from an update_state branch, run each subgraph, the first time the call runs
it, from the subgraph's newest version older than the parent version gone
back to (for an update: the update's parent). A checkpointer=True subgraph
(one namespace across calls) so continues from its state of then; a
per-invocation subgraph's fork tasks have new ids, so it starts afresh, and
one interrupted inside asks again. New input on an older version, a plain
call after the fork, and a second run of the subgraph in the same call read
its newest version. An update_state without as_node at an input step's
version is START's (the first node stays due). A node failing inside a subgraph beside finished
siblings (in the subgraph and in the parent) fails the call; invoke(None)
runs only the failed node again.
"""

import operator
import re
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from observe import call, record, token

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def versions(saver, thread, ns):
    """The namespace's versions, oldest first: step, source, count, parent."""
    out = []
    for t in saver.list({"configurable": {"thread_id": thread, "checkpoint_ns": ns}}):
        parent = (t.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        out.append([t.metadata["step"], t.metadata["source"], t.checkpoint["channel_values"].get("count"), token("checkpoint", t.config["configurable"]["checkpoint_id"]), token("checkpoint", parent)])
    return out[::-1]


def namespaces(saver, thread):
    found = {t.config["configurable"]["checkpoint_ns"] for t in saver.list(None) if t.config["configurable"]["thread_id"] == thread}
    return sorted(_UUID.sub("<id>", n) for n in found)


class Sub(TypedDict):
    x: int
    count: int  # the subgraph's own key: how many times it ran on its history
    log: Annotated[list, operator.add]


class Parent(TypedDict):
    x: int
    log: Annotated[list, operator.add]


seen = []


def counter(state):
    seen.append((state.get("count"), state["x"]))
    return {"count": (state.get("count") or 0) + 1}


def build(mode, *, loop=False, ask=False):
    sb = StateGraph(Sub)
    sb.add_node("count", counter)
    sb.add_edge(START, "count")
    if ask:
        sb.add_node("ask", lambda s: {"log": ["ans:" + interrupt("q")]})
        sb.add_edge("count", "ask")
    pb = StateGraph(Parent)
    pb.add_node("p1", lambda s: {"x": s["x"] + 1})
    pb.add_node("child", sb.compile(checkpointer=mode))
    pb.add_edge(START, "p1")
    pb.add_edge("p1", "child")
    if loop:  # back to p1 until x reaches 3: the subgraph runs twice in one call
        pb.add_conditional_edges("child", lambda s: END if s["x"] >= 3 else "p1")
    saver = InMemorySaver()
    return pb.compile(checkpointer=saver), saver


cfg = {"configurable": {"thread_id": "t"}}
for mode in (None, True):
    g, saver = build(mode)
    seen.clear()
    for i in range(3):
        g.invoke({"x": 10 * i, "log": []}, cfg)
    record(f"{mode}: three calls", list(seen))
    hist = list(g.get_state_history(cfg))
    due = [h for h in hist if h.next == ("child",)]  # newest first
    p1 = [h for h in hist if h.next == ("p1",)]
    seen.clear()
    record(f"{mode}: fork at child of call 2", g.invoke(None, due[1].config))
    record(f"{mode}: fork at p1 of call 2", g.invoke(None, p1[1].config))
    record(f"{mode}: forks saw", list(seen))
    seen.clear()
    up = g.update_state(due[1].config, {"x": 500}, as_node="p1")
    record(f"{mode}: update branch", g.invoke(None, up))
    record(f"{mode}: update branch again", g.invoke(None, up))
    ends = [h for h in hist if h.next == ()]
    record(f"{mode}: new input on call 1's end", g.invoke({"x": 100, "log": []}, ends[-1].config))
    record(f"{mode}: a plain call after", g.invoke({"x": 7, "log": []}, cfg))
    record(f"{mode}: the branches saw", list(seen))
    record(f"{mode}: parent history", list(g.get_state_history(cfg)))
    record(f"{mode}: namespaces", namespaces(saver, "t"))
    if mode is True:
        record("True: the subgraph's versions", versions(saver, "t", "child"))

# the subgraph twice in one forked call: the second run reads the first's version
g, saver = build(True, loop=True)
seen.clear()
g.invoke({"x": 0, "log": []}, cfg)
g.invoke({"x": 0, "log": []}, cfg)
first_due = [h for h in g.get_state_history(cfg) if h.next == ("child",)][-1]
record("loop: fork", g.invoke(None, first_due.config))
record("loop: saw", list(seen))

# an update without as_node at call 2's input step version: START's (p1 stays due), then run from
g, saver = build(True)
seen.clear()
for i in range(2):
    g.invoke({"x": 10 * i, "log": []}, cfg)
before = [h for h in g.get_state_history(cfg) if h.next == ("p1",)][0]
up = g.update_state(before.config, {"log": ["edited"]})
record("update as START", g.get_state(up))
seen.clear()
record("update as START: run", g.invoke(None, up))
record("update as START: saw", list(seen))

# two deep: a per-invocation graph around a checkpointer=True one, and a checkpointer=True one around it
for outer_mode in (None, True):
    g, _ = build(True)
    ob = StateGraph(Parent)
    ob.add_node("mid", g.builder.compile(checkpointer=outer_mode))
    ob.add_edge(START, "mid")
    og = ob.compile(checkpointer=InMemorySaver())
    seen.clear()
    for i in range(3):
        og.invoke({"x": 10 * i, "log": []}, cfg)
    older = [h for h in og.get_state_history(cfg) if h.next == ("mid",)][1]
    record(f"two deep {outer_mode}: fork", og.invoke(None, older.config))
    record(f"two deep {outer_mode}: saw", list(seen))

# interrupted inside the subgraph, then the parent forked from before it
for mode in (None, True):
    g, saver = build(mode, ask=True)
    seen.clear()
    record(f"{mode} ask: first", g.invoke({"x": 0, "log": []}, cfg))
    record(f"{mode} ask: answered", g.invoke(Command(resume="one"), cfg))
    record(f"{mode} ask: second", g.invoke({"x": 10, "log": []}, cfg))
    due = [h for h in g.get_state_history(cfg) if h.next == ("child",)]  # newest first
    record(f"{mode} ask: fork of the waiting version", g.invoke(None, due[0].config))
    record(f"{mode} ask: fork answered", g.invoke(Command(resume="two"), cfg))
    record(f"{mode} ask: state", g.get_state(cfg, subgraphs=True))
    record(f"{mode} ask: saw", list(seen))

# an error inside a subgraph beside finished siblings; invoke(None) resumes inside it
calls = []
fail = [True]


def step(name, flaky=False):
    def run(state):
        calls.append(name)
        if flaky and fail[0]:
            raise RuntimeError("boom")
        return {"log": [name]}

    return run


class S(TypedDict):
    log: Annotated[list, operator.add]


inner = StateGraph(S)
inner.add_node("first", step("first"))
inner.add_node("ok", step("ok"))
inner.add_node("flaky", step("flaky", True))
inner.add_edge(START, "first")
inner.add_edge("first", "ok")
inner.add_edge("first", "flaky")
outer = StateGraph(S)
outer.add_node("child", inner.compile())
outer.add_node("sibling", step("sibling"))
outer.add_edge(START, "child")
outer.add_edge(START, "sibling")
g = outer.compile(checkpointer=InMemorySaver())
call("error: first call", g.invoke, {"log": []}, cfg)
record("error: ran", sorted(calls))
record("error: state", g.get_state(cfg, subgraphs=True))
calls.clear()
fail[0] = False
record("error: invoke(None)", g.invoke(None, cfg))
record("error: ran again", sorted(calls))
