"""Issue 17 items 1-2: a compiled graph as a node; its versions in the parent's thread.

The subgraph reads the keys it shares with the parent, writes its output keys
back (a reducer key gets the subgraph's whole list again, as LangGraph does),
and saves its versions under checkpoint_ns "node:task_id" with
metadata.parents naming the parent's version; a subgraph invoked inside a
node function saves under that node's task; nested ones join with "|".
"""

import operator
import re
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.graph import START, StateGraph

from observe import record, token

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def ns(value):
    return _UUID.sub(lambda m: token("id", m.group(0)), value)


def versions(saver, thread):
    out = []
    for t in saver.list(None):
        c = t.config["configurable"]
        if c["thread_id"] == thread:
            parents = {ns(k): token("checkpoint", v) for k, v in t.metadata.get("parents", {}).items()}
            out.append([ns(c["checkpoint_ns"]), t.metadata["step"], t.metadata["source"], parents])
    return sorted(out, key=lambda v: (v[0], v[1]))


class Sub(TypedDict):
    x: int
    log: Annotated[list, operator.add]
    inner: str


class Parent(TypedDict):
    x: int
    log: Annotated[list, operator.add]


seen = []


def s1(state):
    seen.append(ns(get_config()["configurable"]["checkpoint_ns"]))
    return {"x": state["x"] + 1, "log": ["s1"], "inner": "i"}


sb = StateGraph(Sub)
sb.add_node("s1", s1)
sb.add_node("s2", lambda s: {"log": ["s2"]})
sb.add_edge(START, "s1")
sb.add_edge("s1", "s2")
sub = sb.compile()

pb = StateGraph(Parent)
pb.add_node("p1", lambda s: {"log": ["p1"]})
pb.add_node("child", sub)
pb.add_edge(START, "p1")
pb.add_edge("p1", "child")
saver = InMemorySaver()
g = pb.compile(checkpointer=saver)
cfg = {"configurable": {"thread_id": "t"}}
record("result", g.invoke({"x": 1, "log": []}, cfg))
record("versions", versions(saver, "t"))
record("parent history", list(g.get_state_history(cfg)))
record("inner task ns", list(seen))

# invoked inside a node function
def call(state):
    out = sub.invoke({"x": state["x"], "log": []})
    return {"x": out["x"], "log": out["log"]}


fb = StateGraph(Parent)
fb.add_node("call", call)
fb.add_edge(START, "call")
fg = fb.compile(checkpointer=saver)
record("inside a function", fg.invoke({"x": 5, "log": []}, {"configurable": {"thread_id": "f"}}))
record("inside a function: versions", versions(saver, "f"))
record("without a saver", fb.compile().invoke({"x": 5, "log": []}))

# nested two deep
outer = StateGraph(Parent)
outer.add_node("mid", g.builder.compile())
outer.add_edge(START, "mid")
og = outer.compile(checkpointer=saver)
record("nested", og.invoke({"x": 1, "log": []}, {"configurable": {"thread_id": "n"}}))
record("nested: namespaces", sorted({v[0] for v in versions(saver, "n")}))
record("nested: parents", sorted({str(v[3]) for v in versions(saver, "n")}))
