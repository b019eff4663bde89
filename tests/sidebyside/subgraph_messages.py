"""Stream mode "messages" through subgraphs: a subgraph node's model tokens are sent once (with and without subgraphs=True, async)."""

import asyncio
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from observe import record

def mk():
    return GenericFakeChatModel(messages=iter([AIMessage("a b", id="m1"), AIMessage("c d", id="m2"), AIMessage("e", id="m3"), AIMessage("f", id="m4")]))
model = mk()
def chat(state):
    return {"messages": [model.invoke(state["messages"])]}
def handmade(state):
    return {"messages": [AIMessage("hand", id="hm")]}
inner = StateGraph(MessagesState).add_node("inner_chat", chat).add_node("hand", handmade).add_edge(START, "inner_chat").add_edge("inner_chat", "hand").compile()
outer = StateGraph(MessagesState).add_node("agent", inner).add_edge(START, "agent").compile(checkpointer=InMemorySaver())
record("no subgraphs", [(c.content, m["langgraph_node"]) for c, m in outer.stream({"messages": [("user", "q")]}, {"configurable": {"thread_id": "1"}}, stream_mode="messages")])
record("subgraphs", [(len(ns), c.content, m["langgraph_node"]) for ns, (c, m) in outer.stream({"messages": [("user", "q")]}, {"configurable": {"thread_id": "2"}}, stream_mode="messages", subgraphs=True)])
# a graph invoked inside a node function: kept difference (README "Where it differs"): the node's
# returned messages are sent again under the parent's namespace
def call_inner(state):
    return inner.invoke(state)
outer2 = StateGraph(MessagesState).add_node("agent", call_inner).add_edge(START, "agent").compile(checkpointer=InMemorySaver())
record("in a function, subgraphs", [(len(ns), c.content, m["langgraph_node"]) for ns, (c, m) in outer2.stream({"messages": [("user", "q")]}, {"configurable": {"thread_id": "3"}}, stream_mode="messages", subgraphs=True)])
async def main():
    return [(len(ns), c.content, m["langgraph_node"]) async for ns, (c, m) in outer.astream({"messages": [("user", "q")]}, {"configurable": {"thread_id": "4"}}, stream_mode="messages", subgraphs=True)]
record("async subgraphs", asyncio.run(main()))
