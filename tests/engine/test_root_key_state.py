"""A TypedDict whose one key is ``__root__`` (issue 29). Twin of tests/sidebyside/root_key_state.py."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from engine.graph import START, StateGraph


class State(TypedDict):
    __root__: Annotated[list, operator.add]


def test_the_state_is_the_root_keys_value() -> None:
    builder = StateGraph(State)
    builder.add_node("a", lambda items: [f"a saw {len(items)}"])
    builder.add_node("b", lambda items: [f"b saw {len(items)}"])
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    graph = builder.compile()
    assert graph.invoke(["start"]) == ["start", "a saw 1", "b saw 2"]
    assert list(graph.stream(["x"], stream_mode="updates")) == [{"a": ["a saw 1"]}, {"b": ["b saw 2"]}]
