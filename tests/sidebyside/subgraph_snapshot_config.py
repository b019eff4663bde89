"""Issue 29: a subgraph's snapshot in get_state(subgraphs=True): its config and metadata.

Its config names the subgraph's version with the ``checkpoint_map`` of the
namespaces above it (the parent's version and its own); its metadata is the
subgraph's version's (no ``thread_id``), with ``parents`` naming the parent's
version. Recorded two deep, with durability "exit" and "async". A version's
metadata keeps the call's plain metadata keys (strings, numbers, bools; not
those starting with ``__``) and configurable keys, nothing else.
"""

import re
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import StateGraph

from observe import record, token

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def ids(value):
    """Ids as tokens, keys and values alike (a checkpoint_map's keys are namespaces)."""
    if isinstance(value, dict):
        return {ids(k): ids(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [ids(v) for v in value]
    if isinstance(value, str):
        return _UUID.sub(lambda m: token("id", m.group(0)), value)
    return value


def shape(snapshot):
    out = []
    for t in snapshot.tasks:
        s = t.state
        if s is None or isinstance(s, dict):
            out.append(ids(s))
        else:
            out.append({"config": ids(s.config), "metadata": ids(s.metadata), "parent": ids(s.parent_config), "tasks": shape(s)})
    return out


class S(TypedDict):
    k: str


inner = StateGraph(S)
inner.add_node("i1", lambda s: {"k": s["k"] + "-i1"})
inner.add_node("i2", lambda s: {"k": s["k"] + "-i2"})
inner.add_edge("__start__", "i1")
inner.add_edge("i1", "i2")
mid = StateGraph(S)
mid.add_node("m1", lambda s: {"k": s["k"] + "-m1"})
mid.add_node("inner", inner.compile(interrupt_before=["i2"]))
mid.add_edge("__start__", "m1")
mid.add_edge("m1", "inner")
top = StateGraph(S)
top.add_node("t1", lambda s: {"k": s["k"] + "-t1"})
top.add_node("mid", mid.compile())
top.add_edge("__start__", "t1")
top.add_edge("t1", "mid")

for durability in ("exit", "async"):
    graph = top.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    graph.invoke({"k": "x"}, config, durability=durability)
    state = graph.get_state(config, subgraphs=True)
    record(f"{durability}: top", {"config": ids(state.config), "metadata": ids(state.metadata)})
    record(f"{durability}: subgraphs", shape(state))
    record(f"{durability}: without subgraphs", shape(graph.get_state(config)))

# a version's metadata keeps the call's plain metadata and configurable keys only
graph = top.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "1", "user": "u"}}
graph.invoke({"k": "x"}, {**config, "metadata": {"tag": "t", "n": 2, "obj": {"a": 1}, "__hidden": "h"}})
record("metadata", ids(graph.get_state(config).metadata))
record("subgraph metadata", shape(graph.get_state(config, subgraphs=True)))


def chunk_configs(chunks):
    out = []
    for ns, mode, chunk in chunks:
        payload = chunk["payload"] if mode == "debug" else chunk
        if mode == "debug" and chunk["type"] != "checkpoint":
            continue
        out.append([mode, ids(list(ns)), ids(payload["config"]), ids(payload["parent_config"])])
    return out


# the checkpoints and debug streams show a subgraph's versions' configs as its snapshots do
graph = top.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "s"}}
record("chunks", chunk_configs(graph.stream({"k": "x"}, config, stream_mode=["checkpoints", "debug"], subgraphs=True)))
