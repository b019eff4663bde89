"""Generative UI (langgraph.graph.ui): a node pushes UI messages (one replaced, one merged by id,
one tied to a chat message) and removes one; the "custom" stream carries each as it is sent and the
``ui`` state key keeps them through ui_message_reducer; a second turn; the reducer's own cases."""

import asyncio
from typing import Annotated, Sequence, TypedDict

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.ui import AnyUIMessage, delete_ui_message, push_ui_message, ui_message_reducer

from observe import call, history, record


class S(TypedDict):
    messages: Annotated[Sequence[AnyMessage], add_messages]
    ui: Annotated[Sequence[AnyUIMessage], ui_message_reducer]


def chat(state: S) -> dict:
    n = len(state["messages"])
    reply = AIMessage(f"weather {n}", id=f"ai-{n}")
    push_ui_message("weather", {"city": "Paris", "n": n}, id=f"w-{n}", message=reply)
    push_ui_message("weather", {"temp": 21}, id=f"w-{n}", merge=True)
    push_ui_message("spinner", {"on": True}, id=f"s-{n}", metadata={"extra": 1})
    delete_ui_message(f"s-{n}")
    push_ui_message("note", {"text": "no state"}, id=f"n-{n}", state_key=None)
    return {"messages": [reply]}


def later(state: S) -> dict:
    if len(state["messages"]) > 2:
        delete_ui_message("w-1")
    push_ui_message("chart", {"points": [1, 2]}, id=f"c-{len(state['messages'])}")
    return {}


g = StateGraph(S)
g.add_node("chat", chat)
g.add_node("later", later)
g.add_edge(START, "chat")
g.add_edge("chat", "later")
graph = g.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "t"}}

record("turn 1 custom+updates", list(graph.stream({"messages": [("user", "hi")]}, config, stream_mode=["custom", "updates"])))
record("turn 1 state ui", graph.get_state(config).values["ui"])
record("turn 2 values", asyncio.run(graph.ainvoke({"messages": [("user", "again")]}, config))["ui"])
record("history", history(graph, config))

call("reducer: one dict each side", ui_message_reducer, {"type": "ui", "id": "a", "name": "x", "props": {"p": 1}, "metadata": {}},
     {"type": "ui", "id": "b", "name": "y", "props": {}, "metadata": {}})
call("reducer: remove then bring back", ui_message_reducer, [{"type": "ui", "id": "a", "name": "x", "props": {}, "metadata": {}}],
     [{"type": "remove-ui", "id": "a"}, {"type": "ui", "id": "a", "name": "z", "props": {}, "metadata": {}}])
call("reducer: remove unknown", ui_message_reducer, [], [{"type": "remove-ui", "id": "nope"}])
