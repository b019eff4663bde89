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
