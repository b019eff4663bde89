"""A subgraph's started tasks show its own run's metadata in the tasks and debug streams: the graph's
with_config metadata (LangChain's agents put their name there: lc_agent_name, read by the v3 stream's
subagent transformer) and its node's; a subgraph added as a node has its caller's metadata on top of its own."""
from typing import TypedDict
from langgraph.graph import StateGraph, START
from observe import record as observe

class S(TypedDict):
    x: int

def leaf(s):
    return {"x": s["x"] + 1}

inner_b = StateGraph(S); inner_b.add_node("leaf", leaf); inner_b.add_edge(START, "leaf")
inner = inner_b.compile(name="inner").with_config({"metadata": {"lc_agent_name": "inner"}})

def call(s):
    return {"x": inner.invoke({"x": s["x"]})["x"]}

outer_b = StateGraph(S); outer_b.add_node("call", call); outer_b.add_edge(START, "call")
outer = outer_b.compile(name="outer").with_config({"metadata": {"lc_agent_name": "outer"}})

for ns, mode, chunk in outer.stream({"x": 1}, stream_mode=["tasks"], subgraphs=True):
    if "input" in chunk:
        observe("task start", [len(ns), chunk["name"], chunk.get("metadata", {}).get("lc_agent_name") if isinstance(chunk.get("metadata"), dict) else None, sorted(k for k in chunk)])

# a subgraph added as a node, with node metadata inside it, and tags; tasks and debug modes
inner2_b = StateGraph(S); inner2_b.add_node("leaf", leaf, metadata={"role": "leafy"}); inner2_b.add_edge(START, "leaf")
inner2 = inner2_b.compile(name="inner2").with_config({"metadata": {"lc_agent_name": "inner2", "k": 1}})
outer2_b = StateGraph(S); outer2_b.add_node("sub", inner2); outer2_b.add_node("call", call); outer2_b.add_edge(START, "sub"); outer2_b.add_edge("sub", "call")
outer2 = outer2_b.compile(name="outer2").with_config({"metadata": {"lc_agent_name": "outer2"}})
for ns, mode, chunk in outer2.stream({"x": 1}, {"metadata": {"caller": "me"}}, stream_mode=["tasks", "debug"], subgraphs=True):
    payload = chunk["payload"] if mode == "debug" else chunk
    if mode == "debug" and chunk["type"] != "task":
        continue
    if "input" in payload:
        observe(f"{mode} start", [len(ns), payload["name"], payload.get("metadata")])
