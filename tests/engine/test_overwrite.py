"""Overwrite: a write that replaces a reducer key's value (issue 18 item 5).

Each expectation was observed on LangGraph 1.2.22 with the same program
(``tests/sidebyside/overwrite.py`` prints ``same`` but for the error's
extra ``ValueError`` base, a kept difference).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Optional, TypedDict

import pytest

from engine import START, InvalidUpdateError, StateGraph
from engine.channels import BinaryOperatorAggregate
from engine.types import Overwrite


class S(TypedDict, total=False):
    log: Annotated[list, operator.add]
    x: int
    o: Annotated[Optional[list], operator.add]


def _writes(name: str, update: dict[str, Any]) -> Any:
    def node(state: S) -> dict[str, Any]:
        return update

    node.__name__ = name
    return node


NODES = {
    "a": _writes("a", {"log": ["a"]}),
    "b": _writes("b", {"log": Overwrite(["b"])}),
    "c": _writes("c", {"log": ["c"]}),
    "d": _writes("d", {"log": Overwrite(["d"])}),
}


def _graph(edges: list[tuple[str, str]], checkpointer: Any = None, nodes: dict[str, Any] = NODES) -> Any:
    builder = StateGraph(S)
    for name, fn in nodes.items():
        builder.add_node(name, fn)
    for src, dst in edges:
        builder.add_edge(src, dst)
    return builder.compile(checkpointer=checkpointer)


def test_the_channel_replaces_and_refuses_a_second_overwrite() -> None:
    ch = BinaryOperatorAggregate(list, operator.add, key="log")
    ch.update([["x"]])
    assert ch.update([["y"], Overwrite(["z"]), ["dropped"]]) and ch.get() == ["z"]
    assert ch.update([{"__overwrite__": [1]}]) and ch.get() == [1]
    assert ch.update([{"type": "__overwrite__", "value": [2]}]) and ch.get() == [2]
    assert ch.update([[{"type": "other", "value": [3]}]]) and ch.get() == [2, {"type": "other", "value": [3]}]
    with pytest.raises(InvalidUpdateError, match="Can receive only one Overwrite value per super-step"):
        ch.update([Overwrite([]), Overwrite([])])


def test_overwrite_replaces_and_later_writes_fold_on(checkpointer: Any) -> None:
    graph = _graph([(START, "a"), ("a", "b"), ("b", "c")], checkpointer)
    cfg = {"configurable": {"thread_id": "t"}}
    assert graph.invoke({"log": ["S"]}, cfg) == {"log": ["b", "c"]}
    assert graph.get_state(cfg).values == {"log": ["b", "c"]}
    # update_state goes through the reducer too; a later turn folds into the new value
    graph.update_state(cfg, {"log": Overwrite(["U"])})
    assert graph.get_state(cfg).values == {"log": ["U"]}
    assert graph.invoke({"log": ["T"]}, cfg) == {"log": ["b", "c"]}
    values = [s.values["log"] for s in graph.get_state_history(cfg)]
    assert values == [["b", "c"], ["b"], ["U", "T", "a"], ["U", "T"], ["U"], ["U"], ["b", "c"], ["b"], ["S", "a"], ["S"], []]


def test_in_one_step_writes_after_the_overwrite_are_dropped() -> None:
    # a, b, c run together; their writes apply sorted by name: a folds, b replaces, c is dropped
    assert _graph([(START, "a"), (START, "b"), (START, "c")]).invoke({"log": ["S"]}) == {"log": ["b"]}


def test_two_overwrites_in_one_step_fail_the_run(checkpointer: Any) -> None:
    graph = _graph([(START, "b"), (START, "d")], checkpointer)
    with pytest.raises(InvalidUpdateError, match="Can receive only one Overwrite value per super-step"):
        graph.invoke({"log": ["S"]}, {"configurable": {"thread_id": "t"}})


def test_overwrite_as_input_and_in_its_dict_forms() -> None:
    assert _graph([(START, "a")]).invoke({"log": Overwrite(["I"])}) == {"log": ["I", "a"]}
    nodes = {
        "g": _writes("g", {"log": {"__overwrite__": ["g"]}}),
        "h": _writes("h", {"log": {"type": "__overwrite__", "value": ["h"]}}),
    }
    assert _graph([(START, "g")], nodes=nodes).invoke({"log": ["S"]}) == {"log": ["g"]}
    assert _graph([(START, "h")], nodes=nodes).invoke({"log": ["S"]}) == {"log": ["h"]}


def test_on_a_plain_key_or_an_empty_reducer_it_is_a_value_as_in_langgraph(checkpointer: Any) -> None:
    nodes = {"e": _writes("e", {"x": Overwrite(5)}), "f": _writes("f", {"o": Overwrite([1])})}
    cfg = {"configurable": {"thread_id": "t"}}
    graph = _graph([(START, "e")], checkpointer, nodes)
    assert graph.invoke({"log": ["S"]}, cfg) == {"log": ["S"], "x": Overwrite(5)}
    assert graph.get_state(cfg).values["x"] == Overwrite(5)  # stored and read back (always allowed)
    # Optional[list] has no empty value, so the first write is taken as it is
    assert _graph([(START, "f")], nodes=nodes).invoke({"x": 1}) == {"log": [], "x": 1, "o": Overwrite([1])}
