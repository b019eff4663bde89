"""Callers that never read a run that bursts cost bounded memory, and it comes back (issue 28 item 2).

The graph is ``burst`` (tests/graphs.py): one sync node writes 24 MB of
custom events in a tight loop, as a model's token stream does. Each caller
opens the stream on a channel whose transport takes no more than its 64 KiB
window (HTTP/2 BDP probing off) and reads nothing more. The server is a real
process (``--max-unsent-bytes`` 4 MiB); its memory is its resident set
(``VmRSS``, and ``VmHWM`` for the peak, reset before the burst where the
system allows). Nothing here measures time: the bursts are bytes, and every
wait polls a condition with a deadline.

* A caller attached to its run (the default; bursts of 96 MB) is cut off at its budget: the
  call ends RESOURCE_EXHAUSTED naming ``max_unsent_bytes`` and the run is
  cancelled. While the bursts run the server stays within the callers'
  budgets plus a fixed overhead; once the calls are over its RSS comes back
  near where it was. Before: the node went on writing after its run was cut
  (a thread cannot be stopped) into a queue nobody drained, every event it
  wrote waited in memory, and gRPC's record of the call's error kept the
  last call's events alive after it ended.
* A caller whose run goes on without it (``on_disconnect = CONTINUE``) is cut
  off the same way, and its run runs to its end with every event stored
  (on SQLite and PostgreSQL): the node waits for the store when it writes
  faster than rows are written, so what waits to be stored counts against
  the same budget.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from graphwire import CustomEvent, RunStatus
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from grpc_health.v1 import health_pb2

from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, require_pg
from tests.conftest import ServerProcess, start_server_process
from tests.graphs import BURST_COUNT, BURST_SIZE
from tests.hardening.conftest import rss_kib
from tests.replicas.conftest import wait_until

BUDGET = 4 * 1024 * 1024
CALLERS = 2
#: What a server may hold beyond its callers' budgets while their bursts run: events in transit (a few
#: hundred KiB), the messages being written, gRPC's buffers and the allocator's slack. It does not grow
#: with the burst (each is 24 MB, six times the budget).
OVERHEAD_KIB = 24 * 1024
#: How far above its RSS before the bursts a server may stay once the calls are over.
COME_BACK_KIB = 12 * 1024
DEADLINE = 120.0
#: A stalled reader's channel: no BDP probing, so HTTP/2 buffers no more than its initial window.
STALLED = [("grpc.http2.bdp_probe", 0), ("grpc.max_receive_message_length", 64 * 1024 * 1024)]
GRAPHS = {"burst": "tests.graphs:burst"}


@pytest.fixture(params=["sqlite", "postgres"])
def storage(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[[str], ServerProcess]]:
    """Start a server with the burst graph and a 4 MiB budget on ``sqlite`` or ``postgres``."""
    started: list[ServerProcess] = []
    schemas: list[str] = []

    def start(kind: str) -> ServerProcess:
        args = ["--max-unsent-bytes", str(BUDGET)]
        if kind == "postgres":
            require_pg()
            schemas.append(new_schema_name())
            srv = start_server_process(tmp_path / kind, graphs=GRAPHS, args=args, pg_dsn=DSN, pg_schema=schemas[-1])
        else:
            srv = start_server_process(tmp_path / kind, graphs=GRAPHS, args=args)
        started.append(srv)
        return srv

    try:
        yield start
    finally:
        try:
            for srv in started:
                assert srv.terminate() == 0, srv.log()
        finally:
            for srv in started:
                if srv.alive():  # it did not stop on SIGTERM: the assertion above says so
                    srv.kill()
            for schema in schemas:
                drop_schema(schema)


def reset_peak(pid: int) -> bool:
    """Start ``VmHWM`` again from the current RSS (``clear_refs`` 5); False where that is not allowed."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def unread_calls(srv: ServerProcess, threads: list[str], count: int, **options: Any) -> list[tuple[grpc.Channel, Any]]:
    """One ``burst`` call of ``count`` events per thread whose caller reads RunStarted, then nothing."""
    calls = []
    for tid in threads:
        channel = grpc.insecure_channel(srv.address, options=STALLED)
        inp = {"count": count, "label": tid}
        request = pb.InvokeRequest(graph="burst", thread_id=tid, input_json=json.dumps(inp), **options)
        # A deadline far beyond the test's waits: the server's status ends the call, not the client's clock.
        call = pb_grpc.GraphServiceStub(channel).Invoke(request, metadata=srv.metadata(), timeout=DEADLINE * 10)
        assert next(call).WhichOneof("event") == "run_started"
        calls.append((channel, call))
    return calls


