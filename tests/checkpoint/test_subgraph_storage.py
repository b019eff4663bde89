"""Subgraph versions stored by reference: what an agent call stores does not grow with the conversation.

A subgraph is handed the parent's conversation and hands it back (its
input, its first value, its START task's write, its output as the parent's
pending writes); each is stored as a ref to the list the thread already
holds (:mod:`engine.checkpoint._refs`). Runs once per saver kind: what is
read back equals what storage without deltas gives, a prune keeps what refs
name, a delete leaves nothing, and a ref whose row another process deleted
is stored whole.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from engine.checkpoint import BaseCheckpointSaver, InMemorySaver, SqliteSaver
from engine.checkpoint.postgres import PostgresSaver
from tests.checkpoint._util import cfg, make_cp
from tests.checkpoint.make_pg_corpus import build, describe, user

THREAD = "sup"
CONFIG = {"configurable": {"thread_id": THREAD}}


def stored(saver: BaseCheckpointSaver, thread: str = THREAD) -> dict[str, int]:
    """Bytes of blob and write data, and rows of the three tables, a saver holds for a thread."""
    if isinstance(saver, InMemorySaver):
        t = saver._threads.get(thread)
        if t is None:
            return {"bytes": 0, "checkpoints": 0, "blobs": 0, "writes": 0}
        writes = [w for ws in t.writes.values() for w in ws.values()]
        return {"bytes": sum(len(data) for _, data, *_ in t.blobs.values()) + sum(len(data) for _, _, data, *_ in writes),
                "checkpoints": sum(len(c) for c in t.checkpoints.values()), "blobs": len(t.blobs), "writes": len(writes)}  # fmt: skip
    out: dict[str, int] = {"bytes": 0}
    for table in ("checkpoints", "blobs", "writes"):
        size = "0" if table == "checkpoints" else "coalesce(sum(length(data)), 0)"
        if isinstance(saver, SqliteSaver):
            n, b = saver._conn.execute(f"SELECT count(*), {size} FROM {table} WHERE thread_id = ?", (thread,)).fetchone()
        else:
            assert isinstance(saver, PostgresSaver)
            with psycopg.connect(saver._dsn) as conn:
                query = f"SELECT count(*), {size.replace('length', 'octet_length')} FROM {saver._q.tables[table]} WHERE thread_id = %s"
                n, b = conn.execute(query, (thread,)).fetchone()  # type: ignore[misc]
        out[table] = int(n)
        out["bytes"] += int(b)
    return out


def run_turns(saver: BaseCheckpointSaver, turns: range, thread: str = THREAD) -> list[int]:
    """Run the supervisor for ``turns``; the bytes each turn stored."""
    graph = build(saver, "supervisor")
    added = []
    for turn in turns:
        before = stored(saver, thread)["bytes"]
        graph.invoke(user(turn), {"configurable": {"thread_id": thread}})
        added.append(stored(saver, thread)["bytes"] - before)
    return added


def test_an_agent_call_stores_what_it_adds_and_reads_back_as_a_full_copy(new_saver: Any) -> None:
    saver, full = new_saver(), new_saver(delta_fanout=None)
    added = run_turns(saver, range(30))
    # A copy of the conversation per call makes the last turns store about 5 times turns 3-7.
    assert sum(added[-5:]) < 1.5 * sum(added[3:8]), added
    full_added = run_turns(full, range(30), "whole")  # the same storage, for SQL savers: another thread
    # The comparison measures something: whole copies grow with the conversation (the SQL savers store
    # them compressed, STORE_MIN: a copy of a conversation over few words takes a third of its bytes).
    assert sum(full_added[-5:]) > 2 * sum(full_added[3:8]), full_added
    mine, theirs = describe(saver, THREAD), describe(full, "whole")
    assert len(mine) == len(theirs) == 30 * 4 + 30 * 3  # every version of the root and of each agent call
    # Namespaces, ids and versions differ between the two runs (task ids, time): compare in the order written.
    def read(versions: list[dict[str, Any]]) -> list[tuple[bool, str, str]]:
        return [(d["ns"] == "", d["values"], d["writes"]) for d in sorted(versions, key=lambda d: d["id"])]

    assert read(mine) == read(theirs)
    with_subgraphs = build(saver, "supervisor").get_state(CONFIG, subgraphs=True)
    whole = build(full, "supervisor").get_state({"configurable": {"thread_id": "whole"}}, subgraphs=True)
    assert with_subgraphs.values == whole.values


def test_prune_keeps_what_refs_name_and_delete_leaves_nothing(new_saver: Any) -> None:
    saver = new_saver()
    run_turns(saver, range(8))
    newest = {d["ns"]: d for d in describe(saver, THREAD)}
    values = build(saver, "supervisor").get_state(CONFIG).values
    assert saver.prune(THREAD, keep_last=1) > 0
    after = describe(saver, THREAD)
    assert {d["ns"]: d for d in after} == newest and len(after) == len(newest)  # each namespace's newest, whole
    # A fresh saver on the same storage (nothing cached) reads the same, and goes on.
    again = saver if isinstance(saver, InMemorySaver) else new_saver()
    assert build(again, "supervisor").get_state(CONFIG).values == values
    run_turns(again, range(8, 11))
    state = build(again, "supervisor").get_state(CONFIG).values
    assert state["messages"][: len(values["messages"])] == values["messages"] and state["turns"] == 11
    saver.delete_thread(THREAD)
    assert stored(saver) == {"bytes": 0, "checkpoints": 0, "blobs": 0, "writes": 0}


def test_a_ref_whose_row_is_gone_is_stored_whole(saver_kind: str, new_saver: Any) -> None:
    if saver_kind == "memory":
        pytest.skip("two in-memory savers share no storage")
    writer, other = new_saver(), new_saver()
    conversation = [{"role": "user", "content": f"m{i} " + "x" * 50, "id": f"m{i}"} for i in range(6)]
    root = writer.put(cfg(THREAD), make_cp({"messages": conversation}), {"source": "loop", "step": 0}, {"messages": 1})
    other.delete_thread(THREAD)  # another process: the writer's cache still knows the list
    sub = {"configurable": {"thread_id": THREAD, "checkpoint_ns": "agent:1"}}
    longer = conversation + [{"role": "assistant", "content": "reply", "id": "r"}]
    written = writer.put(sub, make_cp({"messages": longer, "in": {"messages": conversation}}), {"source": "loop", "step": 0},
                         {"messages": 1, "in": 1})  # fmt: skip
    writer.put_writes(written, [("messages", longer)], "task-1")
    got = other.get_tuple(written)
    assert got is not None and got.checkpoint["channel_values"] == {"messages": longer, "in": {"messages": conversation}}
    assert [w[1:] for w in got.pending_writes] == [("messages", longer)]
    assert other.get_tuple(root) is None  # the row the refs would have named is gone indeed
