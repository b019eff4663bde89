"""Crons (engine/checkpoint/_crons.py) on every saver kind, and the five-field schedules they fire on.

Each store test runs on every saver kind (the ``saver`` fixture): memory,
SQLite (migration 0010) and PostgreSQL (migration 0011).
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from engine.checkpoint import InMemorySaver
from engine.host import CronRecord, CronSearch, CronStore, MemoryCrons, crons_of, next_fire, parse_schedule

T0 = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=timezone.utc)


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=timezone.utc)  # type: ignore[misc]


# -- schedules ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("schedule", "after", "expected"),
    [
        ("* * * * *", utc(2026, 1, 2, 3, 4, 5), utc(2026, 1, 2, 3, 5)),
        ("*/15 * * * *", utc(2026, 1, 2, 3, 45), utc(2026, 1, 2, 4, 0)),
        ("0 9 * * mon-fri", utc(2026, 1, 2, 10, 0), utc(2026, 1, 5, 9, 0)),  # Friday after 9: Monday
        ("30 2 1 jan *", utc(2026, 1, 2), utc(2027, 1, 1, 2, 30)),
        ("0 0 29 2 *", utc(2026, 3, 1), utc(2028, 2, 29)),  # the next leap day
        ("0 0 1,15 * 0", utc(2026, 1, 2), utc(2026, 1, 4)),  # both day fields restricted: either matches (Sunday the 4th)
        ("5-10/5 7 * * 7", utc(2026, 1, 3), utc(2026, 1, 4, 7, 5)),  # 7 is Sunday, as 0 is
    ],
)
def test_next_fire(schedule: str, after: datetime, expected: datetime) -> None:
    assert next_fire(schedule, after) == expected


def test_next_fire_in_a_time_zone_and_never() -> None:
    # 09:00 in New York in January is 14:00 UTC
    assert next_fire("0 9 * * *", utc(2026, 1, 2, 15), "America/New_York") == utc(2026, 1, 3, 14)
    assert next_fire("0 0 30 2 *", utc(2026, 1, 1)) is None  # February has no 30th


@pytest.mark.parametrize(
    ("schedule", "named"),
    [("* * * *", "five fields"), ("60 * * * *", "minute"), ("* 24 * * *", "hour"), ("* * 0 * *", "day of month"),
     ("* * * 13 *", "month"), ("* * * * funday", "day of week"), ("*/0 * * * *", "step"), ("5-1 * * * *", "minute")],
)  # fmt: skip
def test_a_bad_schedule_is_refused_naming_the_field(schedule: str, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        parse_schedule(schedule)


# -- the stores -----------------------------------------------------------------------------------
def store_of(saver: Any) -> CronStore:
    store = crons_of(saver)
    assert isinstance(store, MemoryCrons) == isinstance(saver, InMemorySaver)  # a SQL saver carries its own
    return store


def cron(cron_id: str, *, tenant: str = "", nxt: datetime | None = T0, **kw: Any) -> CronRecord:
    return CronRecord(cron_id, "chat", "* * * * *", created_at=T0, updated_at=T0, next_run_date=nxt, tenant=tenant, **kw)


def test_create_get_update_delete_within_a_tenant(saver: Any) -> None:
    store = store_of(saver)

    async def go() -> None:
        made = cron("c1", thread_id="t1", payload={"input": {"label": "x"}}, metadata={"k": 1}, end_time=T0 + timedelta(days=1))
        await store.acreate(made)
        assert await store.aget("", "c1") == made  # times, JSON, the thread survive
        assert await store.aget("other", "c1") is None  # another tenant's: not found
        assert await store.aupdate("other", "c1", {"enabled": False}, T0) is None
        assert not await store.adelete("other", "c1")
        later = T0 + timedelta(seconds=30)
        changed = await store.aupdate("", "c1", {"schedule": "0 * * * *", "enabled": False}, later)
        assert changed is not None and changed.enabled is False and changed.updated_at == later
        assert changed.next_run_date == utc(2026, 1, 2, 4, 0)  # a new schedule moves the next firing
        assert await store.aget("", "c1") == changed
        with pytest.raises(ValueError, match="cron_id"):
            await store.aupdate("", "c1", {"cron_id": "c2"}, later)
        assert await store.adelete("", "c1")
        assert await store.aget("", "c1") is None

    asyncio.run(go())


def test_search_and_count(saver: Any) -> None:
    store = store_of(saver)

    async def go() -> None:
        for i in range(4):
            await store.acreate(cron(f"c{i}", thread_id="t1" if i % 2 else None, metadata={"n": i}, enabled=i != 3, nxt=T0 + timedelta(minutes=i)))
        await store.acreate(cron("theirs", tenant="b"))
        assert {c.cron_id for c in await store.asearch(CronSearch(limit=None))} == {"c0", "c1", "c2", "c3"}
        assert [c.cron_id for c in await store.asearch(CronSearch(thread_id="t1", sort_by="cron_id", descending=False))] == ["c1", "c3"]
        assert [c.cron_id for c in await store.asearch(CronSearch(metadata={"n": 2}))] == ["c2"]
        assert [c.cron_id for c in await store.asearch(CronSearch(sort_by="next_run_date", limit=2, offset=1))] == ["c2", "c1"]
        assert await store.acount(CronSearch(enabled=True)) == 3
        assert await store.acount(CronSearch(tenant="b")) == 1

    asyncio.run(go())


def test_a_claim_takes_each_due_firing_once_and_moves_it_on(saver: Any) -> None:
    store = store_of(saver)

    async def go() -> None:
        await store.acreate(cron("due", nxt=T0))
        await store.acreate(cron("later", nxt=T0 + timedelta(hours=1)))
        await store.acreate(cron("off", nxt=T0, enabled=False))
        await store.acreate(cron("ending", nxt=T0, end_time=T0 + timedelta(seconds=10), tenant="b"))
        at = T0 + timedelta(seconds=1)
        claims = await asyncio.gather(*(store.aclaim_due(at) for _ in range(4)))  # claiming at once
        claimed = sorted(c.cron_id for found in claims for c in found)
        assert claimed == ["due", "ending"]  # each once, whichever claim took it
        assert [c.next_run_date for found in claims for c in found] == [T0, T0]  # as claimed: the firing taken
        assert await store.aclaim_due(at) == []
        due = await store.aget("", "due")
        assert due is not None and due.next_run_date == utc(2026, 1, 2, 3, 5)
        ending = await store.aget("b", "ending")
        assert ending is not None and ending.next_run_date is None  # its next firing is past its end
        assert [c.cron_id for c in await store.aclaim_due(utc(2026, 1, 2, 3, 5))] == ["due"]

    asyncio.run(go())
