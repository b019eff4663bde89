"""A delayed run's start (server/http/_delayed.py) taken twice: its starter died after starting it and before
removing its row, so the row is claimed again. The second start finds the run the first started (its request
id, ``delayed-<run_id>``) and starts nothing: the node ran once, under the run's id, one record.

In process: a graphwire service on SQLite in the test's event loop, the starter called as the scheduler calls it.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

import pytest

from engine.checkpoint import SqliteSaver
from engine.host import DelayedRun
from server._records import now
from server._run_api import join_events
from server._reads import thread_key
from server.app import build_server
from server.config import ServerConfig
from server.http._delayed import DelayedStarter
from tests.http._options_graphs import GRAPHS


def test_a_second_start_of_a_delayed_run_starts_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHWIRE_TEST_GATES", str(tmp_path))
    module = tmp_path / f"options_{uuid.uuid4().hex[:8]}.py"
    module.write_text(GRAPHS.replace("from langgraph.", "from engine."))

    async def body() -> None:
        config = ServerConfig(address="127.0.0.1:0", graphs={"tagged": f"{module}:tagged"})
        srv = await build_server(config, checkpointer=SqliteSaver(str(tmp_path / "gw.db")))
        try:
            at = now()
            asked = {"assistant_id": "tagged", "input": {"label": "twice"}, "if_not_exists": "create"}
            row = DelayedRun(str(uuid.uuid4()), "", "t1", json.dumps(asked), at, at)
            start, delayed = DelayedStarter(srv.service), srv.service.delayed
            await delayed.aadd(row)
            await start(row)
            assert await delayed.aget(row.run_id) is None  # started: its record takes over
            await delayed.aadd(row)  # as if its starter had died before removing it: claimed again
            await start(row)
            assert await delayed.aget(row.run_id) is None
            events = [e async for e in join_events(srv.service, row.run_id)]
            assert events[0].run_id == row.run_id and events[-1].HasField("run_finished")
            records = await srv.service.records.store.alist(thread_key("tagged", "t1"), limit=10, full=True)
            assert [r.run_id for r in records] == [row.run_id]
            assert (tmp_path / "ran-twice").read_text() == "1"
        finally:
            await srv.stop(grace=5)

    asyncio.run(body())
