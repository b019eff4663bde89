"""astream_events(version="v2"), batch and abatch on a compiled graph: what a chat server streams."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from observe import record

model = GenericFakeChatModel(messages=iter([AIMessage("hello there friend"), AIMessage("second reply")]))


def chat(state: MessagesState):
    return {"messages": [model.invoke(state["messages"])]}


def after(state: MessagesState):
    return {}


g = StateGraph(MessagesState)
g.add_node("chat", chat)
g.add_node("after", after)
g.add_edge(START, "chat")
g.add_edge("chat", "after")
g.add_edge("after", END)
app = g.compile(checkpointer=InMemorySaver())


async def main():
    config = {"configurable": {"thread_id": "1"}}
    events = []
    async for ev in app.astream_events({"messages": [("user", "hi")]}, config, version="v2"):
        data = ev["data"]
        summary = {
            "event": ev["event"],
            "name": ev["name"],
            "tags": sorted(t for t in ev.get("tags", []) if not t.startswith("graph:step")),
            "meta": {k: v for k, v in ev.get("metadata", {}).items() if k in ("langgraph_node", "langgraph_step", "langgraph_triggers", "thread_id", "langgraph_path")},
        }
        if ev["event"] == "on_chat_model_stream":
            summary["chunk"] = data["chunk"].content
        if ev["event"] == "on_chain_end" and ev["name"] == "LangGraph":
            summary["output"] = [m.content for m in data["output"]["messages"]]
        events.append(summary)
    record("events", events)
    record("kinds", sorted({(e["event"], e["name"]) for e in events}))
    # only the chain-level events, filtered as chat servers do
    tokens = []
    async for ev in app.astream_events({"messages": [("user", "again")]}, config, version="v2", include_types=["chat_model"]):
        if ev["event"] == "on_chat_model_stream":
            tokens.append(ev["data"]["chunk"].content)
    record("tokens", tokens)


asyncio.run(main())


class N(TypedDict):
    n: Annotated[int, operator.add]


g2 = StateGraph(N)
g2.add_node("inc", lambda s: {"n": 1})
g2.add_edge(START, "inc")
counter = g2.compile()
record("batch", counter.batch([{"n": 1}, {"n": 5}]))
record("abatch", asyncio.run(counter.abatch([{"n": 2}, {"n": 3}])))
