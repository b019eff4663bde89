"""A plain class as the state schema (issue 29). Twin of tests/sidebyside/plain_class_state.py."""

from __future__ import annotations

from operator import add
from typing import Annotated

from engine.graph import START, StateGraph


class State:
    info: Annotated[list[str], add]
    n: int


def test_a_plain_classs_annotations_are_the_keys_and_states_are_dicts() -> None:
    def node(state: dict) -> dict:
        assert isinstance(state, dict)
        return {"info": [f"n={state.get('n')}"], "n": state.get("n", 0) + 1}

    builder = StateGraph(State)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    graph = builder.compile()
    assert graph.invoke({"info": ["start"], "n": 1}) == {"info": ["start", "n=1"], "n": 2}
    assert list(graph.stream({"info": []}, stream_mode="updates")) == [{"node": {"info": ["n=None"], "n": 1}}]
