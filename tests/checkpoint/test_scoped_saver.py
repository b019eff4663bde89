"""engine.host.ScopedSaver: a graph calls threads by its callers' ids, the saver stores them under the host's keys.

The server compiles each graph with one (issue 32 item 4): the graph, its
events and every read carry the caller's id, the rows the storage key, and
another scope's threads are invisible.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine import START, StateGraph
from engine.checkpoint import InMemorySaver
from engine.checkpoint.base import Lease
from engine.host import ScopedSaver


class State(TypedDict):
    log: Annotated[list, operator.add]


def _scope(saver: Any, graph: str) -> ScopedSaver:
    prefix = f"{graph}:"
    return ScopedSaver(saver, lambda t: prefix + t, lambda k: k[len(prefix) :] if k.startswith(prefix) else None)


def _graph(saver: Any) -> Any:
    def node(state: State, config) -> dict[str, Any]:  # type: ignore[no-untyped-def]
        return {"log": [config["configurable"]["thread_id"]]}

    g = StateGraph(State)
    g.add_node("n", node)
    g.add_edge(START, "n")
    return g.compile(checkpointer=saver)


def test_the_graph_sees_the_callers_id_and_the_rows_the_storage_key() -> None:
    saver = InMemorySaver()
    a, b = _graph(_scope(saver, "a")), _graph(_scope(saver, "b"))
    cfg = {"configurable": {"thread_id": "user-7"}}
    assert a.invoke({"log": []}, cfg)["log"] == ["user-7"]
    assert b.invoke({"log": []}, cfg)["log"] == ["user-7"]
    assert a.invoke({"log": []}, cfg)["log"] == ["user-7", "user-7"]  # its own thread, not b's
    state = a.get_state(cfg)
    assert state.config["configurable"]["thread_id"] == "user-7"
    assert all(s.config["configurable"]["thread_id"] == "user-7" for s in a.get_state_history(cfg))
    assert all(s.parent_config is None or s.parent_config["configurable"]["thread_id"] == "user-7" for s in a.get_state_history(cfg))
    assert sorted(t.thread_id for t in saver.list_threads()) == ["a:user-7", "b:user-7"]
    assert [t.thread_id for t in a.checkpointer.list_threads()] == ["user-7"]
    assert {t.config["configurable"]["thread_id"] for t in a.checkpointer.list(None)} == {"user-7"}
    assert len(list(a.checkpointer.list(None, limit=1))) == 1
    a.checkpointer.delete_thread("user-7")
    assert a.get_state(cfg).values == {} and b.get_state(cfg).values["log"] == ["user-7"]


def test_a_lease_names_the_storage_key() -> None:
    scoped = _scope(InMemorySaver(), "a")
    graph = _graph(scoped)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"log": []}, cfg, lease=Lease("a:t", "me", 1))  # no error: the run's thread is stored as "a:t"
    with pytest.raises(ValueError, match="the lease is on thread 't'"):
        graph.invoke({"log": []}, cfg, lease=Lease("t", "me", 1))


def test_a_scope_does_not_wrap_a_scope_nor_close_its_saver() -> None:
    saver = InMemorySaver()
    scoped = _scope(saver, "a")
    with pytest.raises(ValueError, match="wraps the saver itself"):
        _scope(scoped, "b")
    scoped.close()
    _graph(saver).invoke({"log": []}, {"configurable": {"thread_id": "still-open"}})