def burst_while_unread(srv: ServerProcess, threads: list[str], count: int, **options: Any) -> tuple[int, int, list[Any]]:
    """Bursts of ``count`` events on ``threads`` whose callers never read, until their runs ended and
    the calls did: (RSS before, the most RSS since, each run's record), both KiB."""
    with srv.client() as client:  # warm: the paths a cut-off burst takes are loaded before measuring
        client.invoke("burst", "warm-up", {"count": 10}, timeout=DEADLINE)
        # The same kind of call as measured, read once its run ended (a run that goes on stores its whole
        # burst): the connections' buffers and the allocator's arenas reach their working size first.
        warm = unread_calls(srv, ["warm-up-unread"], BURST_COUNT, **options)
        wait_until(lambda: client.list_runs("burst", "warm-up-unread", limit=1, timeout=DEADLINE)[0].ended_at is not None,
                   "the warm-up burst's run to end", timeout=DEADLINE)
        for channel, call in warm:
            with pytest.raises(grpc.RpcError):
                list(call)
            channel.close()
        wait_until(lambda: (srv.gates / "runs-warm-up-unread").exists(), "the warm-up burst's node to end", timeout=DEADLINE)
    before = rss_kib(srv.pid)
    hwm = reset_peak(srv.pid)
    most = before
    calls = unread_calls(srv, threads, count, **options)
    with srv.client() as client:

        def ended() -> list[Any] | None:
            nonlocal most
            most = max(most, rss_kib(srv.pid))
            runs = [client.list_runs("burst", t, limit=1, timeout=DEADLINE)[0] for t in threads]
            return runs if all(r.ended_at is not None for r in runs) else None

        runs = wait_until(ended, "every burst's run to end", timeout=DEADLINE)
    ends = []
    for channel, call in calls:
        with pytest.raises(grpc.RpcError) as cut:
            list(call)
        ends.append(cut.value)
        channel.close()
    # A cancelled run's sync node writes on to its end: all it wrote counts.
    wait_until(lambda: all((srv.gates / f"runs-{t}").exists() for t in threads), "every burst's node to end", timeout=DEADLINE)
    most = max(most, rss_kib(srv.pid))
    if hwm:
        most = max(most, rss_kib(srv.pid, "VmHWM"))
    print(f"\nserver RSS: {before} KiB before, at most {most} KiB while {len(threads)} bursts ran")
    for e in ends:
        assert e.code() is grpc.StatusCode.RESOURCE_EXHAUSTED and f"max_unsent_bytes ({BUDGET} bytes" in (e.details() or ""), e
    return before, most, runs


def comes_back(srv: ServerProcess, before: int) -> int:
    """Wait until the server's RSS is within :data:`COME_BACK_KIB` of ``before``; the RSS then."""
    def back() -> int | None:
        now = rss_kib(srv.pid)
        return now if now - before <= COME_BACK_KIB else None

    try:
        return wait_until(back, "the server's memory to come back", timeout=30)
    except AssertionError:
        raise AssertionError(f"RSS stayed at {rss_kib(srv.pid)} KiB, {before} KiB before the bursts") from None


def test_callers_that_never_read_a_burst_are_cut_off_in_bounded_memory(serve: Callable[[str], ServerProcess], tid: str) -> None:
    srv = serve("sqlite")
    threads = [f"{tid}-{n}" for n in range(CALLERS)]
    before, most, runs = burst_while_unread(srv, threads, 4 * BURST_COUNT)  # 96 MB each, 24 times the budget
    assert most - before <= CALLERS * BUDGET // 1024 + OVERHEAD_KIB, (before, most)
    assert all(r.status is RunStatus.CANCELLED for r in runs), runs
    after = comes_back(srv, before)
    print(f"server RSS: {after} KiB once the calls were over")
    assert srv.health() == health_pb2.HealthCheckResponse.SERVING
    with srv.client() as client:  # each thread takes the next run
        assert client.invoke("burst", threads[0], {"count": 3}, timeout=DEADLINE).values["n"] == 3


def test_a_burst_that_goes_on_without_its_caller_waits_for_its_store(
    serve: Callable[[str], ServerProcess], storage: str, tid: str
) -> None:
    srv = serve(storage)
    threads = [f"{tid}-{n}" for n in range(CALLERS)]
    before, most, runs = burst_while_unread(srv, threads, BURST_COUNT, on_disconnect=pb.ON_DISCONNECT_CONTINUE)
    assert most - before <= CALLERS * BUDGET // 1024 + OVERHEAD_KIB, (before, most)
    # Every event was stored: the run went on to its end, at the store's pace.
    assert all(r.status is RunStatus.SUCCESS and r.last_seq >= BURST_COUNT for r in runs), runs
    with srv.client() as client:
        replay = client.join_run(runs[0].run_id, after_seq=BURST_COUNT - 5, timeout=DEADLINE)
        tokens = [e for e in replay if isinstance(e, CustomEvent)]
    assert tokens and all(len(e.payload["token"]) == BURST_SIZE for e in tokens), tokens
    after = comes_back(srv, before)
    print(f"server RSS: {after} KiB once the calls were over")
