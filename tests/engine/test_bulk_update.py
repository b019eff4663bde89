"""``update_state`` as the node due next, and ``bulk_update_state`` (tests/sidebyside/bulk_update.py prints both).

As LangGraph 1.2.22: an update written as a node that the updated version
has due records the update as that task's result there (its writes are
stored with the version, under the task's id), so history shows it;
``bulk_update_state`` applies its supersteps one version each.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from engine.errors import InvalidUpdateError
from engine.graph import START, StateGraph
from engine.testing import thread
from engine.types import StateUpdate


class S(TypedDict, total=False):
    x: int
    log: Annotated[list, operator.add]


def _graph(checkpointer: Any) -> Any:
    b = StateGraph(S).add_node("a", lambda s: {"log": ["a"]}).add_node("b", lambda s: {"log": ["b"]})
    return b.add_edge(START, "a").add_edge("a", "b").compile(checkpointer=checkpointer)


def test_an_update_as_the_node_due_is_that_tasks_result(checkpointer):
    g = _graph(checkpointer)
    cfg = thread("u")
    g.invoke({"x": 1, "log": []}, cfg)
    g.update_state(cfg, {"log": ["u1"]}, as_node="a")  # a version with "b" due
    g.update_state(cfg, {"x": 9}, as_node="b")
    snaps = list(g.get_state_history(cfg))
    assert [(s.metadata["source"], s.next) for s in snaps[:2]] == [("update", ()), ("update", ("b",))]
    assert [(t.name, t.result) for t in snaps[1].tasks] == [("b", {"x": 9})]
    assert g.get_state(cfg).values == {"x": 9, "log": ["a", "b", "u1"]}


def test_bulk_update_state_applies_each_superstep(checkpointer):
    g = _graph(checkpointer)
    cfg = thread("bulk")
    g.invoke({"x": 1, "log": []}, cfg)
    out = g.bulk_update_state(cfg, [[StateUpdate({"log": ["u1"]}, "a")], [StateUpdate({"x": 9}, as_node="b")],
                                    [StateUpdate({"log": ["u3"]})]])
    assert out["configurable"]["checkpoint_id"] == g.get_state(cfg).config["configurable"]["checkpoint_id"]
    assert g.get_state(cfg).values == {"x": 9, "log": ["a", "b", "u1", "u3"]}
    assert [s.metadata["source"] for s in g.get_state_history(cfg)][:3] == ["update"] * 3
    with pytest.raises(ValueError, match="No supersteps"):
        g.bulk_update_state(cfg, [])
    with pytest.raises(ValueError, match="No updates"):
        g.bulk_update_state(cfg, [[]])
    with pytest.raises(InvalidUpdateError, match="At key 'x': Can receive only one value per step"):
        g.bulk_update_state(cfg, [[StateUpdate({"x": 1}, "a"), StateUpdate({"x": 2}, "b")]])
    # As LangGraph: several updates in one superstep are one version, written as by those nodes at once.
    g.bulk_update_state(cfg, [[StateUpdate({"x": 5}, "a"), StateUpdate({"log": ["both"]}, "b")]])
    assert g.get_state(cfg).values == {"x": 5, "log": ["a", "b", "u1", "u3", "both"]}
    assert [s.metadata["source"] for s in g.get_state_history(cfg)][:2] == ["update", "update"]


def test_a_supersteps_updates_apply_in_the_order_given(checkpointer):
    # As LangGraph: each update is an update task of its own, applied in the order given, whichever
    # node it is written as and whether that node's task is due ("b" is; "a", first by name, is not).
    g = _graph(checkpointer)
    cfg = thread("order")
    g.bulk_update_state(cfg, [[StateUpdate({"x": 1}, "a")]])  # "b" due next
    g.bulk_update_state(cfg, [[StateUpdate({"log": ["to b"]}, "b"), StateUpdate({"log": ["to a"]}, "a")]])
    assert g.get_state(cfg).values["log"] == ["to b", "to a"]
    g.bulk_update_state(cfg, [[StateUpdate({"log": ["a first"]}, "a"), StateUpdate({"log": ["b second"]}, "b")]])
    assert g.get_state(cfg).values["log"] == ["to b", "to a", "a first", "b second"]


def test_a_thread_rebuilt_by_updates_as_input_start_and_nodes_has_the_runs_history(checkpointer):
    """``__input__`` writes an "input" version (START due), ``__start__`` START's step: the same history a run writes."""
    g = _graph(checkpointer)
    g.invoke({"x": 1, "log": []}, thread("ran"))
    ran = [(s.values, s.next, s.metadata["step"], s.metadata["source"]) for s in g.get_state_history(thread("ran"))]
    g.bulk_update_state(thread("built"), [
        [StateUpdate({"x": 1, "log": []}, "__input__")],
        [StateUpdate({"x": 1, "log": []}, "__start__")],
        [StateUpdate({"log": ["a"]}, "a")],
        [StateUpdate({"log": ["b"]}, "b")],
    ])  # fmt: skip
    built = [(s.values, s.next, s.metadata["step"], s.metadata["source"]) for s in g.get_state_history(thread("built"))]
    assert [r[:3] for r in built] == [r[:3] for r in ran]
    assert built[-1][3] == "input" and {r[3] for r in built[:-1]} == {"update"}
    with pytest.raises(InvalidUpdateError, match="Cannot apply multiple updates when updating as input"):
        g.bulk_update_state(thread("built"), [[StateUpdate({"x": 1}, "__input__"), StateUpdate({"x": 2}, "__input__")]])


def test_a_copy_is_a_fork_beside_the_version_and_takes_updates_as_one_superstep(checkpointer):
    g = _graph(checkpointer)
    cfg = thread("copy")
    g.invoke({"x": 1, "log": []}, cfg)
    first = [s for s in g.get_state_history(cfg) if s.next == ("b",)][0]
    out = g.update_state(first.config, [({"log": ["b1"]}, "b")], as_node="__copy__")
    head = g.get_state(cfg)
    assert head.config["configurable"]["checkpoint_id"] == out["configurable"]["checkpoint_id"]
    assert head.values == {"x": 1, "log": ["a", "b1"]}
    fork = g.get_state({"configurable": {**cfg["configurable"], "checkpoint_id": head.parent_config["configurable"]["checkpoint_id"]}})
    assert fork.metadata["source"] == "fork" and fork.parent_config == first.parent_config
    with pytest.raises(InvalidUpdateError, match="Cannot copy a non-existent checkpoint"):
        g.update_state(thread("none"), None, as_node="__copy__")
