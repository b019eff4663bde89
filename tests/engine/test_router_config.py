"""A router reads the run's configurable as LangGraph's does (issue 32 item 3; tests/sidebyside/router_config.py):
through a ``config`` parameter (untyped or ``RunnableConfig``) or ``get_config()``, in a run and in an
``update_state`` applying an update as the router's node."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, StateGraph, get_config
from engine.checkpoint import InMemorySaver


class State(TypedDict):
    log: Annotated[list, operator.add]


def _graph() -> Any:
    def by_param(state: State, config) -> str:  # type: ignore[no-untyped-def]  # untyped: given the config
        return "b" if config["configurable"].get("go") == "b" else END

    def by_lookup(state: State) -> str:
        return "c" if get_config()["configurable"].get("then") == "c" else END

    async def by_param_async(state: State, config) -> str:  # type: ignore[no-untyped-def]
        return END

    g = StateGraph(State)
    for name in "abc":
        g.add_node(name, lambda s, name=name: {"log": [name]})
    g.add_edge(START, "a")
    g.add_conditional_edges("a", by_param, ["b", END])
    g.add_conditional_edges("b", by_lookup, ["c", END])
    g.add_conditional_edges("c", by_param_async, [END])
    return g.compile(checkpointer=InMemorySaver())


def _cfg(thread: str, **configurable: Any) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread, **configurable}}


@pytest.mark.parametrize(
    ("configurable", "log"), [({}, ["a"]), ({"go": "b"}, ["a", "b"]), ({"go": "b", "then": "c"}, ["a", "b", "c"])]
)
def test_routers_read_the_runs_configurable(configurable: dict[str, Any], log: list[str]) -> None:
    out = _graph().invoke({"log": []}, _cfg("t", **configurable))
    assert out["log"] == log


def test_update_state_runs_routers_with_the_updates_config() -> None:
    graph = _graph()
    graph.update_state(_cfg("u1", go="b"), {"log": ["x"]}, as_node="a")
    assert graph.get_state(_cfg("u1")).next == ("b",)
    graph.update_state(_cfg("u2"), {"log": ["x"]}, as_node="a")
    assert graph.get_state(_cfg("u2")).next == ()
    graph.update_state(_cfg("u3", then="c"), {"log": ["x"]}, as_node="b")  # get_config() inside update_state
    assert graph.get_state(_cfg("u3")).next == ("c",)
