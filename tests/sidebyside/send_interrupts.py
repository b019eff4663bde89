"""Interrupts inside Send tasks: several at once, answered by id one at a time and all at
once; a Send to a subgraph node with a schema of its own."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt

from observe import history, record


class S(TypedDict):
    items: list
    approved: Annotated[list, operator.add]


class Item(TypedDict):
    item: str


def fan(s: S):
    return [Send("review", {"item": i}) for i in s["items"]]


def review(s: Item):
    ok = interrupt(f"approve {s['item']}?")
    return {"approved": [s["item"]] if ok else []}


g = StateGraph(S)
g.add_node("review", review)
g.add_conditional_edges(START, fan, ["review"])
g.add_edge("review", END)
app = g.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "a"}}
out = app.invoke({"items": ["x", "y", "z"], "approved": []}, cfg)
asks = {i.value: i.id for i in out["__interrupt__"]}
record("asked", sorted(asks))
out = app.invoke(Command(resume={asks["approve y?"]: True}), cfg)
record("one answered", [sorted(i.value for i in out["__interrupt__"]), out["approved"]])
state = app.get_state(cfg)
record("waiting", sorted(i.value for i in state.interrupts))
out = app.invoke(Command(resume={asks["approve x?"]: False, asks["approve z?"]: True}), cfg)
record("all answered", [sorted(out["approved"]), "__interrupt__" in out])
history(app, cfg)


class Sub(TypedDict):
    topic: str
    notes: list


def research(s: Sub):
    return {"notes": [f"{s['topic']} note"]}


sub = StateGraph(Sub)
sub.add_node("research", research)
sub.add_edge(START, "research")
subapp = sub.compile()


class Outer(TypedDict):
    topics: list
    notes: Annotated[list, operator.add]


o = StateGraph(Outer)
o.add_node("research_sub", subapp)
o.add_conditional_edges(START, lambda s: [Send("research_sub", {"topic": t, "notes": []}) for t in s["topics"]], ["research_sub"])
o.add_edge("research_sub", END)
oapp = o.compile(checkpointer=InMemorySaver())
ocfg = {"configurable": {"thread_id": "o"}}
record("send to subgraph", sorted(oapp.invoke({"topics": ["a", "b"], "notes": []}, ocfg)["notes"]))
record("subgraph updates", sorted(repr((tuple(n.split(":")[0] for n in ns), chunk)) for ns, chunk in oapp.stream({"topics": ["c"], "notes": []}, {"configurable": {"thread_id": "o2"}}, stream_mode="updates", subgraphs=True)))
