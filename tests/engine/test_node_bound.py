"""A compiled graph's nodes as LangGraph's PregelNodes (issue 29, prebuilt's ``agent.nodes["tools"].invoke``):
``.bound`` is the node as a Runnable and ``.invoke`` / ``.ainvoke`` / ``.stream`` run it alone, with the node's
metadata in the config; ``.subgraphs`` the graphs it runs. Observed on LangGraph 1.2.22 by tests/sidebyside/node_bound.py."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tools import tool

from engine._internal._runnable import RunnableCallable
from engine.func import entrypoint
from engine.graph import START, StateGraph
from engine.prebuilt import ToolNode, create_react_agent
from engine.runtime import Runtime


class S(TypedDict):
    x: int


def double(state: S, config: RunnableConfig) -> dict[str, Any]:
    return {"x": state["x"] * 2, "owner": config["metadata"].get("owner")}


async def triple(state: S) -> dict[str, Any]:
    return {"x": state["x"] * 3}


inc = RunnableLambda(lambda s: {"x": s["x"] + 1})


def _graph() -> Any:
    sub = StateGraph(S).add_node("inner", triple).add_edge(START, "inner").compile()
    graph = (
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
    return graph, sub


def test_bound_is_the_node_as_a_runnable() -> None:
    graph, sub = _graph()
    nodes = graph.nodes
    assert isinstance(nodes["double"].bound, RunnableCallable) and nodes["double"].bound.func is double
    assert nodes["triple"].bound.func is None and nodes["triple"].bound.afunc is triple
    assert nodes["inc"].bound is inc and nodes["sub"].bound is sub
    assert isinstance(nodes[START].bound, RunnableCallable)
    assert nodes["double"].bound is nodes["double"].bound  # made once


def test_a_node_runs_alone_with_its_metadata() -> None:
    graph, _ = _graph()
    nodes = graph.nodes
    assert nodes["double"].invoke({"x": 3}) == {"x": 6, "owner": "me"}
    assert nodes["double"].invoke({"x": 3}, {"metadata": {"other": 1}}) == {"x": 6, "owner": "me"}
    assert asyncio.run(nodes["triple"].ainvoke({"x": 3})) == {"x": 9}
    assert nodes["inc"].invoke({"x": 1}) == {"x": 2}
    assert list(nodes["inc"].stream({"x": 1})) == [{"x": 2}]
    assert nodes[START].invoke({"x": 5}) == {"x": 5}
    with pytest.raises(TypeError):  # an async function has no sync twin, as LangGraph's
        nodes["triple"].invoke({"x": 1})
    assert asyncio.run(graph.ainvoke({"x": 1})) == {"x": 21}


def test_an_agents_tools_node_alone() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    class Model(FakeMessagesListChatModel):
        def bind_tools(self, tools: Any, **kw: Any) -> Any:
            return self

    agent = create_react_agent(Model(responses=[AIMessage("done")]), [add])
    calls = [{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}, {"name": "add", "args": {"a": 3, "b": 4}, "id": "c2"}]
    out = agent.nodes["tools"].invoke({"messages": [AIMessage("", tool_calls=calls)]}, {"configurable": {"__pregel_runtime": Runtime()}})
    assert isinstance(agent.nodes["tools"].bound, ToolNode)
    assert [(m.content, m.tool_call_id) for m in out["messages"] if isinstance(m, ToolMessage)] == [("3", "c1"), ("7", "c2")]


def test_an_entrypoints_node_alone() -> None:
    @entrypoint()
    def plus_one(x: int) -> int:
        return x + 1

    assert plus_one.nodes["plus_one"].invoke(1) == 2


def test_subgraphs_a_node_runs() -> None:
    _, sub = _graph()

    def calls_sub(state: S) -> Any:
        return sub.invoke(state)

    stateless = StateGraph(S).add_node("inner", triple).add_edge(START, "inner").compile(checkpointer=False)
    caller = (
        StateGraph(S).add_node("calls", calls_sub).add_node("is", sub).add_node("plain", double)
        .add_node("stateless", stateless).add_edge(START, "calls").add_edge("calls", "is").add_edge("is", "plain")
        .add_edge("plain", "stateless").compile()
    )  # fmt: skip
    assert {k: [s is sub for s in n.subgraphs] for k, n in caller.nodes.items()} == {
        START: [], "calls": [True], "is": [True], "plain": [], "stateless": [],
    }  # fmt: skip
