"""A run's lease is an argument of its own, never part of a config, and a leased saver needs it.

The host passes the engine the thread's lease (``aevents(..., lease=)``,
``update_state(..., lease=)``); the loop puts it on every write. Once a host
leases a saver's threads (``requires_lease``; the server's ThreadLeases sets
it), a run or a write without its lease raises before anything is written,
instead of writing unfenced.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, StateGraph
from engine.checkpoint.base import LEASE_KEY, Lease
from engine.checkpoint.postgres import PostgresSaver
from engine.errors import LeaseLostError
from tests.checkpoint._util import make_cp

T = "g:lease-run"


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def _graph(saver: Any) -> Any:
    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    return g.compile(checkpointer=saver)


def _cfg(thread: str = T) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def _versions(saver: Any, thread: str = T) -> int:
    return len(list(saver.list(_cfg(thread))))


def test_a_run_writes_under_the_lease_it_is_given(pg: PostgresSaver) -> None:
    lease = pg.leases.acquire_lease(T, "me", ttl=30)
    assert lease is not None
    app = _graph(pg)
    assert app.invoke({"log": []}, _cfg(), lease=lease, durability="sync") == {"log": ["a", "b"]}
    assert _versions(pg) == 4
    app.update_state(_cfg(), {"log": ["c"]}, as_node="b", lease=lease)
    assert app.get_state(_cfg()).values == {"log": ["a", "b", "c"]}

    # A lease that no longer holds fences the run's first write.
    pg.leases.release_lease(lease)
    with pytest.raises(LeaseLostError):
        app.invoke({"log": []}, _cfg(), lease=lease)
    with pytest.raises(LeaseLostError):
        app.update_state(_cfg(), {"log": ["d"]}, as_node="b", lease=lease)
    assert app.get_state(_cfg()).values == {"log": ["a", "b", "c"]}


def test_the_lease_never_rides_in_the_config(pg: PostgresSaver) -> None:
    lease = pg.leases.acquire_lease(T, "me", ttl=30)
    app = _graph(pg)
    leased = {"configurable": {"thread_id": T, LEASE_KEY: lease}}
    with pytest.raises(ValueError, match="lease="):
        app.invoke({"log": []}, leased)
    with pytest.raises(ValueError, match="lease="):
        app.update_state(leased, {"log": ["x"]}, as_node="a")
    with pytest.raises(ValueError, match="on thread"):
        app.invoke({"log": []}, _cfg("g:another"), lease=lease)
    with pytest.raises(TypeError, match="Lease"):
        app.invoke({"log": []}, _cfg(), lease=("me", 1))
    assert _versions(pg) == 0


def test_a_leased_saver_refuses_a_run_or_a_write_without_its_lease(pg: PostgresSaver) -> None:
    assert pg.requires_lease is False  # a plain PostgresSaver, as a LangGraph program uses it
    app = _graph(pg)
    assert app.invoke({"log": []}, _cfg("g:plain")) == {"log": ["a", "b"]}

    pg.requires_lease = True  # as a host that leases the threads sets it (server._leases.ThreadLeases)
    with pytest.raises(ValueError, match="requires every run to hold the thread's lease"):
        app.invoke({"log": []}, _cfg())
    with pytest.raises(ValueError, match="requires every run to hold the thread's lease"):
        app.update_state(_cfg(), {"log": ["x"]}, as_node="a")
    # A write that skips the engine and forgets the token is refused by the saver itself.
    with pytest.raises(ValueError, match="without the thread's lease"):
        pg.put({"configurable": {"thread_id": T, "checkpoint_ns": ""}}, make_cp({"log": []}, 1), {"step": 1}, {})
    with pytest.raises(ValueError, match="without the thread's lease"):
        pg.put_many([({"configurable": {"thread_id": T, "checkpoint_ns": ""}}, make_cp({"log": []}, 1), {"step": 1}, {})])
    assert _versions(pg) == 0
    lease = pg.leases.acquire_lease(T, "me", ttl=30)
    assert isinstance(lease, Lease)
    assert app.invoke({"log": []}, _cfg(), lease=lease) == {"log": ["a", "b"]}
