"""Issue 14 item 5: Command(update=..., goto=...) as input on a thread with state.

It continues the thread's current version: update becomes writes, goto
branches; no "input" version, START's edges are not taken. With resume= too,
they apply in the same step as the resumed task.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt

from observe import call, history, record


class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def ask(state: State) -> dict:
    return {"log": ["ask:" + interrupt("q")]}


builder = StateGraph(State)
builder.add_node("a", lambda s: {"log": ["a"]})
builder.add_node("b", lambda s: {"log": [f"b{s['x']}"]})
builder.add_node("ask", ask)
builder.add_edge(START, "a")
builder.add_edge("a", END)
builder.add_edge("b", END)
builder.add_edge("ask", END)
graph = builder.compile(checkpointer=InMemorySaver())

config = {"configurable": {"thread_id": "cmd"}}
record("first", graph.invoke({"x": 1, "log": []}, config))
record("update and goto", graph.invoke(Command(update={"x": 7}, goto="b"), config))
record("update only", graph.invoke(Command(update={"log": ["u"]}), config))
record("goto a Send", graph.invoke(Command(goto=Send("b", {"x": 9, "log": []})), config))
record("goto ask", graph.invoke(Command(goto="ask"), config))
record("resume with update and goto", graph.invoke(Command(resume="R", update={"x": 3}, goto="b"), config))
history(graph, config)

fresh = {"configurable": {"thread_id": "cmd-new"}}
call("update on a new thread", graph.invoke, Command(update={"x": 2, "log": []}), fresh)
history(graph, fresh, "new thread history")
