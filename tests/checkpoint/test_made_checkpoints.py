"""What the savers do to stay O(what changed) a put: engine-made checkpoints
(engine.checkpoint._made) have only their new versions checked, and are still refused
when those are not integers; the in-memory saver's rows are not walked by every
full collection."""

from __future__ import annotations

import gc

import pytest

from engine.checkpoint._versions import check_versions
from engine.checkpoint._made import MadeCheckpoint
from engine.checkpoint.memory import InMemorySaver
from engine.graph import END, START, StateGraph


def _made(seen: dict, versions: dict) -> MadeCheckpoint:
    return MadeCheckpoint(
        v=1, id="1", ts="2026-12-01T00:00:00+00:00", channel_values={}, channel_versions=versions,
        versions_seen=seen, updated_channels=["a"],
    )  # fmt: skip


def test_a_made_checkpoint_with_a_version_that_is_not_an_int_is_refused() -> None:
    ck = _made({"n": {"a": 1}}, {"a": 1})
    check_versions(ck, {"a": 1})
    with pytest.raises(ValueError, match="new_versions"):
        check_versions(ck, {"a": 1.5})




def test_what_the_memory_saver_stores_is_not_walked_by_every_collection() -> None:
    """Stored rows are tuples the collector stops tracking: a saver with many threads
    must not make each full collection (and so each step) slower."""
    from typing import TypedDict

    class State(TypedDict):
        n: int

    g = StateGraph(State)
    g.add_node("a", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "a")
    g.add_edge("a", END)
    saver = InMemorySaver()
    app = g.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    app.invoke({"n": 0}, cfg)
    app.invoke({"n": 5}, cfg)
    gc.collect()
    gc.collect()  # a row's inner tuple first, then the row
    thread = saver._threads["t"]
    stored = [*(r for rows in thread.checkpoints.values() for r in rows.values()), *thread.blobs.values(),
              *(w for ws in thread.writes.values() for w in ws.values())]  # fmt: skip
    assert len(stored) > 6
    assert not any(gc.is_tracked(x) for x in stored)
    assert app.get_state(cfg).values == {"n": 6}
