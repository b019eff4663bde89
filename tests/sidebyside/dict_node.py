"""Issue 29: a dict of Runnables (or functions) as a node: LangChain's RunnableParallel, as
LangGraph coerces it; its result (a dict of each one's result) is the node's update."""

import operator
from typing import Annotated, TypedDict

from langchain_core.runnables import RunnableLambda
from langgraph.graph import START, StateGraph

from observe import record


class S(TypedDict, total=False):
    n: int
    log: Annotated[list, operator.add]


builder = StateGraph(S)
builder.add_node("both", {"n": RunnableLambda(lambda s: s["n"] * 10), "log": lambda s: [f"saw {s['n']}"]})
builder.add_edge(START, "both")
graph = builder.compile()
record("invoke", graph.invoke({"n": 2, "log": []}))
record("updates", list(graph.stream({"n": 3, "log": []}, stream_mode="updates")))
