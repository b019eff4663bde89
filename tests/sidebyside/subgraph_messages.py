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
# a graph invoked inside a node function: what it sent, the node does not send again when it returns it
def call_inner(state):
    return inner.invoke(state)
outer2 = StateGraph(MessagesState).add_node("agent", call_inner).add_edge(START, "agent").compile(checkpointer=InMemorySaver())
record("in a function, subgraphs", [(len(ns), c.content, m["langgraph_node"]) for ns, (c, m) in outer2.stream({"messages": [("user", "q")]}, {"configurable": {"thread_id": "3"}}, stream_mode="messages", subgraphs=True)])
model = mk()
record("in a function, no subgraphs", [(c.content, m["langgraph_node"]) for c, m in outer2.stream({"messages": [("user", "q")]}, {"configurable": {"thread_id": "5"}}, stream_mode="messages")])
# two levels: a function calling a graph whose node is a function calling the inner graph
middle = StateGraph(MessagesState).add_node("middle", call_inner).add_edge(START, "middle").compile()
outer3 = StateGraph(MessagesState).add_node("top", lambda s: middle.invoke(s)).add_edge(START, "top").compile(checkpointer=InMemorySaver())
model = mk()
record("two levels, subgraphs", [(len(ns), c.content, m["langgraph_node"]) for ns, (c, m) in outer3.stream({"messages": [("user", "q")]}, {"configurable": {"thread_id": "6"}}, stream_mode="messages", subgraphs=True)])
async def acall_inner(state):
    return await inner.ainvoke(state)
outer4 = StateGraph(MessagesState).add_node("agent", acall_inner).add_edge(START, "agent").compile(checkpointer=InMemorySaver())
async def in_async_function():
    return [(len(ns), c.content, m["langgraph_node"]) async for ns, (c, m) in outer4.astream({"messages": [("user", "q")]}, {"configurable": {"thread_id": "7"}}, stream_mode="messages", subgraphs=True)]
model = mk()
record("in an async function, subgraphs", asyncio.run(in_async_function()))
model = mk()
async def main():
    return [(len(ns), c.content, m["langgraph_node"]) async for ns, (c, m) in outer.astream({"messages": [("user", "q")]}, {"configurable": {"thread_id": "4"}}, stream_mode="messages", subgraphs=True)]
record("async subgraphs", asyncio.run(main()))
