"""A thread id given as a UUID (issue 29). Twin of tests/sidebyside/uuid_thread_id.py."""

from __future__ import annotations

import uuid
from typing import TypedDict

from engine.checkpoint import InMemorySaver
from engine.config import get_config
from engine.graph import START, StateGraph


class S(TypedDict):
    n: int


def test_stream_configs_name_the_thread_by_its_string_nodes_see_what_was_given() -> None:
    seen: list[object] = []

    def node(state: S) -> dict:
        seen.append(get_config()["configurable"]["thread_id"])
        return {"n": state["n"] + 1}

    builder = StateGraph(S)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    graph = builder.compile(checkpointer=InMemorySaver())
    thread = uuid.uuid4()
    config = {"configurable": {"thread_id": thread, "other": uuid.uuid4()}, "metadata": {"run": uuid.uuid4(), "tag": "t"}}
    chunks = list(graph.stream({"n": 1}, config, stream_mode=["checkpoints", "debug"]))
    named = [(c["payload"] if m == "debug" else c).get("config") for m, c in chunks]
    named = [c["configurable"]["thread_id"] for c in named if c]
    assert len(named) == 6 and set(named) == {str(thread)}
    assert seen == [thread]
    state = graph.get_state(config)
    assert state.config["configurable"]["thread_id"] == str(thread)
    assert state.metadata == {"tag": "t", "source": "loop", "step": 1, "parents": {}}
