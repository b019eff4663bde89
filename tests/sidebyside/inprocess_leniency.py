"""Issue 32 item 5: three places where LangGraph carries on in process and the engine used to raise.

* ``Command(resume=...)`` on a thread with nothing pending runs on (on a new
  thread too) and returns the state;
* an unknown ``checkpoint_id``: ``get_state`` returns an empty snapshot,
  ``invoke(None)`` raises EmptyInputError, ``invoke(input)`` runs from it;
* a conditional edge's router that raises: the node's own writes stay on the
  version's task (``tasks[i].result``) beside the error.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from observe import call, history, record


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def chain():
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"log": ["a"]})
    builder.add_node("b", lambda s: {"log": ["b"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", END)
    return builder.compile(checkpointer=InMemorySaver())


graph = chain()
done = {"configurable": {"thread_id": "done"}}
graph.invoke({"log": ["hi"]}, done)
call("resume with nothing pending", graph.invoke, Command(resume="yes"), done)
history(graph, done, "resume with nothing pending: history")
call("resume on a new thread", graph.invoke, Command(resume="yes"), {"configurable": {"thread_id": "new"}})
call("resume by id with nothing pending", graph.invoke, Command(resume={"nope": 1}), done)

unknown = {"configurable": {"thread_id": "done", "checkpoint_id": "1f0b5bd0-0000-6000-8000-000000000000"}}
call("get_state of an unknown checkpoint", graph.get_state, unknown)
call("invoke None from an unknown checkpoint", graph.invoke, None, unknown)
call("invoke input from an unknown checkpoint", graph.invoke, {"log": ["again"]}, unknown)
history(graph, done, "after the unknown checkpoint: history")
unknown_thread = {"configurable": {"thread_id": "nobody", "checkpoint_id": "1f0b5bd0-0000-6000-8000-000000000000"}}
call("get_state of an unknown thread's checkpoint", graph.get_state, unknown_thread)


def failing_router():
    def route(state):
        raise KeyError("nowhere")

    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"log": ["a"]})
    builder.add_node("b", lambda s: {"log": ["b"]})
    builder.add_edge(START, "a")
    builder.add_conditional_edges("a", route, ["b", END])
    return builder.compile(checkpointer=InMemorySaver())


router = failing_router()
config = {"configurable": {"thread_id": "router"}}
call("a router that raises", router.invoke, {"log": ["hi"]}, config)
record("a router that raises: state", router.get_state(config))
history(router, config, "a router that raises: history")

