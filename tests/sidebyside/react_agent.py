"""create_react_agent on a fake chat model: tool turns, prompts, breakpoints, step limits, tokens."""

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, SystemMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent

from observe import call, history, record


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool(return_direct=True)
def shout(text: str) -> str:
    """Shout, and end the turn."""
    return text.upper()


class Fake(GenericFakeChatModel):
    """A fake chat model that records what it was asked and which tools it was given."""

    seen: list = []
    tools: list = []

    def bind_tools(self, tools, **kwargs):
        self.tools.extend(t.name for t in tools)
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append([(type(m).__name__, m.content) for m in messages])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

    def _stream(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append([(type(m).__name__, m.content) for m in messages])
        yield from super()._stream(messages, stop=stop, run_manager=run_manager, **kwargs)


def calls(*pairs):
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(pairs)])


def model(*replies):
    return Fake(messages=iter(replies), seen=[], tools=[])


m = model(calls(("add", {"a": 1, "b": 2}), ("add", {"a": 3, "b": 4})), AIMessage("the answer is 3 and 7"))
agent = create_react_agent(m, [add], prompt="be brief", checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "1"}}
record("graph", sorted((e.source, e.target, e.conditional) for e in agent.get_graph().edges))
updates = list(agent.stream({"messages": [("user", "hi")]}, config, stream_mode="updates"))
# the two tool tasks run at once: their updates come in the order they finish, on both
record("updates", [updates[0], sorted(updates[1:3], key=repr), updates[3]])
record("model saw", m.seen)
record("bound", m.tools)
record("state", agent.get_state(config))
history(agent, config)

m = model(calls(("add", {"a": 1, "b": 1})), AIMessage("two"))
paused = create_react_agent(m, [add], prompt=SystemMessage("sys"), checkpointer=InMemorySaver(), interrupt_before=["tools"])
call("paused", paused.invoke, {"messages": [("user", "1+1")]}, config)
record("paused next", paused.get_state(config).next)
call("continued", paused.invoke, None, config)

m = model(calls(("add", {"a": 1, "b": 1})), AIMessage("never"))
call("step limit", create_react_agent(m, [add]).invoke, {"messages": [("user", "go")]}, {"recursion_limit": 2})
m = model(calls(("add", {"a": 1, "b": 1})), AIMessage("done at three"))
call("step limit 3", create_react_agent(m, [add]).invoke, {"messages": [("user", "go")]}, {"recursion_limit": 3})

m = model(calls(("shout", {"text": "hey"})), AIMessage("not reached"))
call("return direct", create_react_agent(m, [add, shout]).invoke, {"messages": [("user", "shout")]})

m = model(calls(("add", {"a": 2, "b": 2}), ("add", {"a": 5, "b": 5})), AIMessage("v1 done"))
v1 = create_react_agent(m, [add], version="v1", checkpointer=InMemorySaver())
call("v1", v1.invoke, {"messages": [("user", "go")]}, config)
history(v1, config, "v1 history")

m = model(AIMessage("no tools needed"))
call("callable prompt", create_react_agent(m, [], prompt=lambda s: [SystemMessage("from fn"), *s["messages"]]).invoke,
     {"messages": [("user", "q")]})
record("callable prompt saw", m.seen)

# (GenericFakeChatModel cannot stream a reply without text, such as a bare tool call)
m = model(AIMessage("tokens come one by one"))
streamed = create_react_agent(m, [add])
record("messages mode", [
    (type(c).__name__, c.content, meta["langgraph_node"], meta["langgraph_step"])
    for c, meta in streamed.stream({"messages": [("user", "go")]}, stream_mode="messages")
])
