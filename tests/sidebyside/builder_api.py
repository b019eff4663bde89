"""Builder API variants people use: add_sequence, set_entry_point/set_finish_point, set_conditional_entry_point, input/output kwargs, NodeInterrupt, names."""
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import NodeInterrupt
from langgraph.graph import START, StateGraph

from observe import call, record


class S(TypedDict, total=False):
    x: int
    log: Annotated[list, operator.add]


def one(s):
    return {"log": ["one"]}


def two(s):
    return {"log": ["two"]}


def three(s):
    return {"log": ["three"]}


seq = StateGraph(S)
seq.add_sequence([one, two, ("third", three)])
seq.add_edge(START, "one")
sg = seq.compile(name="seq")
record("sequence", sg.invoke({"log": []}))
record("sequence nodes", sorted(sg.get_graph().nodes))
record("name", sg.name)

old = StateGraph(S)
old.add_node("one", one).add_node("two", two)
old.set_entry_point("one")
old.add_edge("one", "two")
old.set_finish_point("two")
record("entry/finish", old.compile().invoke({"log": []}))

cond = StateGraph(S)
cond.add_node("one", one).add_node("two", two)
cond.set_conditional_entry_point(lambda s: "two" if s.get("x") else "one", {"one": "one", "two": "two"})
cg = cond.compile()
record("conditional entry", [cg.invoke({"log": []}), cg.invoke({"x": 1, "log": []})])


class I(TypedDict):
    x: int


class O(TypedDict):
    log: list


io = StateGraph(S, input_schema=I, output_schema=O).add_node("one", one).add_edge(START, "one").compile()
record("io", io.invoke({"x": 3}))


def guarded(s):
    if s.get("x", 0) > 5:
        raise NodeInterrupt("x too big")
    return {"log": ["ok"]}


ni = StateGraph(S).add_node("guarded", guarded).add_edge(START, "guarded").compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
record("node interrupt", ni.invoke({"x": 10, "log": []}, cfg))
record("node interrupt state", ni.get_state(cfg))
ni.update_state(cfg, {"x": 1})
record("after fix", ni.invoke(None, cfg))
call("duplicate node", lambda: StateGraph(S).add_node("one", one).add_node("one", two))
call("reserved name", lambda: StateGraph(S).add_node("__end__", one))
call("no entry", lambda: StateGraph(S).add_node("one", one).compile())
call("unknown edge", lambda: StateGraph(S).add_node("one", one).add_edge(START, "one").add_edge("one", "nope").compile())
