"""push_message: a node sends a whole message to the "messages" stream before it returns, and
writes it to its state key (or not, with state_key=None); sent once even when also returned;
a retried attempt pushes again; an id is required; outside a node it raises."""

import asyncio

from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.message import push_message
from langgraph.types import RetryPolicy

from observe import call, history, record

KEYS = ("langgraph_node", "langgraph_step", "langgraph_triggers")
attempts = {"n": 0}


def meta(m):
    return {k: v for k, v in m.items() if k in KEYS}


def talk(state: MessagesState):
    push_message(AIMessage("thinking...", id="p1"))
    push_message(AIMessage("aside", id="p2"), state_key=None)
    return {"messages": [AIMessage("done", id="p3")]}


def again(state: MessagesState):
    push_message(AIMessage("pushed and returned", id="p4"))
    return {"messages": [AIMessage("pushed and returned", id="p4")]}


def flaky(state: MessagesState):
    attempts["n"] += 1
    push_message(AIMessage(f"attempt {attempts['n']}", id=f"try{attempts['n']}"))
    if attempts["n"] < 2:
        raise ConnectionError("once more")
    return {}


def no_id(state: MessagesState):
    push_message({"role": "ai", "content": "no id"})
    return {}


g = StateGraph(MessagesState)
g.add_node("talk", talk)
g.add_node("again", again)
g.add_node("flaky", flaky, retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.01, jitter=False))
g.add_edge(START, "talk")
g.add_edge("talk", "again")
g.add_edge("again", "flaky")
app = g.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "t"}}
out = [(type(m).__name__, m.content, m.id, meta(md)) for m, md in app.stream({"messages": [("user", "hi")]}, config, stream_mode="messages")]
record("messages stream", out)
record("values", [(m.type, m.content, m.id) for m in app.get_state(config).values["messages"][1:]])
history(app, config)

attempts["n"] = 0
both = [(mode, (type(c[0]).__name__, c[0].content) if mode == "messages" else sorted(c)) for mode, c in
        app.stream({"messages": [("user", "again")]}, {"configurable": {"thread_id": "t2"}}, stream_mode=["messages", "updates"])]
record("messages and updates", both)


async def main():
    attempts["n"] = 0
    return [(m.content, md["langgraph_node"]) async for m, md in app.astream({"messages": [("user", "x")]}, {"configurable": {"thread_id": "t3"}}, stream_mode="messages")]


record("async", asyncio.run(main()))

bad = StateGraph(MessagesState)
bad.add_node("no_id", no_id)
bad.add_edge(START, "no_id")
call("no id", bad.compile().invoke, {"messages": [("user", "hi")]})
call("outside a node", push_message, AIMessage("x", id="z"))
