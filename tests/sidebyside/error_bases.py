"""Issue 14 item 14: a refused resume is a RuntimeError, as in LangGraph."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import call


class State(TypedDict):
    log: Annotated[list, operator.add]


builder = StateGraph(State)
builder.add_node("p", lambda s: {"log": [interrupt("p?")]})
builder.add_node("q", lambda s: {"log": [interrupt("q?")]})
builder.add_edge(START, "p")
builder.add_edge(START, "q")
graph = builder.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "two"}}
graph.invoke({"log": []}, config)


def caught_as_runtime_error(fn, *args):
    try:
        fn(*args)
    except RuntimeError:
        return "caught as RuntimeError"
    return "no error"


call("plain answer to two", caught_as_runtime_error, graph.invoke, Command(resume="x"), config)
call("no checkpointer", caught_as_runtime_error, builder.compile().invoke, Command(resume="x"))
# Kept differences (README "Where it differs"): a resume with nothing pending raises.
one = StateGraph(State)
one.add_node("n", lambda s: {"log": ["n"]})
one.add_edge(START, "n")
done = one.compile(checkpointer=InMemorySaver())
finished = {"configurable": {"thread_id": "finished"}}
done.invoke({"log": []}, finished)
call("nothing pending, finished thread", done.invoke, Command(resume="x"), finished)
call("nothing pending, new thread", done.invoke, Command(resume="x"), {"configurable": {"thread_id": "new"}})
