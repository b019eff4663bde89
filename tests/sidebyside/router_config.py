"""Issue 32 item 3: a router reads the run's `configurable`, through a `config` parameter or
`get_config()`, in a run and in an `update_state` that applies an update as its node."""

import operator
from typing import Annotated, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.graph import END, START, StateGraph

from observe import call


class State(TypedDict):
    log: Annotated[list, operator.add]


def by_param(state: State, config: RunnableConfig) -> str:
    return "b" if config["configurable"].get("go") == "b" else END


def by_lookup(state: State) -> str:
    return "c" if get_config()["configurable"].get("then") == "c" else END


def untyped(state, config):
    return END if config["configurable"].get("stop") else "b"


builder = StateGraph(State)
builder.add_node("a", lambda s: {"log": ["a"]})
builder.add_node("b", lambda s: {"log": ["b"]})
builder.add_node("c", lambda s: {"log": ["c"]})
builder.add_node("d", lambda s: {"log": ["d"]})
builder.add_edge(START, "a")
builder.add_conditional_edges("a", by_param, ["b", END])
builder.add_conditional_edges("b", by_lookup, ["c", END])
builder.add_conditional_edges("c", untyped, ["b", END])
graph = builder.compile(checkpointer=InMemorySaver())


def cfg(thread, **configurable):
    return {"configurable": {"thread_id": thread, **configurable}}


call("run, go b", graph.invoke, {"log": []}, cfg("t1", go="b"))
call("run, b then c then stop", graph.invoke, {"log": []}, cfg("t2", go="b", then="c", stop=True))
call("run, nothing", graph.invoke, {"log": []}, cfg("t3"))
graph.update_state(cfg("u1", go="b"), {"log": ["x"]}, as_node="a")
call("update as a, go b: next", lambda: graph.get_state(cfg("u1")).next)
graph.update_state(cfg("u2"), {"log": ["x"]}, as_node="a")
call("update as a, nothing: next", lambda: graph.get_state(cfg("u2")).next)
graph.update_state(cfg("u3", then="c"), {"log": ["x"]}, as_node="b")
call("update as b by get_config, then c: next", lambda: graph.get_state(cfg("u3")).next)
