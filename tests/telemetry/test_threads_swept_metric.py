"""The thread sweeper's counter, ``graphwire.threads.swept`` (issue 33 item 2), in process (the SDK is the test's):
one per thread swept, by strategy and graph."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import grpc
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

from engine.checkpoint import SqliteSaver
from tests.hardening.conftest import in_process


def _swept(otel: Any) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    data = otel.metric_reader.get_metrics_data()
    for rm in data.resource_metrics if data is not None else ():
        for sm in rm.scope_metrics:
            for m in sm.metrics:
                if m.name == "graphwire.threads.swept":
                    for p in m.data.data_points:
                        out[(p.attributes["strategy"], p.attributes["graph"])] = p.value
    return out


def test_each_swept_thread_counts_once(otel: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHWIRE_TEST_GATES", str(tmp_path))
    before = _swept(otel)

    async def body() -> None:
        async with in_process(SqliteSaver(str(tmp_path / "gw.db")), thread_sweep_seconds=3600.0) as srv:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
                stub = pb_grpc.GraphServiceStub(channel)
                for i, strategy in enumerate([pb.TTL_STRATEGY_DELETE, pb.TTL_STRATEGY_DELETE, pb.TTL_STRATEGY_KEEP_LATEST]):
                    ttl = pb.ThreadTtl(seconds=10, strategy=strategy)
                    await stub.CreateThread(pb.CreateThreadRequest(graph="chain3", thread_id=f"t{i}", ttl=ttl), timeout=30)
            assert await srv.service.thread_sweeper.sweep(at=datetime.now(timezone.utc) + timedelta(hours=1)) == 3

    asyncio.run(body())
    after = _swept(otel)
    assert after.get(("delete", "chain3"), 0) - before.get(("delete", "chain3"), 0) == 2
    assert after.get(("keep_latest", "chain3"), 0) - before.get(("keep_latest", "chain3"), 0) == 1
