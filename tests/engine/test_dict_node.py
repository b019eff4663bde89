"""A dict of Runnables as a node (issue 29). Twin of tests/sidebyside/dict_node.py."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from langchain_core.runnables import RunnableLambda

from engine.graph import START, StateGraph


class S(TypedDict, total=False):
    n: int
    log: Annotated[list, operator.add]


def test_a_dict_node_runs_each_entry_on_the_input_and_updates_with_their_results() -> None:
    builder = StateGraph(S)
    builder.add_node("both", {"n": RunnableLambda(lambda s: s["n"] * 10), "log": lambda s: [f"saw {s['n']}"]})
    builder.add_edge(START, "both")
    graph = builder.compile()
    assert graph.invoke({"n": 2, "log": []}) == {"n": 20, "log": ["saw 2"]}
    assert list(graph.stream({"n": 3, "log": []}, stream_mode="updates")) == [{"both": {"n": 30, "log": ["saw 3"]}}]
