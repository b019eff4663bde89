"""A task's triggers: all its node's trigger channels, sorted, as LangGraph's (issue 29).

Twin of tests/sidebyside/task_triggers.py.
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from engine.config import get_config
from engine.graph import START, StateGraph


class S(TypedDict):
    log: Annotated[list, operator.add]


@pytest.mark.parametrize("defer", [False, True])
def test_a_node_with_several_triggers_lists_them_all_sorted(defer: bool) -> None:
    seen: list[tuple[str, ...]] = []

    def c(state: S) -> dict:
        seen.append(tuple(get_config()["metadata"]["langgraph_triggers"]))
        return {"log": ["c"]}

    builder = StateGraph(S)
    builder.add_node("a", lambda s: {"log": ["a"]})
    builder.add_node("b", lambda s: {"log": ["b"]})
    builder.add_node("c", c, defer=defer)
    builder.add_node("d", lambda s: {"log": ["d"]})
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    builder.add_edge(["a", "b"], "c")
    builder.add_edge("a", "d")
    builder.add_edge("d", "c")
    chunks = [ch for ch in builder.compile().stream({"log": []}, stream_mode="debug") if ch["type"] == "task"]
    got = [(ch["step"], ch["payload"]["name"], ch["payload"]["triggers"]) for ch in chunks]
    both = ("branch:to:c", "join:a+b:c")
    if defer:
        assert got == [(1, "a", ("branch:to:a",)), (1, "b", ("branch:to:b",)), (2, "d", ("branch:to:d",)), (3, "c", both)]
        assert seen == [both]
    else:
        assert got == [(1, "a", ("branch:to:a",)), (1, "b", ("branch:to:b",)), (2, "c", both), (2, "d", ("branch:to:d",)), (3, "c", both)]
        assert seen == [both, both]
