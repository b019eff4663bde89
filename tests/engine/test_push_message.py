"""push_message (langgraph.graph.message): a whole message streamed before the node returns and
written to its state key (tests/sidebyside/push_message.py compares it with LangGraph)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage  # noqa: E402

from engine.graph import START, MessagesState, StateGraph  # noqa: E402
from engine.graph.message import push_message  # noqa: E402
from engine.types import RetryPolicy  # noqa: E402


def test_a_pushed_message_streams_once_and_is_written_before_the_return(checkpointer: Any) -> None:
    tries = []

    def talk(state: MessagesState) -> dict[str, Any]:
        push_message(AIMessage("thinking", id="p1"))
        push_message(AIMessage("aside", id="p2"), state_key=None)
        tries.append(1)
        if len(tries) == 1:
            raise ConnectionError("retried: its pushes are made again, from nothing")
        return {"messages": [AIMessage("done", id="p3"), AIMessage("thinking", id="p1")]}

    g = StateGraph(MessagesState)
    g.add_node("talk", talk, retry_policy=RetryPolicy(initial_interval=0, jitter=False))
    g.add_edge(START, "talk")
    app = g.compile(checkpointer=checkpointer)
    config = {"configurable": {"thread_id": "t"}}
    sent = [(m.id, meta["langgraph_node"]) for m, meta in app.stream({"messages": [("user", "hi")]}, config, stream_mode="messages")]
    # Each attempt pushes (the stream shows what was sent); p1 is not sent again when returned.
    assert sent == [("p1", "talk"), ("p2", "talk"), ("p1", "talk"), ("p2", "talk"), ("p3", "talk")]
    assert [m.id for m in app.get_state(config).values["messages"][1:]] == ["p1", "p3"]  # p2 kept out of the state


def test_a_message_without_an_id_and_a_call_outside_a_node_are_refused() -> None:
    def no_id(state: MessagesState) -> dict[str, Any]:
        push_message({"role": "ai", "content": "no id"})
        return {}

    g = StateGraph(MessagesState)
    g.add_node("no_id", no_id)
    g.add_edge(START, "no_id")
    with pytest.raises(ValueError, match="Message ID is required"):
        g.compile().invoke({"messages": [("user", "hi")]})
    with pytest.raises(RuntimeError):
        push_message(AIMessage("x", id="z"))
