"""Where the SQLite saver's statements run (engine/checkpoint/sqlite/_file.py).

Under a sync call, on the calling thread, as LangGraph's sync SqliteSaver
runs them (hopping to a worker thread and back cost ~130 µs of CPU each, a
quarter of a one-node invoke). Under async callers (a server), in place on
the loop's thread too, as long as a call can start without waiting; a file
another process holds sends the call to the worker thread, and the loop
never waits for it. The saver's lock serializes them either way.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from engine.checkpoint import SqliteSaver
from engine.types import Command
from tests.checkpoint._in_place import graph_on


def test_sqlite_statements_run_in_place_under_sync_and_async_calls(tmp_path: Any) -> None:
    saver = SqliteSaver(str(tmp_path / "in_place.db"))
    try:
        graph = graph_on(saver)
        config = {"configurable": {"thread_id": "t"}}
        assert graph.invoke({"n": 0, "log": []}, config)["n"] == 1
        assert graph.get_state(config).values["n"] == 1
        asyncio.run(graph.ainvoke({"n": 5, "log": []}, {"configurable": {"thread_id": "u"}}))
        # The worker thread starts on its first job: neither caller gave it one.
        assert not saver._worker.started
        assert [s.metadata["source"] for s in graph.get_state_history(config)] == ["loop", "loop", "input"]
        assert graph.get_state({"configurable": {"thread_id": "u"}}).values == {"n": 6, "log": ["inc"]}
    finally:
        saver.close()


def test_a_connection_given_runs_async_calls_on_the_worker(tmp_path: Path) -> None:
    """A connection the caller opened keeps its own settings (its busy timeout): its async calls wait on the worker."""
    conn = sqlite3.connect(tmp_path / "given.db", check_same_thread=False)
    saver = SqliteSaver(conn)
    try:
        asyncio.run(graph_on(saver).ainvoke({"n": 0, "log": []}, {"configurable": {"thread_id": "t"}}))
        assert saver._worker.started
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000  # SQLite's own checkpoints, as given
    finally:
        saver.close()
        conn.close()


def test_a_file_another_connection_holds_sends_async_calls_to_the_worker_and_the_loop_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "held.db"
    saver = SqliteSaver(str(db))
    graph = graph_on(saver)
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)

    async def body() -> None:
        await graph.ainvoke({"n": 0, "log": []}, {"configurable": {"thread_id": "before"}})
        holder.execute("BEGIN EXCLUSIVE")  # another process's transaction, say (graphwire prune, a shell)
        run = asyncio.ensure_future(graph.ainvoke({"n": 0, "log": []}, {"configurable": {"thread_id": "t"}}))
        turns = 0
        while not saver._worker.started:  # the run's first write could not start: the worker waits for the file
            await asyncio.sleep(0)
            turns += 1
            assert turns < 10_000 and not run.done()
        for _ in range(100):  # and the loop goes on meanwhile
            await asyncio.sleep(0)
        assert not run.done()
        holder.execute("ROLLBACK")
        assert await asyncio.wait_for(run, 30) == {"n": 1, "log": ["inc"]}
        # the file free again, calls run in place: the worker's queue is not used
        assert (await graph.ainvoke({"n": 2, "log": []}, {"configurable": {"thread_id": "after"}}))["n"] == 3

    try:
        asyncio.run(body())
        history = list(graph.get_state_history({"configurable": {"thread_id": "t"}}))
        assert [h.metadata["source"] for h in history] == ["loop", "loop", "input"]
    finally:
        holder.close()
        saver.close()


def test_the_wal_is_checkpointed_on_the_worker_as_it_grows(tmp_path: Path) -> None:
    """Automatic checkpoints are off on the file's connection (one would run in a commit, on the loop); the
    worker checkpoints instead, so the WAL does not grow with every write ever made."""
    db = tmp_path / "wal.db"
    saver = SqliteSaver(str(db))
    graph = graph_on(saver)
    page = saver._conn.execute("PRAGMA page_size").fetchone()[0]
    assert saver._conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0

    async def turns(first: int) -> int:
        for i in range(first, first + 300):
            await graph.ainvoke({"n": i, "log": ["x" * 4000]}, {"configurable": {"thread_id": f"t{i}"}})
        await saver._worker.call(lambda: None)  # the checkpoints queued have run
        return (tmp_path / "wal.db-wal").stat().st_size

    try:
        half = asyncio.run(turns(0))
        whole = asyncio.run(turns(300))
        # Each 300 turns write ~2,000 pages (~8 MB) to the WAL: past the first checkpoints it is written over.
        assert saver._worker.started and half > 1000 * page and whole < 1.5 * half, (half, whole)
        assert graph.get_state({"configurable": {"thread_id": "t599"}}).values["n"] == 600
    finally:
        saver.close()
    assert not (tmp_path / "wal.db-wal").exists()  # the last connection's close checkpointed it and removed it


def test_sync_callers_on_many_threads_share_one_sqlite_saver(tmp_path: Any) -> None:
    """Each caller's statements run on its own thread, one at a time: every thread's history is whole."""
    saver = SqliteSaver(str(tmp_path / "shared.db"))
    graph = graph_on(saver, ask=True)
    errors: list[BaseException] = []

    def caller(k: int) -> None:
        try:
            for i in range(15):
                config = {"configurable": {"thread_id": f"c{k}-{i}"}}
                graph.invoke({"n": i, "log": []}, config)
                assert graph.invoke(Command(resume=f"r{k}"), config) == {"n": i + 1, "log": ["inc", f"r{k}"]}
        except BaseException as e:  # reported below, on the test's thread
            errors.append(e)

    threads = [threading.Thread(target=caller, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        for k in range(4):
            for i in range(15):
                history = list(graph.get_state_history({"configurable": {"thread_id": f"c{k}-{i}"}}))
                assert [h.metadata["source"] for h in history] == ["loop", "loop", "loop", "input"]
                assert history[0].values == {"n": i + 1, "log": ["inc", f"r{k}"]}
    finally:
        saver.close()


def test_a_checkpoint_that_holds_writers_off_deadlocks_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Writers of other loops and threads keep the WAL from starting over (each checkpoint sees it longer):
    past ``STUCK`` pages the worker checkpoints again holding the file's lock. Forced on every checkpoint
    here, with an async caller and a sync one writing at once: every turn is stored whole."""
    from engine.checkpoint.sqlite import _file

    monkeypatch.setattr(_file._Checkpoints, "STUCK", -1)
    monkeypatch.setattr(_file._Checkpoints, "FIRST", 4)
    monkeypatch.setattr(_file._Checkpoints, "FEWEST", 4)
    saver = SqliteSaver(str(tmp_path / "stuck.db"))
    graph = graph_on(saver)
    errors: list[BaseException] = []

    def sync_caller() -> None:
        try:
            for i in range(60):
                graph.invoke({"n": i, "log": []}, {"configurable": {"thread_id": f"s{i}"}})
        except BaseException as exc:  # reported on the test's thread
            errors.append(exc)

    async def async_caller() -> None:
        for i in range(60):
            await graph.ainvoke({"n": i, "log": ["x" * 2000]}, {"configurable": {"thread_id": f"a{i}"}})
        await saver._worker.call(lambda: None)

    other = threading.Thread(target=sync_caller)
    other.start()
    try:
        asyncio.run(asyncio.wait_for(async_caller(), 60))
        other.join(60)
        assert errors == [] and not other.is_alive()
        for prefix in ("a", "s"):
            for i in range(60):
                assert graph.get_state({"configurable": {"thread_id": f"{prefix}{i}"}}).values["n"] == i + 1
    finally:
        saver.close()
