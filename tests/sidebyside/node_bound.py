"""A compiled graph's nodes as LangGraph's PregelNodes: ``.bound`` (a function as a RunnableCallable with its
``func`` or ``afunc``, a Runnable or a subgraph as it is, START's the identity) and ``.invoke`` / ``.ainvoke`` /
``.stream`` running the node alone, with its metadata in the config; ``.subgraphs``; create_react_agent's tools node and an
entrypoint's node invoked directly."""

import asyncio
from typing import TypedDict

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.prebuilt import create_react_agent
from langgraph.runtime import Runtime

from observe import call, record


class S(TypedDict):
    x: int


def double(state, config):
    return {"x": state["x"] * 2, "owner": config["metadata"].get("owner")}


async def triple(state):
    return {"x": state["x"] * 3}


inc = RunnableLambda(lambda s: {"x": s["x"] + 1})
sub = StateGraph(S).add_node("inner", triple).add_edge(START, "inner").compile()
g = (
    StateGraph(S)
    .add_node("double", double, metadata={"owner": "me"})
    .add_node("triple", triple)
    .add_node("inc", inc)
    .add_node("sub", sub)
    .add_edge(START, "double")
    .add_edge("double", "triple")
    .add_edge("triple", "inc")
    .add_edge("inc", "sub")
    .compile()
)
nodes = g.nodes
record("names", list(nodes))
record("bound types", {k: type(n.bound).__name__ for k, n in nodes.items() if k != "sub"})
record("double's func", nodes["double"].bound.func is double)
record("triple's funcs", [nodes["triple"].bound.func is None, nodes["triple"].bound.afunc is triple])
record("inc as given", nodes["inc"].bound is inc)
record("sub as given", nodes["sub"].bound is sub)
record("double alone", nodes["double"].invoke({"x": 3}))
record("double alone, config metadata kept", nodes["double"].invoke({"x": 3}, {"metadata": {"other": 1}}))
record("triple alone", asyncio.run(nodes["triple"].ainvoke({"x": 3})))
record("inc alone", nodes["inc"].invoke({"x": 1}))
record("inc streamed", list(nodes["inc"].stream({"x": 1})))
record("start alone", nodes["__start__"].invoke({"x": 5}))
call("sync call of an async node", nodes["triple"].invoke, {"x": 1})
record("the graph still runs", asyncio.run(g.ainvoke({"x": 1})))


def calls_sub(state):
    return sub.invoke(state)


stateless = StateGraph(S).add_node("inner", triple).add_edge(START, "inner").compile(checkpointer=False)
caller = StateGraph(S).add_node("calls", calls_sub).add_node("is", sub).add_node("plain", double)
caller = caller.add_node("stateless", stateless).add_edge(START, "calls").add_edge("calls", "is").add_edge("is", "plain")
caller = caller.add_edge("plain", "stateless").compile()
record("subgraphs", {k: [s is sub for s in n.subgraphs] for k, n in caller.nodes.items()})


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Model(FakeMessagesListChatModel):
    def bind_tools(self, tools, **kw):
        return self


agent = create_react_agent(Model(responses=[AIMessage("done")]), [add])
calls = [{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}, {"name": "add", "args": {"a": 3, "b": 4}, "id": "c2"}]
out = agent.nodes["tools"].invoke({"messages": [AIMessage("", tool_calls=calls)]}, {"configurable": {"__pregel_runtime": Runtime()}})
record("react tools node alone", out)
record("react tools node is the ToolNode", type(agent.nodes["tools"].bound).__name__)


@entrypoint()
def plus_one(x: int) -> int:
    return x + 1


record("entrypoint node alone", plus_one.nodes["plus_one"].invoke(1))
