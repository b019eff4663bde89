"""Issue 14 item 6: get_state_history with a checkpoint_id returns only that version;
without a thread_id it raises KeyError."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from observe import call, record


class State(TypedDict):
    x: int


builder = StateGraph(State)
builder.add_node("a", lambda s: {"x": s["x"] + 1})
builder.add_node("b", lambda s: {"x": s["x"] * 2})
builder.add_edge(START, "a")
builder.add_edge("a", "b")
graph = builder.compile(checkpointer=InMemorySaver())

config = {"configurable": {"thread_id": "hist"}}
graph.invoke({"x": 1}, config)
versions = list(graph.get_state_history(config))
middle = versions[1].config
record("named version", list(graph.get_state_history(middle)))
record("before it", list(graph.get_state_history(config, before=middle)))
record("named with limit", list(graph.get_state_history(middle, limit=5)))
call("no thread id", lambda: list(graph.get_state_history({"configurable": {}})))
call("no configurable", lambda: list(graph.get_state_history({})))
