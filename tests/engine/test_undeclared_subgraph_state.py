"""The versions of a graph a node's function invokes, not added as a node (as LangGraph's): one the function
names is found, read and updated as its own; one it builds as it runs is read with the parent's channels and
refused on update. Twin of tests/sidebyside/undeclared_subgraph_state.py."""

from __future__ import annotations

from typing import Any, Callable, TypedDict

import pytest

from engine.graph import START, StateGraph


class S(TypedDict):
    x: int


inner_b = StateGraph(S)
inner_b.add_node("step", lambda s: {"x": s["x"] + 10})
inner_b.add_edge(START, "step")
named = inner_b.compile()


def calls_named(state: S) -> dict:
    return {"x": named.invoke({"x": state["x"]})["x"] + 1}


def calls_built(state: S) -> dict:
    return {"x": inner_b.compile().invoke({"x": state["x"]})["x"] + 1}


def run(fn: Callable[[S], dict], checkpointer: Any) -> tuple[Any, dict]:
    outer_b = StateGraph(S)
    outer_b.add_node("caller", fn)
    outer_b.add_edge(START, "caller")
    g = outer_b.compile(checkpointer=checkpointer)
    config = {"configurable": {"thread_id": "t"}}
    assert g.invoke({"x": 1}, config) == {"x": 12}
    [sub] = {t.config["configurable"]["checkpoint_ns"] for t in checkpointer.list(config)} - {""}
    assert sub.startswith("caller:")
    at = {"configurable": {"thread_id": "t", "checkpoint_ns": sub}}
    state = g.get_state(at)
    assert (state.values, state.next) == ({"x": 11}, ())
    assert [s.values for s in g.get_state_history(at)] == [{"x": 11}, {"x": 1}, {}]
    return g, at


def test_a_graph_the_function_names_is_found_and_updated(checkpointer) -> None:
    g, at = run(calls_named, checkpointer)
    g.update_state(at, {"x": 99})
    assert g.get_state(at).values == {"x": 99}


def test_a_graph_built_as_the_node_runs_is_read_with_the_parents_channels_and_refuses_updates(checkpointer) -> None:
    g, at = run(calls_built, checkpointer)
    with pytest.raises(ValueError, match="Subgraph caller not found"):
        g.update_state(at, {"x": 99})
    assert g.get_state(at).values == {"x": 11}  # nothing written


class _Holder:
    def __init__(self, payload: Any) -> None:
        self.payload = payload


def test_a_graph_reached_through_an_attribute_path_or_a_wrapper_is_the_nodes_subgraph() -> None:
    """As LangGraph 1.2.22: the values a node function reaches include attribute paths from its globals and
    cells (nested defs too) and what ``__wrapped__`` reaches; a path the code never loads reaches nothing."""
    from engine.graph._nodes import called_subgraph

    def leaf(tag: str) -> Any:
        b = StateGraph(TypedDict("L", {"x": int}))  # type: ignore[operator]
        b.add_node(tag, lambda s: {})
        b.set_entry_point(tag)
        graph = b.compile()
        graph.name = tag
        return graph

    holder = _Holder(_Holder(leaf("chain")))

    def chain(state: Any) -> Any:
        def inner() -> Any:
            return holder.payload.payload.invoke(state)

        return inner()

    wrapped_graph = leaf("wrapped")

    def inner_fn(state: Any) -> Any:
        return wrapped_graph.invoke(state)

    def wrapper(state: Any) -> Any:
        return {}

    wrapper.__wrapped__ = inner_fn  # type: ignore[attr-defined]
    other = _Holder("a string: no graph at its end")

    def broken(state: Any) -> Any:
        return other.payload.missing

    assert called_subgraph(chain).name == "chain"
    assert called_subgraph(wrapper).name == "wrapped"
    assert called_subgraph(broken) is None
