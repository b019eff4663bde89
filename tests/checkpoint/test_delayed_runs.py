"""Delayed runs' rows (engine/checkpoint/_delayed.py) on every saver kind: claimed once until their hold ends,
ended once, listed by thread and tenant."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import Any

from engine.checkpoint import InMemorySaver
from engine.host import DelayedRun, DelayedRuns, MemoryDelayed, delayed_of

T0 = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=timezone.utc)


def store_of(saver: Any) -> DelayedRuns:
    store = delayed_of(saver)
    assert isinstance(store, MemoryDelayed) == isinstance(saver, InMemorySaver)
    return store


def test_claimed_once_held_ended_and_done(saver: Any) -> None:
    store = store_of(saver)

    async def go() -> None:
        await store.aadd(DelayedRun("r1", "ann", "t1", '{"assistant_id": "g"}', T0, T0))
        await store.aadd(DelayedRun("r2", "ann", "t1", "{}", T0 + timedelta(minutes=5), T0 + timedelta(seconds=1)))
        await store.aadd(DelayedRun("r3", "bob", "t1", "{}", T0, T0))
        claims = await asyncio.gather(*(store.aclaim_due(T0, 10.0) for _ in range(3)))
        taken = sorted(r.run_id for found in claims for r in found)
        assert taken == ["r1", "r3"]  # each once, however many claim at once; r2 is not due
        assert await store.aclaim_due(T0 + timedelta(seconds=9), 10.0) == []  # held
        again = await store.aclaim_due(T0 + timedelta(seconds=10), 10.0, limit=1)  # its starter never came back
        assert [(r.run_id, r.tenant, r.thread_id, r.status) for r in again] == [("r1", "ann", "t1", "pending")]
        found = await store.aget("r1")
        assert found is not None and found.body.replace(" ", "") == '{"assistant_id":"g"}'
        assert [r.run_id for r in await store.alist("ann", "t1")] == ["r2", "r1"]  # newest first, that tenant's
        assert await store.aend("r3", "cancelled") and not await store.aend("r3", "error")  # ended once
        ended = await store.aget("r3")
        assert ended is not None and ended.status == "cancelled"
        assert [r.run_id for r in await store.aclaim_due(T0 + timedelta(hours=1), 10.0)] == ["r1", "r2"]  # not r3
        await store.adone("r1")
        assert await store.aget("r1") is None and not await store.aend("r1", "cancelled")

    asyncio.run(go())
