"""Issue 18 item 4: ``defer=True``: a node runs only when nothing else is left to run."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt

from observe import history, record


class S(TypedDict, total=False):
    log: Annotated[list, operator.add]
    items: list


def step(name):
    def node(state):
        return {"log": [name]}

    return node


def branches(defer_agg=True):
    """START fans out to a (one step) and b1 → b2 (two steps); both lead to agg."""
    b = StateGraph(S)
    for n in ["a", "b1", "b2"]:
        b.add_node(n, step(n))
    b.add_node("agg", step("agg"), defer=defer_agg)
    b.add_edge(START, "a").add_edge(START, "b1").add_edge("b1", "b2")
    b.add_edge("a", "agg").add_edge("b2", "agg").add_edge("agg", END)
    return b.compile(checkpointer=InMemorySaver())


cfg = {"configurable": {"thread_id": "t"}}
g = branches()
record("deferred fan-in runs once", g.invoke({"log": []}, cfg))
history(g, cfg)
record("updates", list(branches().stream({"log": []}, cfg, stream_mode="updates")))
record("without defer it runs twice", branches(False).invoke({"log": []}, cfg))


def fan(state):
    return [Send("work", {"item": i}) for i in state["items"]]


def work(arg):
    """Item n takes n steps: each hands the rest on, the last one goes to reduce."""
    n = arg["item"]
    if n > 1:
        return Command(update={"log": [f"work {n}"]}, goto=Send("work", {"item": n - 1}))
    return Command(update={"log": [f"work {n}"]}, goto="reduce")


def more(state):
    return {"log": ["more"]}


def mapreduce():
    b = StateGraph(S)
    b.add_node("work", work).add_node("reduce", step("reduce"), defer=True).add_node("more", more)
    b.add_conditional_edges(START, fan, ["work"])
    b.add_edge(START, "more")
    b.add_edge("more", "reduce")
    return b.compile(checkpointer=InMemorySaver())


m = mapreduce()
record("map-reduce", m.invoke({"items": [1, 3, 2], "log": []}, {"configurable": {"thread_id": "m"}}))
history(m, {"configurable": {"thread_id": "m"}})


def join():
    b = StateGraph(S)
    for n in ["a", "b1", "b2", "c"]:
        b.add_node(n, step(n))
    b.add_node("agg", step("agg"), defer=True)
    b.add_edge(START, "a").add_edge(START, "b1").add_edge("b1", "b2").add_edge("b2", "c")
    b.add_edge(["a", "b2"], "agg")
    return b.compile(checkpointer=InMemorySaver())


j = join()
record("join edge", j.invoke({"log": []}, {"configurable": {"thread_id": "j"}}))
history(j, {"configurable": {"thread_id": "j"}})


def ask(state):
    return {"log": [interrupt("ok?")]}


def paused():
    b = StateGraph(S)
    b.add_node("a", step("a")).add_node("ask", ask).add_node("agg", step("agg"), defer=True)
    b.add_edge(START, "a").add_edge(START, "ask").add_edge("a", "agg").add_edge("ask", "agg")
    return b.compile(checkpointer=InMemorySaver())


p = paused()
pc = {"configurable": {"thread_id": "p"}}
record("interrupted", p.invoke({"log": []}, pc))
record("state at interrupt", p.get_state(pc).next)
record("resumed", p.invoke(Command(resume="yes"), pc))
history(p, pc)
