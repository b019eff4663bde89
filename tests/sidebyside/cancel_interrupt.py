"""Issue 14 item 12: update_state(config, None, as_node=END) cancels a pending interrupt."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from observe import call, history, record


class State(TypedDict):
    x: int


def ask(state: State) -> dict:
    return {"x": interrupt("q")}


builder = StateGraph(State)
builder.add_node("ask", ask)
builder.add_edge(START, "ask")
graph = builder.compile(checkpointer=InMemorySaver())

config = {"configurable": {"thread_id": "cancel"}}
graph.invoke({"x": 1}, config)
call("cancel", lambda: graph.update_state(config, None, as_node=END) is not None)
record("state", graph.get_state(config))
call("resume after cancel", graph.invoke, Command(resume=5), config)
call("cancel with values", lambda: graph.update_state(config, {"x": 9}, as_node=END) is not None)
record("state 2", graph.get_state(config))
history(graph, config)
