"""A graph compiled with ``store=``: nodes read and write it across threads, on every store kind.

LangGraph's injection (observed on 1.2.22, ``tests/sidebyside/store_in_nodes.py``):
a node parameter named ``store``, untyped or typed ``BaseStore`` (or
``Optional``), gets the graph's store, None without one; ``get_store()``
returns it anywhere in the node's call stack.
"""

from __future__ import annotations

import asyncio
from typing import Any, Optional, TypedDict

import pytest

from engine import END, START, StateGraph
from engine.checkpoint import InMemorySaver
from engine.config import get_store
from engine.store.base import BaseStore
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from typing_extensions import Annotated

from engine.graph import MessagesState
from engine.prebuilt import InjectedStore, ToolNode


class State(TypedDict):
    user: str
    said: str
    known: list[str]


def remember(state: State, store: BaseStore) -> dict[str, Any]:
    ns = ("memories", state["user"])
    store.put(ns, f"m{len(store.search(ns, limit=100))}", {"text": state["said"]})
    return {"known": [i.value["text"] for i in store.search(ns, limit=100)]}


def build(store: BaseStore | None) -> Any:
    return StateGraph(State).add_node(remember).add_edge(START, "remember").add_edge("remember", END).compile(
        checkpointer=InMemorySaver(), store=store
    )


def test_memories_cross_threads(store: BaseStore) -> None:
    graph = build(store)
    out1 = graph.invoke({"user": "u1", "said": "likes tea", "known": []}, {"configurable": {"thread_id": "a"}})
    out2 = graph.invoke({"user": "u1", "said": "lives in Oslo", "known": []}, {"configurable": {"thread_id": "b"}})
    other = graph.invoke({"user": "u2", "said": "hi", "known": []}, {"configurable": {"thread_id": "c"}})
    assert out1["known"] == ["likes tea"]
    assert out2["known"] == ["likes tea", "lives in Oslo"]
    assert other["known"] == ["hi"]
    assert store.list_namespaces() == [("memories", "u1"), ("memories", "u2")]


def test_async_nodes_and_get_store(store: BaseStore) -> None:
    async def aremember(state: State, *, store: Optional[BaseStore]) -> dict[str, Any]:
        assert store is not None and get_store() is store
        await store.aput(("m", state["user"]), "k", {"text": state["said"]})
        return {"known": [helper()]}

    def helper() -> str:
        item = get_store().get(("m", "u1"), "k")  # deep in the call stack, from a sync helper
        return item.value["text"] if item else "?"

    graph = StateGraph(State).add_node("n", aremember).add_edge(START, "n").compile(store=store)
    assert asyncio.run(graph.ainvoke({"user": "u1", "said": "yo", "known": []}))["known"] == ["yo"]


def test_without_a_store_the_parameter_is_none() -> None:
    seen: list[Any] = []

    def node(state: State, store: BaseStore) -> dict[str, Any]:
        seen.append((store, get_store()))
        return {}

    StateGraph(State).add_node(node).add_edge(START, "node").compile().invoke({"user": "u", "said": "", "known": []})
    assert seen == [(None, None)]


def test_a_store_parameter_of_another_type_is_left_alone(store: BaseStore) -> None:
    def node(state: State, store: int = 7) -> dict[str, Any]:
        return {"known": [str(store)]}

    graph = StateGraph(State).add_node(node).add_edge(START, "node").compile(store=store)
    assert graph.invoke({"user": "u", "said": "", "known": []})["known"] == ["7"]


def test_get_store_outside_a_node_raises() -> None:
    with pytest.raises(RuntimeError, match="inside a running node"):
        get_store()



@tool
def note(fact: str, config: RunnableConfig, store: Annotated[BaseStore, InjectedStore()]) -> str:
    """Note a fact."""
    store.put(("facts", config["configurable"]["user_id"]), fact, {"fact": fact})
    return "noted"


@tool
def facts(config: RunnableConfig) -> str:
    """List the facts."""
    return ",".join(sorted(i.key for i in get_store().search(("facts", config["configurable"]["user_id"]))))


def _tool_agent(state: MessagesState) -> dict[str, Any]:
    text = state["messages"][-1].content
    name, args = ("note", {"fact": text[5:]}) if text.startswith("note ") else ("facts", {})
    return {"messages": [AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"c{len(state['messages'])}"}])]}


def test_tools_get_the_store_by_injection_and_by_get_store(store: BaseStore) -> None:
    """As LangGraph (tests/sidebyside/store_tools.py): a ToolNode tool's ``InjectedStore``
    parameter and ``get_store()`` inside a tool are the graph's store, hidden from the model."""
    assert set(note.tool_call_schema.model_json_schema()["properties"]) == {"fact"}
    app = (
        StateGraph(MessagesState).add_node("agent", _tool_agent).add_node("tools", ToolNode([note, facts]))
        .add_edge(START, "agent").add_edge("agent", "tools").compile(checkpointer=InMemorySaver(), store=store)
    )  # fmt: skip

    def say(text: str, thread: str, user: str) -> str:
        cfg = {"configurable": {"thread_id": thread, "user_id": user}}
        return app.invoke({"messages": [HumanMessage(text)]}, cfg)["messages"][-1].content

    assert say("note tea", "t1", "ada") == "noted" and say("note rain", "t1", "ada") == "noted"
    assert say("what?", "t2", "ada") == "rain,tea"
    assert say("what?", "t3", "bob") == ""
