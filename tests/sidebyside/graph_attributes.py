"""A compiled graph's attributes set after compile, as LangGraph programs set them: its
checkpointer, retry policy, name and static breakpoints (LangGraph's names for them)."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy

from observe import call, record


class S(TypedDict):
    a: int


calls = {"n": 0}


def flaky(s):
    calls["n"] += 1
    if calls["n"] == 1:
        raise ValueError("once")
    return {"a": s["a"] + 1}


g = StateGraph(S).add_node("one", flaky).add_edge(START, "one").compile()
g.checkpointer = InMemorySaver()
g.retry_policy = (RetryPolicy(initial_interval=0.01, jitter=False),)
cfg = {"configurable": {"thread_id": "t"}}
call("retried, kept", g.invoke, {"a": 1}, cfg)
record("state", g.get_state(cfg).values)
g.name = "renamed"
record("name", g.name)

b = StateGraph(S).add_node("one", lambda s: {"a": s["a"] + 1}).add_edge(START, "one").compile(checkpointer=InMemorySaver())
record("breakpoints", (list(b.interrupt_before_nodes), list(b.interrupt_after_nodes)))
b.interrupt_before_nodes = ["one"]
call("stopped before", b.invoke, {"a": 1}, cfg)
record("next", b.get_state(cfg).next)
b.interrupt_before_nodes, b.interrupt_after_nodes = [], "*"
call("on", b.invoke, None, cfg)
