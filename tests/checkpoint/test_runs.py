"""Run records (engine/checkpoint/_runs.py): one contract, kept by memory, SQLite and PostgreSQL alike.

Each test runs on every saver kind (the ``saver`` fixture); the SQL stores use
the saver's own tables (migrations 0004 on SQLite, 0005 on PostgreSQL), which
go with their thread.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import Any, TypedDict

import pytest

from engine.checkpoint import InMemorySaver, SqliteSaver
from engine.checkpoint._runs import MemoryRuns, RunRecord, RunStore
from engine.checkpoint.postgres import PostgresSaver
from engine.checkpoint.postgres._runs import PostgresRuns
from engine.checkpoint.sqlite._runs import SqliteRuns
from engine.graph import StateGraph

class S(TypedDict, total=False):
    n: int


T0 = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=timezone.utc)


def store_of(saver: Any, outline: Any = None) -> RunStore:
    if isinstance(saver, SqliteSaver):
        assert isinstance(saver.runs, SqliteRuns)  # each SQL saver carries its run store
        return saver.runs.outlined(outline)
    if isinstance(saver, PostgresSaver):
        assert isinstance(saver.runs, PostgresRuns)
        return saver.runs.outlined(outline)
    assert isinstance(saver, InMemorySaver)
    return MemoryRuns(outline=outline)


def record(run_id: str, thread: str = "g:t", *, at: datetime = T0, **kw: Any) -> RunRecord:
    base: dict[str, Any] = dict(graph="g", caller_thread="t", call="Invoke", status="RUNNING", replica="r1", started_at=at)
    base.update(kw)
    return RunRecord(run_id, thread, **base)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_start_get_update_and_the_attempt_guard(saver: Any) -> None:
    runs = store_of(saver)

    async def go() -> None:
        rec = record("run-1", request_id="req", fingerprint=b"\x01\x02", request=b"\x00bytes", call_json='{"input": 1}', epoch=3)
        assert await runs.astart(rec) is None
        got = await runs.aget("run-1")
        assert got == rec
        assert got.started_at == T0  # microseconds and the zone survive
        # The update is refused once another replica took the run over (attempts moved on).
        assert await runs.aupdate("run-1", 1, attempts=2, replica="r2", status="RECOVERING")
        assert not await runs.aupdate("run-1", 1, status="SUCCESS")
        assert (await runs.aget("run-1")).status == "RECOVERING"
        ended = T0 + timedelta(seconds=2)
        assert await runs.aupdate("run-1", 2, status="SUCCESS", ended_at=ended, checkpoint_id="ck", finished=b"fin", last_seq=9)
        got = await runs.aget("run-1")
        assert (got.status, got.ended_at, got.checkpoint_id, got.finished, got.last_seq, got.replica) == (
            "SUCCESS", ended, "ck", b"fin", 9, "r2",
        )
        assert await runs.aget("nope") is None
        with pytest.raises(ValueError, match="thread_id"):
            await runs.aupdate("run-1", 2, thread_id="other")

    run(go())


def test_a_request_id_is_taken_once_per_thread(saver: Any) -> None:
    runs = store_of(saver)

    async def go() -> None:
        assert await runs.astart(record("a", request_id="req", fingerprint=b"f1"), [(1, b"started")]) is None
        assert await runs.aevents("a", 0) == [(1, b"started")] and (await runs.aget("a")).last_seq == 1
        again = await runs.astart(record("b", request_id="req", fingerprint=b"f2"), [(1, b"other")])
        assert again is not None and (again.run_id, again.fingerprint) == ("a", b"f1")
        assert await runs.aget("b") is None and await runs.aevents("b", 0) == []  # nothing written
        # Another thread's request_id is its own; no request_id never conflicts.
        assert await runs.astart(record("c", "g:other", request_id="req")) is None
        assert await runs.astart(record("d")) is None and await runs.astart(record("e")) is None
        assert (await runs.afind("g:t", "req")).run_id == "a"
        assert await runs.afind("g:t", "other") is None

    run(go())


def test_list_newest_first_with_paging(saver: Any) -> None:
    runs = store_of(saver)

    async def go() -> None:
        for i in range(5):
            await runs.astart(record(f"r{i}", at=T0 + timedelta(seconds=i)))
        await runs.astart(record("x", "g:other"))
        assert [r.run_id for r in await runs.alist("g:t")] == ["r4", "r3", "r2", "r1", "r0"]
        assert [r.run_id for r in await runs.alist("g:t", limit=2)] == ["r4", "r3"]
        assert [r.run_id for r in await runs.alist("g:t", limit=2, before="r3")] == ["r2", "r1"]
        with pytest.raises(KeyError):
            await runs.alist("g:t", before="x")  # another thread's run
        with pytest.raises(KeyError):
            await runs.alist("g:t", limit=2, before="nope")
        assert await runs.alist("g:t", before="r0") == []
        # Runs started at one time are ordered by run id, and paging goes through them all once.
        for name in "cabed":
            await runs.astart(record(name, "g:same"))
        pages, before = [], None
        while page := [r.run_id for r in await runs.alist("g:same", limit=2, before=before)]:
            pages.append(page)
            before = page[-1]
        assert pages == [["e", "d"], ["c", "b"], ["a"]]

    run(go())


def test_a_listing_leaves_the_request_and_final_state_out_unless_asked(saver: Any) -> None:
    runs = store_of(saver, outline=lambda finished: b"outline of " + finished[:5])

    async def go() -> None:
        await runs.astart(record("done", request=b"the call", at=T0))
        assert await runs.aupdate("done", 1, status="SUCCESS", ended_at=T0, finished=b"final state, large")
        await runs.astart(record("live", request=b"another call", at=T0 + timedelta(seconds=1)))
        # A row written before outcomes were kept (or by a store with no outline) lists its last event.
        await runs.astart(record("old", request=b"old call", at=T0 - timedelta(seconds=1)))
        assert await runs.aupdate("old", 1, status="SUCCESS", ended_at=T0, finished=b"old final", outcome=None)
        listed = {r.run_id: r for r in await runs.alist("g:t")}
        assert [(r.request, r.finished, r.outcome) for r in listed.values()] == [
            (b"", None, None), (b"", None, b"outline of final"), (b"", None, b"old final"),
        ]  # fmt: skip
        assert listed["done"].status == "SUCCESS" and listed["done"].ended_at == T0  # the rest as stored
        full = {r.run_id: r for r in await runs.alist("g:t", full=True)}
        assert (full["done"].request, full["done"].finished, full["done"].outcome) == (b"the call", b"final state, large", b"outline of final")
        assert (await runs.aget("done")).finished == b"final state, large"
        # A record that starts ended gets its outcome too; the active ones are listed alone by aactive.
        await runs.astart(record("ended", at=T0, status="ERROR", finished=b"finished at start"))
        assert (await runs.aget("ended")).outcome == b"outline of finis"
        assert [r.run_id for r in await runs.aactive("g:t")] == ["live"]
        assert (await runs.aactive("g:t"))[0].request == b""

    run(go())


def test_events_in_seq_order_first_copy_kept(saver: Any) -> None:
    runs = store_of(saver)

    async def go() -> None:
        rec = record("run-e", keeps_events=True)
        await runs.astart(rec)
        await runs.aadd_events(rec, [(1, b"one"), (2, b"two")])
        await runs.aadd_events(rec, [(2, b"again"), (3, b"three"), (5, b"five")])
        assert await runs.aevents("run-e", 0) == [(1, b"one"), (2, b"two"), (3, b"three"), (5, b"five")]
        assert await runs.aevents("run-e", 2, limit=1) == [(3, b"three")]
        assert (await runs.aget("run-e")).last_seq == 5
        assert await runs.aevents("other", 0) == []
        # The last events and the end, together; with a stale attempt count the end is refused, the events stay.
        assert not await runs.afinish("run-e", 7, rec, [(6, b"six")], status="SUCCESS")
        assert await runs.afinish("run-e", 1, rec, [(7, b"seven")], status="SUCCESS", finished=b"seven")
        got = await runs.aget("run-e")
        assert (got.status, got.finished, got.last_seq) == ("SUCCESS", b"seven", 7)
        assert [s for s, _ in await runs.aevents("run-e", 4)] == [5, 6, 7]

    run(go())


def test_events_of_one_write_and_of_many_runs_read_back_each_seq_once(saver: Any) -> None:
    runs = store_of(saver)

    async def go() -> None:
        a, b = record("run-a", keeps_events=True), record("run-b", keeps_events=True)
        for r in (a, b):
            await runs.astart(r)
        await runs.aadd_event_batches([(a, [(1, b"a1"), (2, b"a2"), (3, b"a3")]), (b, [(1, b"b1")])])
        # A second writer of run a (taken over while still writing) writes from seq 1 again and on:
        # the first copies stay, and what only it wrote is kept.
        await runs.aadd_event_batches([(a, [(1, b"again"), (4, b"a4")]), (b, [(2, b"b2"), (3, b"b3")])])
        assert await runs.aevents("run-a", 0) == [(1, b"a1"), (2, b"a2"), (3, b"a3"), (4, b"a4")]
        assert await runs.aevents("run-a", 1, limit=2) == [(2, b"a2"), (3, b"a3")]
        assert await runs.aevents("run-a", 3) == [(4, b"a4")]
        assert await runs.aevents("run-b", 0) == [(1, b"b1"), (2, b"b2"), (3, b"b3")]
        assert [(await runs.aget(r)).last_seq for r in ("run-a", "run-b")] == [4, 3]
        assert await runs.afinish("run-b", 1, b, [(3, b"dup"), (4, b"b4"), (5, b"b5")], status="SUCCESS")
        assert await runs.aevents("run-b", 2) == [(3, b"b3"), (4, b"b4"), (5, b"b5")]

    run(go())


def test_expiry_drops_events_of_runs_ended_before_the_window(saver: Any) -> None:
    runs = store_of(saver)

    async def go() -> None:
        old, new, live = record("old"), record("new"), record("live")
        for r in (old, new, live):
            await runs.astart(r)
            await runs.aadd_events(r, [(1, b"x")])
        await runs.aupdate("old", 1, status="SUCCESS", ended_at=T0 + timedelta(hours=1))
        await runs.aupdate("new", 1, status="SUCCESS", ended_at=T0 + timedelta(hours=3))
        assert await runs.aexpire(T0 + timedelta(hours=2)) == 1
        assert await runs.aevents("old", 0) == []
        assert await runs.aevents("new", 0) == [(1, b"x")] and await runs.aevents("live", 0) == [(1, b"x")]
        assert await runs.aget("old") is not None  # the record stays (it goes with the thread's history)

    run(go())


def test_prune_keeps_active_runs(saver: Any) -> None:
    runs = store_of(saver)

    async def go() -> None:
        for i in range(4):
            await runs.astart(record(f"p{i}", at=T0 + timedelta(seconds=i)))
            if i < 3:
                await runs.aupdate(f"p{i}", 1, status="SUCCESS", ended_at=T0 + timedelta(seconds=i, milliseconds=5))
        assert await runs.aprune("g:t", keep_last=1) == 2  # p0, p1; p2 is the newest ended, p3 is running
        assert [r.run_id for r in await runs.alist("g:t")] == ["p3", "p2"]
        assert await runs.aprune("g:t", ended_before=T0 + timedelta(seconds=10)) == 1
        assert [r.run_id for r in await runs.alist("g:t")] == ["p3"]

    run(go())


def test_delete_takes_one_ended_run_and_its_events(saver: Any) -> None:
    runs = store_of(saver)

    async def go() -> None:
        await runs.astart(record("done", at=T0), [(1, b"a"), (2, b"b")])
        await runs.aupdate("done", 1, status="SUCCESS", ended_at=T0 + timedelta(seconds=1))
        await runs.astart(record("going", at=T0 + timedelta(seconds=2)))
        assert await runs.adelete("going") is False  # still active: kept
        assert await runs.adelete("done") is True
        assert await runs.aget("done") is None and await runs.aevents("done", 0) == []
        assert [r.run_id for r in await runs.alist("g:t")] == ["going"]
        assert await runs.adelete("done") is False  # gone already

    run(go())


def test_orphans_are_active_runs_of_a_gone_replica(saver: Any) -> None:
    runs = store_of(saver)

    async def go() -> None:
        await runs.astart(record("durable", durable=True, replica="gone", epoch=1))
        await runs.astart(record("plain", "g:t2", durable=False, replica="gone", epoch=1))
        await runs.astart(record("ended", "g:t3", durable=True, replica="gone", epoch=1, status="SUCCESS"))
        await runs.astart(record("mine", "g:t4", durable=True, replica="me", epoch=1))
        found = sorted(r.run_id for r in await runs.aorphans("me"))
        if isinstance(saver, PostgresSaver):
            found.remove("mine")  # on PostgreSQL the lease decides, and no lease row says "me" holds g:t4
        assert found == ["durable", "plain"]

    run(go())


def test_the_thread_delete_takes_its_runs(saver: Any) -> None:
    if isinstance(saver, InMemorySaver):
        pytest.skip("MemoryRuns is dropped by the host (forget_thread); no tables to share")
    runs = store_of(saver)
    graph = StateGraph(S).add_node("a", lambda s: {"n": 1}).set_entry_point("a").compile(checkpointer=saver)  # type: ignore[arg-type]

    async def go() -> None:
        cfg = {"configurable": {"thread_id": "g:t"}}
        await graph.ainvoke({}, cfg)
        rec = record("gone-with-thread")
        await runs.astart(rec)
        await runs.aadd_events(rec, [(1, b"x")])
        await runs.astart(record("kept", "g:t2"))
        await saver.adelete_thread("g:t")
        assert await runs.aget("gone-with-thread") is None and await runs.aevents("gone-with-thread", 0) == []
        assert await runs.aget("kept") is not None

    run(go())
