"""The PostgreSQL saver under a sync call runs its statements on the calling thread.

LangGraph's sync PostgresSaver does; ours handed every statement to a worker
thread and back (~100 µs of CPU each way, two or more an invoke). A sync call
takes its connection from the saver's own pool, so the connections stay one
set per saver; async callers (a server's loop) keep to the worker threads, off
their loop.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from typing import Any

import psycopg
import pytest

from engine.checkpoint.postgres import PostgresSaver
from engine.types import Command
from tests.checkpoint._in_place import graph_on
from tests.checkpoint._pg import dsn_named
from tests.checkpoint.test_postgres import wait_for_no_connections

pytestmark = pytest.mark.usefixtures("pg_dsn")


def test_statements_run_in_place_under_a_sync_call_and_on_a_worker_under_async(pg_schema: str) -> None:
    saver = PostgresSaver.from_dsn(dsn_named("gw_in_place"), schema=pg_schema)
    try:
        graph = graph_on(saver)
        config = {"configurable": {"thread_id": f"t-{uuid.uuid4().hex}"}}
        assert graph.invoke({"n": 0, "log": []}, config)["n"] == 1
        assert graph.get_state(config).values["n"] == 1
        assert saver._conns._threads == set()  # a worker starts on its first job: a sync caller gave it none
        asyncio.run(graph.ainvoke({"n": 5, "log": []}, {"configurable": {"thread_id": f"u-{uuid.uuid4().hex}"}}))
        assert len(saver._conns._threads) >= 1
        assert [s.metadata["source"] for s in graph.get_state_history(config)] == ["loop", "loop", "input"]
    finally:
        saver.close()


def test_sync_callers_on_many_threads_share_one_saver_and_its_connections(pg_schema: str, pg_admin: psycopg.Connection[Any]) -> None:
    """Four threads, two connections: each caller waits for one of the pool's; every history is whole."""
    app = f"gw_test_{uuid.uuid4().hex[:8]}"
    saver = PostgresSaver.from_dsn(dsn_named(app), schema=pg_schema, max_size=2, timeout=30)
    graph = graph_on(saver, ask=True)
    errors: list[BaseException] = []

    def caller(k: int) -> None:
        try:
            for i in range(10):
                config = {"configurable": {"thread_id": f"c{k}-{i}-{uuid.uuid4().hex[:6]}"}}
                graph.invoke({"n": i, "log": []}, config)
                assert graph.invoke(Command(resume=f"r{k}"), config) == {"n": i + 1, "log": ["inc", f"r{k}"]}
        except BaseException as e:  # noqa: BLE001 - reported below, on the test's thread
            errors.append(e)

    threads = [threading.Thread(target=caller, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        sessions = pg_admin.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (app,)).fetchone()
        assert sessions is not None and sessions[0] <= 2
    finally:
        saver.close()
    assert wait_for_no_connections(pg_admin, app) == 0  # close() closed what the sync callers used


def test_a_sync_call_whose_connection_the_server_dropped_goes_on_on_another(
    pg_schema: str, pg_admin: psycopg.Connection[Any]
) -> None:
    app = f"gw_test_{uuid.uuid4().hex[:8]}"
    saver = PostgresSaver.from_dsn(dsn_named(app), schema=pg_schema, min_size=1, max_size=1)
    try:
        graph = graph_on(saver)
        config = {"configurable": {"thread_id": f"t-{uuid.uuid4().hex}"}}
        graph.invoke({"n": 0, "log": []}, config)
        pg_admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s", (app,))
        assert graph.get_state(config).values["n"] == 1  # its one connection is dead: read again on a new one
        assert graph.invoke({"n": 10, "log": []}, config)["n"] == 11
    finally:
        saver.close()
