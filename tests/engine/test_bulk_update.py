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
    with pytest.raises(NotImplementedError, match="several updates"):
        g.bulk_update_state(cfg, [[StateUpdate({"x": 1}, "a"), StateUpdate({"x": 2}, "b")]])
