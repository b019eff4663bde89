"""The state of a graph a node's function invokes, not added as a node: a graph the function names
is found (its state read and updated as its own); one it builds as it runs is not found: read with
the parent's channels, refused on update."""
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from observe import record


class S(TypedDict):
    x: int


inner_b = StateGraph(S)
inner_b.add_node("step", lambda s: {"x": s["x"] + 10})
inner_b.add_edge(START, "step")
named = inner_b.compile()


def calls_named(state: S) -> dict:
    return {"x": named.invoke({"x": state["x"]})["x"] + 1}


def calls_built(state: S) -> dict:
    return {"x": inner_b.compile().invoke({"x": state["x"]})["x"] + 1}  # a graph built as the node runs


for name, fn in (("named", calls_named), ("built", calls_built)):
    outer_b = StateGraph(S)
    outer_b.add_node("caller", fn)
    outer_b.add_edge(START, "caller")
    saver = InMemorySaver()
    graph = outer_b.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    record(f"{name} out", graph.invoke({"x": 1}, config))
    namespaces = sorted({t.config["configurable"]["checkpoint_ns"] for t in saver.list(config)})
    record(f"{name} namespaces", [ns.split(":")[0] for ns in namespaces])
    at = {"configurable": {"thread_id": "t", "checkpoint_ns": next(ns for ns in namespaces if ns)}}
    state = graph.get_state(at)
    record(f"{name} read", {"values": state.values, "next": state.next, "step": state.metadata["step"]})
    record(f"{name} history", [s.values for s in graph.get_state_history(at)])
    try:
        graph.update_state(at, {"x": 99})
        record(f"{name} update", graph.get_state(at).values)
    except Exception as e:
        record(f"{name} update", [type(e).__name__, str(e)])
