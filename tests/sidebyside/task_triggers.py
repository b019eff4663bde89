"""Issue 29: a task's triggers as the debug stream and its config show them.

A node with several trigger channels (a waiting edge's join beside its own
branch channel, defer=True or not) lists all of them, sorted, whichever
fired, as LangGraph's; a node with one lists that one.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.config import get_config
from langgraph.graph import START, StateGraph

from observe import record


class S(TypedDict):
    log: Annotated[list, operator.add]


seen = []


def c(state: S) -> dict:
    seen.append(tuple(get_config()["metadata"]["langgraph_triggers"]))
    return {"log": ["c"]}


for defer in (False, True):
    builder = StateGraph(S)
    builder.add_node("a", lambda s: {"log": ["a"]})
    builder.add_node("b", lambda s: {"log": ["b"]})
    builder.add_node("c", c, defer=defer)
    builder.add_node("d", lambda s: {"log": ["d"]})
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    builder.add_edge(["a", "b"], "c")
    builder.add_edge("a", "d")
    builder.add_edge("d", "c")
    graph = builder.compile()
    chunks = list(graph.stream({"log": []}, stream_mode="debug"))
    record(f"defer={defer}", [[ch["step"], ch["payload"]["name"], list(ch["payload"]["triggers"])] for ch in chunks if ch["type"] == "task"])
    record(f"defer={defer} config", seen)
    seen.clear()
