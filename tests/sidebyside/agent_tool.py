"""LangChain 1.x's create_agent with a tool on a fake chat model: a tool turn, the history, streams, a second turn, async."""

import asyncio

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from observe import history, record


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Fake(GenericFakeChatModel):
    """Replies in order; records what it was asked and which tools it was given."""

    seen: list = []
    tools: list = []

    def bind_tools(self, tools, **kwargs):
        self.tools.append(sorted(t.name for t in tools))
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append([(type(m).__name__, m.content) for m in messages])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def replies():
    return [
        AIMessage("", id="ai-1", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}, {"name": "add", "args": {"a": 3, "b": 4}, "id": "c2"}]),
        AIMessage("3 and 7", id="ai-2"),
        AIMessage("bye", id="ai-3"),
    ]


m = Fake(messages=iter(replies()), seen=[], tools=[])
agent = create_agent(m, [add], system_prompt="be brief", checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "1"}}
record("graph", sorted((e.source, e.target, e.conditional) for e in agent.get_graph().edges))
record("nodes", sorted(agent.get_graph().nodes))
out = agent.invoke({"messages": [{"role": "user", "content": "add", "id": "h-1"}]}, config)
record("first turn", out)
record("model saw", m.seen)
record("bound", m.tools)
record("second turn", agent.invoke({"messages": [{"role": "user", "content": "thanks", "id": "h-2"}]}, config))
record("state", agent.get_state(config))
history(agent, config)

m2 = Fake(messages=iter(replies()), seen=[], tools=[])
agent2 = create_agent(m2, [add], checkpointer=InMemorySaver())
updates = list(agent2.stream({"messages": [("user", "add")]}, {"configurable": {"thread_id": "s"}}, stream_mode="updates"))
record("updates", [updates[0], sorted(updates[1:3], key=repr), *updates[3:]])

m3 = Fake(messages=iter(replies()), seen=[], tools=[])
agent3 = create_agent(m3, [add])
record("async", asyncio.run(agent3.ainvoke({"messages": [("user", "add")]})))
record("no tools", create_agent(Fake(messages=iter([AIMessage("hi", id="x")])), []).invoke({"messages": [("user", "hello")]}))

# tokens in "messages" mode (the fake streams a text reply word by word; a tool call it cannot stream)
m4 = Fake(messages=iter([AIMessage("the sum is three", id="t1")]), seen=[], tools=[])
agent4 = create_agent(m4, [add], name="adder")
chunks = list(agent4.stream({"messages": [("user", "add")]}, stream_mode="messages"))
record("messages mode", [(type(c).__name__, c.content, meta["langgraph_node"], meta.get("lc_agent_name")) for c, meta in chunks])
record("messages metadata keys", sorted({k for _, meta in chunks for k in meta}))
