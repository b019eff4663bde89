"""Issue 14 item 13: a router returning a node that does not exist.

Without a path map LangGraph ignores it; with a path map it raises KeyError.
"""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from observe import call, history


class State(TypedDict):
    x: int


def build(path_map):
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"x": s["x"] + 1})
    builder.add_node("b", lambda s: {"x": s["x"] * 2})
    builder.add_edge(START, "a")
    if path_map is None:
        builder.add_conditional_edges("a", lambda s: "nowhere")
    else:
        builder.add_conditional_edges("a", lambda s: "nowhere", path_map)
    builder.add_edge("b", END)
    return builder.compile(checkpointer=InMemorySaver())


for name, path_map in (("no path map", None), ("path map", {"go": "b", "stop": END}), ("path list", ["b", END])):
    graph = build(path_map)
    config = {"configurable": {"thread_id": name}}
    call(name, graph.invoke, {"x": 1}, config)
    history(graph, config, f"{name}: history")
