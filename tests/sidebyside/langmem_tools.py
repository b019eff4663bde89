"""langmem's memory tools (create_manage_memory_tool, create_search_memory_tool) in a create_react_agent
whose store indexes memories with a small deterministic embedding: a memory created, updated, searched,
deleted; the agent's messages and the store's items. Needs `pip install langmem`."""

import asyncio

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent
from langgraph.store.memory import InMemoryStore
from langmem import create_manage_memory_tool, create_search_memory_tool

from observe import record


def embed(texts):
    return [[float(t.count(c)) for c in "aeiou"] for t in texts]


class Fake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def call(mid, name, args):
    return AIMessage("", id=mid, tool_calls=[{"name": name, "args": args, "id": f"{mid}-0"}])


def run(sync):
    store = InMemoryStore(index={"dims": 5, "embed": embed})
    ns = ("memories", "{user}")
    tools = [create_manage_memory_tool(namespace=ns), create_search_memory_tool(namespace=ns)]
    replies = iter([
        call("m1", "manage_memory", {"content": "likes tea", "action": "create"}),
        AIMessage("noted", id="m2"),
        call("m3", "search_memory", {"query": "tea"}),
        AIMessage("found", id="m4"),
    ])
    agent = create_react_agent(Fake(messages=replies), tools=tools, store=store, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t", "user": "ann"}}
    for text in ("remember tea", "what do I like?"):
        inp = {"messages": [{"role": "user", "content": text}]}
        out = agent.invoke(inp, config) if sync else asyncio.run(agent.ainvoke(inp, config))
        record(f"{sync} {text}", [(type(m).__name__, str(m.content)[:80] if type(m).__name__ != "ToolMessage" else len(str(m.content))) for m in out["messages"]])
    record(f"{sync} store", sorted((i.namespace, i.value.get("content")) for i in store.search(("memories", "ann"))))


run(True)
run(False)
