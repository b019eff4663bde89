"""Issue 14 item 10: interrupt_before="*" / interrupt_after="*" skip the hidden START task."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from observe import history, record


class State(TypedDict):
    x: int


def build(**kw):
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"x": s["x"] + 1})
    builder.add_node("b", lambda s: {"x": s["x"] * 2})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    return builder.compile(checkpointer=InMemorySaver(), **kw)


for kw in ({"interrupt_before": "*"}, {"interrupt_after": "*"}):
    graph = build(**kw)
    name = next(iter(kw))
    config = {"configurable": {"thread_id": name}}
    record(f"{name}: first", graph.invoke({"x": 1}, config))
    record(f"{name}: next", graph.get_state(config).next)
    record(f"{name}: second", graph.invoke(None, config))
    record(f"{name}: third", graph.invoke(None, config))
    history(graph, config, f"{name}: history")
