"""A graph compiled with store=: nodes get it by a store parameter (sync and async) and by get_store()."""

from typing import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from langgraph.config import get_store
from langgraph.checkpoint.memory import InMemorySaver
from observe import record

class S(TypedDict):
    user: str
    seen: list

def remember(state: S, store: BaseStore):
    ns = ("memories", state["user"])
    store.put(ns, str(len(store.search(ns))), {"text": "hello"})
    return {"seen": [i.key for i in store.search(ns)]}

def via_get_store(state: S):
    return {"seen": state["seen"] + [get_store() is not None]}

async def asynced(state: S, store):
    items = await store.asearch(("memories", state["user"]))
    return {"seen": state["seen"] + [len(items)]}

def no_store(state: S, store: BaseStore):
    return {"seen": state["seen"] + [store is None]}

store = InMemoryStore()
g = StateGraph(S).add_node(remember).add_node(via_get_store).add_edge(START, "remember").add_edge("remember", "via_get_store").add_edge("via_get_store", END).compile(store=store, checkpointer=InMemorySaver())
ga = StateGraph(S).add_node(remember).add_node(asynced).add_edge(START, "remember").add_edge("remember", "asynced").add_edge("asynced", END).compile(store=store)
record("run1", g.invoke({"user": "u1", "seen": []}, {"configurable": {"thread_id": "1"}}))
record("run2", g.invoke({"user": "u1", "seen": []}, {"configurable": {"thread_id": "2"}}))
import asyncio
record("arun", asyncio.run(ga.ainvoke({"user": "u2", "seen": []})))
record("store", [(i.namespace, i.key) for i in store.search(("memories",))])
g2 = StateGraph(S).add_node(no_store).add_edge(START, "no_store").compile()
record("none", g2.invoke({"user": "x", "seen": []}))
def bad(state: S, store: int = 3):
    return {"seen": [store]}
g3 = StateGraph(S).add_node(bad).add_edge(START, "bad").compile(store=store)
record("other type", g3.invoke({"user": "x", "seen": []}))
