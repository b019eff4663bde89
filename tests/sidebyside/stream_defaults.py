"""Issue 14 item 8: stream() with no stream_mode yields updates; invoke(stream_mode=...)
is honoured; an interrupted task's result in the tasks mode is {}."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import interrupt

from observe import call, record


class State(TypedDict):
    x: int


def ask(state: State) -> dict:
    return {"x": interrupt("q")}


builder = StateGraph(State)
builder.add_node("a", lambda s: {"x": s["x"] + 1})
builder.add_node("ask", ask)
builder.add_edge(START, "a")
builder.add_edge("a", "ask")
graph = builder.compile(checkpointer=InMemorySaver())

record("default stream", list(graph.stream({"x": 1}, {"configurable": {"thread_id": "d"}})))
call("invoke updates", graph.invoke, {"x": 1}, {"configurable": {"thread_id": "u"}}, stream_mode="updates")
call("invoke values", graph.invoke, {"x": 1}, {"configurable": {"thread_id": "v"}}, stream_mode="values")
call("invoke two modes", graph.invoke, {"x": 1}, {"configurable": {"thread_id": "w"}}, stream_mode=["updates", "values"])
tasks = list(graph.stream({"x": 1}, {"configurable": {"thread_id": "t"}}, stream_mode="tasks"))
# interrupts as LangGraph's payloads hold them (dicts); their ids are hashes of differing task ids
record("tasks", [{k: v for k, v in t.items() if k not in ("triggers", "interrupts")} for t in tasks])
record("task interrupts", [[{**i, "id": bool(i["id"])} for i in t.get("interrupts", ())] for t in tasks])
