"""Where the SQLite cache's statements run (engine/cache/sqlite/_cache.py).

From an event loop a lookup runs on the loop's thread when the connection is
free (a hop to the worker thread and back cost ~60 µs of a ~80 µs lookup) and
writes run on the worker; under a sync call every statement runs on the
calling thread. A connection busy on the worker sends a lookup there: the loop
never waits for it.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from engine.cache.sqlite import SqliteCache

KEY = (("n",), "k")


def _traced(cache: SqliteCache) -> list[tuple[str, int]]:
    """(statement's first word, thread) of each statement the cache's connection runs from now on."""
    seen: list[tuple[str, int]] = []
    assert cache._conn is not None
    cache._conn.set_trace_callback(lambda sql: seen.append((sql.split()[0].upper(), threading.get_ident())))
    return seen


def test_lookups_from_a_loop_run_on_it_and_writes_on_the_worker(tmp_path: Path) -> None:
    cache = SqliteCache(path=tmp_path / "c.db")
    try:
        seen = _traced(cache)

        async def body() -> tuple[int, dict[object, object]]:
            await cache.aset({KEY: ({"v": 1}, None)})
            return threading.get_ident(), await cache.aget([KEY])

        loop_thread, found = asyncio.run(body())
        assert found == {KEY: {"v": 1}}
        writes = {t for word, t in seen if word in ("BEGIN", "INSERT", "COMMIT")}
        reads = {t for word, t in seen if word == "SELECT"}
        assert reads == {loop_thread}, seen
        assert writes and loop_thread not in writes, seen
    finally:
        cache.close()


def test_under_a_sync_call_every_statement_runs_on_the_calling_thread(tmp_path: Path) -> None:
    cache = SqliteCache(path=tmp_path / "c.db")
    try:
        seen = _traced(cache)
        cache.set({KEY: ("x", None)})
        assert cache.get([KEY]) == {KEY: "x"}
        assert cache.sweep() == 0
        assert seen and {t for _, t in seen} == {threading.get_ident()}, seen
    finally:
        cache.close()


def test_a_lookup_while_the_connection_is_busy_waits_on_the_worker_and_the_loop_goes_on(tmp_path: Path) -> None:
    cache = SqliteCache(path=tmp_path / "c.db")
    try:
        cache.set({KEY: (7, None)})
        seen = _traced(cache)

        async def body() -> None:
            with cache._lock:  # the connection in use elsewhere (the worker writing, say)
                lookup = asyncio.ensure_future(cache.aget([KEY]))
                for _ in range(100):  # the loop goes on meanwhile
                    await asyncio.sleep(0)
                assert not lookup.done() and not seen
            assert await lookup == {KEY: 7}
            assert seen and all(t != threading.get_ident() for _, t in seen), seen  # the worker ran it

        asyncio.run(body())
    finally:
        cache.close()
