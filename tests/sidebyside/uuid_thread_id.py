"""Issue 29: a thread id given as a UUID (not a string).

The checkpoints and debug streams' configs name the thread by its string,
as LangGraph's checkpoint configs do; a node's config keeps what the caller
gave; the version's metadata takes no UUID from the call's metadata or
configurable (only strings, numbers and bools).
"""

import uuid
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.graph import START, StateGraph

from observe import record


class S(TypedDict):
    n: int


def node(state: S) -> dict:
    seen.append(type(get_config()["configurable"]["thread_id"]).__name__)
    return {"n": state["n"] + 1}


seen = []
builder = StateGraph(S)
builder.add_node("node", node)
builder.add_edge(START, "node")
graph = builder.compile(checkpointer=InMemorySaver())
thread = uuid.UUID("12345678-1234-5678-1234-567812345678")
config = {"configurable": {"thread_id": thread, "other": uuid.uuid4()}, "metadata": {"run": uuid.uuid4(), "tag": "t"}}
chunks = list(graph.stream({"n": 1}, config, stream_mode=["checkpoints", "debug"]))
types = []
for mode, chunk in chunks:
    payload = chunk["payload"] if mode == "debug" else chunk
    if "config" in payload:
        types.append([mode, type(payload["config"]["configurable"]["thread_id"]).__name__, payload["config"]["configurable"]["thread_id"]])
record("stream configs", types)
record("node config", seen)
state = graph.get_state(config)
record("state config thread", [type(state.config["configurable"]["thread_id"]).__name__, state.config["configurable"]["thread_id"]])
record("metadata", state.metadata)
