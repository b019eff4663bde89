"""Callers that stop reading their streams (issue 13, items 2 and 3).

* A caller that stops reading does not keep its thread: the run ends, is
  stored, and the thread's slot (and, on PostgreSQL, its lease) is let go at
  once, while the run's events wait for the reader. The next call on the
  thread, on any replica, runs; ``CancelRun`` finds nothing to cancel. The
  reader, reading again, still gets every event up to RunFinished.
* What waits for a reader is bounded: past ``max_unsent_bytes`` the call
  ends with RESOURCE_EXHAUSTED naming it and its run is cancelled, as if the
  caller had gone; the thread keeps its whole versions and takes the next
  run, and health stays SERVING.

The graph is ``bulky`` (tests/graphs.py): three steps whose state is a 2 MB
string, so each step's events are megabytes. The stalled reader's channel
has HTTP/2 BDP probing off, so the transport takes no more than its initial
64 KiB window: what waits is in the server, where the test counts it
(:attr:`server._stream.Streams.calls`, each call's
:class:`~server._outbox.Outbox`), rather than guessing from time or memory.
Servers run in-process (:func:`tests.hardening.conftest.in_process`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from graphwire import AsyncClient, FinishReason
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engine.checkpoint import SqliteSaver
from server.app import Server
from server.config import ServerConfig, load_config
from server._reads import key_of
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, require_pg
from tests.graphs import BULKY_SIZE
from tests.hardening.conftest import in_process, until
from tests.replicas.conftest import wait_until

DEADLINE = 60.0
#: A stalled reader's channel: no BDP probing, so HTTP/2 buffers no more than its initial window.
STALLED = [("grpc.http2.bdp_probe", 0), ("grpc.max_receive_message_length", 64 * 1024 * 1024)]


def bulky_request(tid: str, size: int = BULKY_SIZE) -> pb.InvokeRequest:
    return pb.InvokeRequest(graph="bulky", thread_id=tid, input_json=json.dumps({"size": size}))


async def stalled_call(srv: Server, tid: str) -> tuple[grpc.aio.Channel, Any, str]:
    """An Invoke of ``bulky`` whose caller reads RunStarted, then nothing: (channel, call, run id)."""
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}", options=STALLED)
    # A deadline far beyond the test's own waits: the call must end by the server's status
    # (read only at the end, after every other stalled call), never by the client's clock.
    call = pb_grpc.GraphServiceStub(channel).Invoke(bulky_request(tid), timeout=DEADLINE * 20)
    first = await call.read()
    assert first.WhichOneof("event") == "run_started"
    return channel, call, first.run_id


async def read_rest(call: Any) -> tuple[list[pb.RunEvent], grpc.aio.AioRpcError | None]:
    events = []
    try:
        while (msg := await call.read()) is not grpc.aio.EOF:
            events.append(msg)
    except grpc.aio.AioRpcError as exc:
        return events, exc
    return events, None


async def serving(srv: Server) -> int:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
        return reply.status


async def reader_stops(holder: Server, other: Server, tid: str) -> None:
    key = key_of(None, "bulky", tid)
    channel, call, run_id = await stalled_call(holder, tid)
    async with channel, AsyncClient(f"127.0.0.1:{other.port}") as client:

        def stored() -> bool:
            return holder.service.runs.active(key) is None

        # The run ends and lets the thread go although its caller reads nothing.
        await until(stored, "the run to end and let its thread go")
        waiting = holder.service.streams.calls[run_id]
        assert waiting.unsent > BULKY_SIZE, waiting.unsent  # its events wait, in the server, for the reader
        state = await client.get_state("bulky", tid, timeout=DEADLINE)
        assert state.values["n"] == 3 and not state.next
        assert await client.cancel("bulky", tid, timeout=DEADLINE) is False  # nothing is held
        again = await client.invoke("bulky", tid, {"size": 10}, timeout=DEADLINE)
        assert again.reason is FinishReason.END and again.values == {"size": 10, "n": 6, "blob": "c" * 10}

        events, error = await read_rest(call)
        assert error is None, error
        last = events[-1].run_finished
        assert last.reason == pb.FINISH_REASON_END and len(json.loads(last.values_json)["blob"]) == BULKY_SIZE
        assert [e.seq for e in events] == sorted(e.seq for e in events)
    assert run_id not in holder.service.streams.calls


def test_a_reader_that_stops_reading_does_not_keep_the_thread(tmp_path: Path, tid: str) -> None:
    async def body() -> None:
        async with in_process(SqliteSaver(str(tmp_path / "gw.db")), max_unsent_bytes=256 * 1024 * 1024) as srv:
            await reader_stops(srv, srv, tid)

    asyncio.run(body())


def test_a_reader_that_stops_reading_does_not_keep_the_lease(tid: str) -> None:
    require_pg()
    from engine.checkpoint.postgres import PostgresSaver

    schema = new_schema_name()

    async def body() -> None:
        big = 256 * 1024 * 1024
        async with in_process(PostgresSaver.from_dsn(DSN, schema=schema), max_unsent_bytes=big) as one:
            async with in_process(PostgresSaver.from_dsn(DSN, schema=schema), max_unsent_bytes=big) as two:
                await reader_stops(one, two, tid)

    try:
        asyncio.run(body())
    finally:
        drop_schema(schema)


BUDGET = 4 * 1024 * 1024
NEVER_READERS = 4


def test_readers_that_never_read_are_cut_off_at_the_budget(tmp_path: Path, tid: str) -> None:
    async def body() -> None:
        async with in_process(SqliteSaver(str(tmp_path / "gw.db")), max_unsent_bytes=BUDGET) as srv:
            tids = [f"{tid}-{n}" for n in range(NEVER_READERS)]
            stalled = [await stalled_call(srv, t) for t in tids]
            keys = [key_of(None, "bulky", t) for t in tids]
            # Each call ends while its caller still reads nothing, its run cancelled.
            await until(
                lambda: not any(srv.service.runs.active(k) for k in keys) and not srv.service.streams.calls,
                "every stalled call to end",
            )
            assert srv.service.streams.peak_unsent <= BUDGET  # counted up to the write that completes
            assert await serving(srv) == health_pb2.HealthCheckResponse.SERVING
            async with AsyncClient(f"127.0.0.1:{srv.port}") as client:
                for (channel, call, _), t in zip(stalled, tids):
                    events, error = await read_rest(call)
                    await channel.close()
                    assert error is not None and error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED, (error, len(events))
                    assert "max_unsent_bytes" in error.details() and str(BUDGET) in error.details()
                    assert not any(e.WhichOneof("event") == "run_finished" for e in events)
                    # Cancelled as a disconnect: whole versions stay, and the thread takes the next run.
                    history = await client.history("bulky", t, timeout=DEADLINE)
                    assert history and all(h.values.get("blob", "") in ("", *(c * BULKY_SIZE for c in "abc")) for h in history)
                    done = await client.invoke("bulky", t, {"size": 1}, timeout=DEADLINE)
                    assert done.reason is FinishReason.END and done.values["blob"] == "c"
        assert srv.service.streams.peak_unsent >= BUDGET // 2  # the callers did fall behind

    asyncio.run(body())


def test_the_budget_is_configured_by_file_and_flag(tmp_path: Path, start_server: Callable[..., Any], tid: str) -> None:
    toml = tmp_path / "graphwire.toml"
    toml.write_text("max_unsent_bytes = 1048576\n")
    assert load_config(str(toml)).max_unsent_bytes == 1048576
    assert ServerConfig().max_unsent_bytes == 32 * 1024 * 1024
    for bad in (0, -1, 1.5, True, "32MiB"):
        with pytest.raises(ValueError, match="max_unsent_bytes must be a whole number"):
            load_config(str(toml), {"max_unsent_bytes": bad})
    # The flag reaches a real server: its never-reading caller is cut off at 64 KiB.
    srv = start_server(args=["--max-unsent-bytes", "65536"])
    with grpc.insecure_channel(srv.address, options=STALLED) as channel:
        # As above: a deadline far beyond the test's waits, so the server's status ends the call
        call = pb_grpc.GraphServiceStub(channel).Invoke(bulky_request(tid, size=256 * 1024), timeout=DEADLINE * 20)
        assert next(call).WhichOneof("event") == "run_started"
        wait_until(lambda: "fell behind by more than max_unsent_bytes (65536)" in srv.log(), "the call to be cut off")
        with pytest.raises(grpc.RpcError) as cut:
            list(call)
    assert cut.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED and "max_unsent_bytes (65536" in cut.value.details()
    assert srv.health() == health_pb2.HealthCheckResponse.SERVING
