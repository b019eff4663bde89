"""Issue 14 item 2: metadata holds source, step, parents and the caller's config["metadata"].

A caller's metadata.run_id is never overwritten; the run that wrote a version is recorded
beside it, which neither the graph's reads nor the saver's own show.
"""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from observe import record


class State(TypedDict):
    x: int


builder = StateGraph(State)
builder.add_node("a", lambda s: {"x": s["x"] + 1})
builder.add_edge(START, "a")
graph = builder.compile(checkpointer=InMemorySaver())

config = {"configurable": {"thread_id": "meta"}, "metadata": {"user": "ann", "run_id": "mine"}}
graph.invoke({"x": 1}, config)
record("metadata", [s.metadata for s in graph.get_state_history(config)])
graph.update_state(config, {"x": 5})
record("update metadata", graph.get_state(config).metadata)
saver = graph.checkpointer
record("saver metadata", [t.metadata for t in saver.list({"configurable": {"thread_id": "meta"}})])
record("saver tuple metadata", saver.get_tuple(config).metadata)
