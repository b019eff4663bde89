"""The tasks and debug modes' task payloads carry the caller's metadata and tags (and a node's own metadata)."""
from typing import TypedDict

from langgraph.graph import START, StateGraph

from observe import record


class S(TypedDict):
    x: int


inner = StateGraph(S)
inner.add_node("deep", lambda s: {"x": s["x"] + 10}, metadata={"kind": "inner"})
inner.add_edge(START, "deep")

b = StateGraph(S)
b.add_node("a", lambda s: {"x": 1}, metadata={"owner": "team-a", "langgraph_node": "ignored"})
b.add_node("b", lambda s: {"x": s["x"] + 1})
b.add_node("sub", inner.compile())
b.add_edge(START, "a")
b.add_edge("a", "b")
b.add_edge("b", "sub")
g = b.compile()


def strip(chunk):
    return {k: v for k, v in chunk.items() if k not in ("id", "timestamp")}


record("plain", [strip(c) for c in g.stream({"x": 0}, stream_mode="tasks")])
config = {"metadata": {"user": "ann", "thread_id": "hidden"}, "tags": ["t1", "seq:step:9"]}
record("with metadata", [strip(c) for c in g.stream({"x": 0}, config, stream_mode="tasks")])
record("subgraphs", [(ns and ns[0].split(":")[0], strip(c)) for ns, c in g.stream({"x": 0}, config, stream_mode="tasks", subgraphs=True)])
record("debug", [(c["type"], strip(c["payload"])) for c in g.stream({"x": 0}, config, stream_mode="debug") if c["type"] == "task"])
record("only tags", [strip(c) for c in g.stream({"x": 0}, {"tags": ["seq:step:1"]}, stream_mode="tasks")])
