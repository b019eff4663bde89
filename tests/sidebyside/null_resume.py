"""Issue 29: Command(resume=...) when no interrupt waits (LangGraph's "null resume").

The answer is kept for the step the run goes on with: the first interrupt()
of that step beyond its task's own answers takes it (only one task takes it);
the task's later questions wait as usual, and its answers so far are kept
with them. A step after that one does not see it.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import call, history, record


class State(TypedDict):
    log: Annotated[list, operator.add]


def twice(state: State) -> dict:
    first = interrupt("first?")
    second = interrupt("second?")
    return {"log": [f"twice:{first}:{second}"]}


def once(state: State) -> dict:
    return {"log": ["once:" + interrupt("once?")]}


builder = StateGraph(State)
builder.add_node("a", lambda s: {"log": ["a"]})
builder.add_node("twice", twice)
builder.add_node("once", once)
builder.add_edge(START, "a")
builder.add_edge("a", "twice")
builder.add_edge("twice", "once")
graph = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["twice"])

config = {"configurable": {"thread_id": "null"}}
record("to the breakpoint", graph.invoke({"log": []}, config))
record("resume at the breakpoint", graph.invoke(Command(resume="x"), config))
record("pending", [(t.name, [i.value for i in t.interrupts]) for t in graph.get_state(config).tasks])
record("second answer", graph.invoke(Command(resume="y"), config))
record("the next step asks", [(t.name, [i.value for i in t.interrupts]) for t in graph.get_state(config).tasks])
record("last", graph.invoke(Command(resume="z"), config))
history(graph, config)

# a resume with nothing to answer on a thread at its end: nothing runs, the answer is not kept
call("at the end", graph.invoke, Command(resume="w"), config)
record("still", graph.get_state(config).values)
