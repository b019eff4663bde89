"""A list of stream modes: each step's values chunk comes before its version's checkpoint (new input, a continuing call, a fork)."""

from typing import TypedDict
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from observe import record
class X(TypedDict):
    x: int
g = StateGraph(X).add_node("a", lambda s: {"x": s["x"] + 1}).add_node("b", lambda s: {"x": s["x"] * 10}).add_edge(START, "a").add_edge("a", "b").compile(checkpointer=InMemorySaver())
record("order", [(m, c.get("metadata", {}).get("step") if m == "checkpoints" else c.get("x")) for m, c in g.stream({"x": 1}, {"configurable": {"thread_id": "o"}}, stream_mode=["values", "checkpoints"])])
record("order 2", [(m, c.get("metadata", {}).get("step") if m == "checkpoints" else c.get("x")) for m, c in g.stream({"x": 3}, {"configurable": {"thread_id": "o"}}, stream_mode=["checkpoints", "values", "updates"])])
h = list(g.get_state_history({"configurable": {"thread_id": "o"}}))
record("fork order", [(m, c.get("metadata", {}).get("step") if m == "checkpoints" else c.get("x")) for m, c in g.stream(None, h[3].config, stream_mode=["checkpoints", "values"])])

# a step that writes no state key (a node returning {} or None) adds no values chunk
n = StateGraph(X).add_node("a", lambda s: {"x": s["x"] + 1}).add_node("noop", lambda s: {}).add_node("none", lambda s: None)
n = n.add_node("b", lambda s: {"x": s["x"] * 10}).add_edge(START, "a").add_edge("a", "noop").add_edge("noop", "none").add_edge("none", "b")
n = n.compile(checkpointer=InMemorySaver())
record("no-op steps", list(n.stream({"x": 1}, {"configurable": {"thread_id": "n"}}, stream_mode="values")))
record("no-op steps, two modes", [m for m, _ in n.stream({"x": 1}, {"configurable": {"thread_id": "n2"}}, stream_mode=["values", "updates"])])
record("no-op steps, updates", list(n.stream({"x": 1}, {"configurable": {"thread_id": "n3"}}, stream_mode="updates")))
