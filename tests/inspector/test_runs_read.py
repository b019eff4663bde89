"""What the calls time line reads (issue 28 item 3): the page polls ``/api/runs`` every second
while a run is open, so the read asks for what it draws, the newest :data:`DRAWN` runs without
their final states, however many runs the thread has (it used to read them all, whole)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

from engine.checkpoint import SqliteSaver
from engine.checkpoint._runs import RunRecord
from server._reads import key_of
from server._records import now
from server.inspector._runs import DRAWN, ServiceRuns
from tests.hardening.conftest import in_process


def test_the_time_line_reads_the_newest_runs_it_draws(tmp_path: Path) -> None:
    async def body() -> None:
        async with in_process(SqliteSaver(str(tmp_path / "gw.db"))) as srv:
            store, t0, key = srv.service.records.store, now(), key_of(None, "chain3", "long")
            for i in range(DRAWN + 5):
                run_id = f"run-{i:04d}"
                await store.astart(RunRecord(run_id, key, "chain3", "long", "Invoke", "RUNNING", "r", t0 + timedelta(seconds=i)))
                await store.aupdate(run_id, 1, status="SUCCESS", ended_at=t0 + timedelta(seconds=i), finished=b"")
            drawn = await ServiceRuns(srv.service).list_runs("chain3", "long")
            assert [r.run_id for r in drawn] == [f"run-{i:04d}" for i in range(DRAWN + 4, 4, -1)]  # the newest, newest first

    asyncio.run(body())
