"""stream_mode="messages" as chat UIs read it: token chunks with their metadata (node, step,
tags, ls_* keys), a model tagged nostream, two models in one node, async streaming."""

import asyncio

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

from observe import record

KEYS = ("langgraph_node", "langgraph_step", "langgraph_triggers", "tags", "ls_provider", "ls_model_type", "thread_id", "checkpoint_ns")


def meta(m):
    return {k: (v.split(":")[0] if k == "checkpoint_ns" else v) for k, v in m.items() if k in KEYS}


writer = GenericFakeChatModel(messages=iter([AIMessage("draft one"), AIMessage("draft two")])).with_config(tags=["writer"])
hidden = GenericFakeChatModel(messages=iter([AIMessage("secret"), AIMessage("secret2")])).with_config(tags=["nostream"])


def write(state: MessagesState):
    a = writer.invoke(state["messages"])
    b = hidden.invoke(state["messages"])
    return {"messages": [a, b]}


async def awrite(state: MessagesState):
    chunks = [c async for c in writer.astream(state["messages"])]
    return {"messages": [AIMessage("".join(c.content for c in chunks))]}


g = StateGraph(MessagesState)
g.add_node("write", write)
g.add_edge(START, "write")
app = g.compile()
out = [(type(m).__name__, m.content, meta(md)) for m, md in app.stream({"messages": [("user", "hi")]}, {"configurable": {"thread_id": "t"}}, stream_mode="messages")]
record("sync tokens", out)

g2 = StateGraph(MessagesState)
g2.add_node("awrite", awrite)
g2.add_edge(START, "awrite")
app2 = g2.compile()


async def main():
    return [(type(m).__name__, m.content, meta(md)) async for m, md in app2.astream({"messages": [("user", "hi")]}, stream_mode="messages")]


record("async tokens", asyncio.run(main()))
