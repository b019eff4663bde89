"""SQLite: a run's last versions stored with its end, in one transaction (``SqliteRuns.afinish(..., versions=)``).

The engine hands a run's last write to a host that takes it (``Landing(takes_last=True)``,
engine/pregel/_landing.py), prepared by the saver (``prepare_many``); the file's run store writes
the run's end (its record, its last events, its thread's mark) in the versions' transaction
(engine/checkpoint/sqlite/_prepared.py). PostgreSQL's counterpart:
tests/checkpoint/test_run_end_with_versions.py; the server's side: tests/server/test_version_linger.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from engine.checkpoint import SqliteSaver
from engine.host import Landing, LastWrite, RunRecord, ThreadMark, ThreadRecord
from tests.checkpoint.test_run_end_with_versions import THREAD, _chain
from tests.checkpoint.test_runs import T0, record

def _last_write(saver: SqliteSaver, puts: list[tuple[Any, ...]]) -> tuple[LastWrite, Landing]:
    landing = Landing(takes_last=True)
    last = LastWrite(saver.prepare_many(puts), puts[-1][1]["id"], landing, {})
    landing.last = last
    return last, landing


def _thread() -> ThreadRecord:
    return ThreadRecord(THREAD, "g", "t", T0, T0)


def _stored_ids(saver: SqliteSaver) -> list[str]:
    return [t.checkpoint["id"] for t in saver.list({"configurable": {"thread_id": THREAD, "checkpoint_ns": ""}})]


class _Transactions:
    """The transactions begun on the saver's connection."""

    def __init__(self, saver: SqliteSaver) -> None:
        self.n = 0
        saver._conn.set_trace_callback(self._seen)

    def _seen(self, sql: str) -> None:
        self.n += sql.startswith("BEGIN")


async def _started(saver: SqliteSaver) -> RunRecord:
    assert await saver.runs.astart(record("run-1"), mark=ThreadMark(_thread(), T0, status="busy")) is None
    rec = await saver.runs.aget("run-1")
    assert rec is not None
    return rec


@pytest.fixture
def saver(tmp_path: Path) -> Any:
    saver = SqliteSaver(str(tmp_path / "end.db"))
    yield saver
    saver.close()


def test_a_runs_last_versions_and_its_end_are_one_transaction(saver: SqliteSaver) -> None:
    runs = saver.runs

    async def go() -> None:
        rec = await _started(saver)
        puts = _chain(None, 3)
        last, landing = _last_write(saver, puts)
        begun = _Transactions(saver)
        ok = await runs.afinish(
            "run-1", 1, rec, [(1, b"e1"), (2, b"end")], status="SUCCESS", last_seq=2,
            mark=ThreadMark(_thread(), T0, status="idle"), versions=last,
        )  # fmt: skip
        assert ok and begun.n == 1
        assert landing.newest == puts[-1][1]["id"] and landing.last is None
        assert _stored_ids(saver) == [p[1]["id"] for p in reversed(puts)]
        got = await runs.aget("run-1")
        assert got is not None and (got.status, got.last_seq) == ("SUCCESS", 2)
        assert await runs.aevents("run-1", 0) == [(1, b"e1"), (2, b"end")]
        thread = await runs.threads.aget(THREAD)  # type: ignore[union-attr]
        assert thread is not None and thread.status == "idle"
        # the delta cache learned the versions: the next one is a delta of them, and reads back whole
        (nxt,) = _chain(None, 1, puts[-1][1]["id"], start=3)
        await saver.aput(*nxt)
        assert saver.get({"configurable": {"thread_id": THREAD}})["channel_values"]["items"] == nxt[1]["channel_values"]["items"]  # type: ignore[index]

    asyncio.run(go())


def test_an_end_that_fails_stores_neither_its_versions_nor_itself(saver: SqliteSaver, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = saver.runs

    async def go() -> None:
        rec = await _started(saver)
        puts = _chain(None, 2)
        last, landing = _last_write(saver, puts)
        assert runs.threads is not None

        def broken(cur: Any, mark: ThreadMark) -> None:
            raise RuntimeError("the mark could not be written")

        monkeypatch.setattr(runs.threads, "mark_in", broken)
        with pytest.raises(RuntimeError, match="could not be written"):
            await runs.afinish("run-1", 1, rec, [(1, b"end")], status="SUCCESS", mark=ThreadMark(_thread(), T0), versions=last)
        monkeypatch.undo()
        assert _stored_ids(saver) == [] and not landing.newest  # all or none
        got = await runs.aget("run-1")
        assert got is not None and got.status == rec.status and await runs.aevents("run-1", 0) == []
        # the cache forgot what it assumed: the same versions stored again read back whole
        await saver.aput_many(_chain(None, 2))
        assert saver.get({"configurable": {"thread_id": THREAD}})["channel_values"]["n"] == 1  # type: ignore[index]

    asyncio.run(go())


def test_an_attempt_that_lost_its_run_still_stores_the_versions(saver: SqliteSaver) -> None:
    """As PostgreSQL's: the end's update is refused (another attempt holds the run), the versions are the thread's."""
    runs = saver.runs

    async def go() -> None:
        rec = await _started(saver)
        puts = _chain(None, 2)
        last, landing = _last_write(saver, puts)
        ok = await runs.afinish("run-1", 7, rec, [(1, b"end")], status="SUCCESS", last_seq=1, versions=last)
        assert not ok and landing.newest == puts[-1][1]["id"]
        assert _stored_ids(saver) == [p[1]["id"] for p in reversed(puts)]
        got = await runs.aget("run-1")
        assert got is not None and got.status == rec.status and got.last_seq == 1  # its events' seq moved as ever

    asyncio.run(go())
