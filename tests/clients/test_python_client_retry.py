"""Both Python clients' retries and re-joins, against an in-process fake server.

The fake fails on purpose, exactly where a test needs it (UNAVAILABLE before
the first event, or after some events), and records every request, so these
tests pin the client's side: one ``request_id`` per logical call, sent with
every attempt; the attempt bound; no retry once events arrived unless the
run continues without its caller, and then ``JoinRun`` from the last seq with
every event seen once. tests/e2e/test_durable_clients.py does the same
through a TCP proxy against the real server.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import graphwire
import grpc
import pytest
from graphwire import FinishReason, Retry, RunFinished, RunStarted, RunStatus
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc
from google.protobuf.timestamp_pb2 import Timestamp

FAST = Retry(attempts=4, initial_backoff=0.001, max_backoff=0.01)


def _event(seq: int, run_id: str = "r1") -> pb.RunEvent:
    if seq == 1:
        return pb.RunEvent(seq=1, run_id=run_id, run_started=pb.RunStarted(run_id=run_id, thread_id="t", graph="g"))
    if seq == 5:
        return pb.RunEvent(seq=5, run_id=run_id, run_finished=pb.RunFinished(reason=pb.FINISH_REASON_END, values_json="{}"))
    return pb.RunEvent(seq=seq, run_id=run_id, custom=pb.Custom(step=seq, node="n", payload_json=str(seq)))


class FlakyService(pb_grpc.GraphServiceServicer):
    """Threads named ``flaky-N`` fail their first N calls; ``drops`` loses its stream after seq 3."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: list[Any] = []
        self.failures: dict[str, int] = {}

    def _fail_first(self, rpc: str, thread_id: str, context: grpc.ServicerContext) -> None:
        with self.lock:
            n = self.failures.get(rpc + thread_id, 0)
            self.failures[rpc + thread_id] = n + 1
        if thread_id.startswith("flaky-") and n < int(thread_id.removeprefix("flaky-")):
            context.abort(grpc.StatusCode.UNAVAILABLE, f"attempt {n + 1} dropped")

    def Invoke(self, request: pb.InvokeRequest, context: grpc.ServicerContext) -> Iterator[pb.RunEvent]:
        self.requests.append(request)
        self._fail_first("Invoke", request.thread_id, context)
        if request.background:
            yield _event(1)
            return
        for seq in range(1, 6):
            if request.thread_id == "drops" and seq == 4:
                context.abort(grpc.StatusCode.UNAVAILABLE, "Connection reset by peer")
            yield _event(seq)

    def JoinRun(self, request: pb.JoinRunRequest, context: grpc.ServicerContext) -> Iterator[pb.RunEvent]:
        self.requests.append(request)
        joins = sum(isinstance(r, pb.JoinRunRequest) for r in self.requests)
        if joins == 1:  # the first join fails too, before anything
            context.abort(grpc.StatusCode.UNAVAILABLE, "no route")
        # Replays one event the caller already has (a server may), then the rest.
        for seq in range(max(1, request.after_seq), 6):
            yield _event(seq, request.run_id)

    def GetState(self, request: pb.GetStateRequest, context: grpc.ServicerContext) -> pb.StateSnapshot:
        self.requests.append(request)
        self._fail_first("GetState", request.thread_id, context)
        return pb.StateSnapshot(values_json="{}", checkpoint=pb.CheckpointRef(checkpoint_id="c1"))

    def UpdateState(self, request: pb.UpdateStateRequest, context: grpc.ServicerContext) -> pb.UpdateStateResponse:
        self.requests.append(request)
        self._fail_first("UpdateState", request.thread_id, context)
        return pb.UpdateStateResponse(checkpoint=pb.CheckpointRef(checkpoint_id="c2", source="update"))

    def GetRun(self, request: pb.GetRunRequest, context: grpc.ServicerContext) -> pb.RunInfo:
        self.requests.append(request)
        return pb.RunInfo(
            run_id=request.run_id, thread_id="t", graph="g", status=pb.RUN_STATUS_INTERRUPTED, replica="h:1:ab",
            attempts=2, call="Resume", call_json='{"resume": "yes"}', reason=pb.FINISH_REASON_INTERRUPT,
            interrupts=[pb.Interrupt(interrupt_id="i1", node="ask", value_json='"Sure?"')], last_seq=9,
            on_disconnect=pb.ON_DISCONNECT_CONTINUE, started_at=Timestamp(seconds=1_800_000_000),
            ended_at=Timestamp(seconds=1_800_000_042),
        )  # fmt: skip

    def ListRuns(self, request: pb.ListRunsRequest, context: grpc.ServicerContext) -> pb.ListRunsResponse:
        self.requests.append(request)
        return pb.ListRunsResponse(runs=[pb.RunInfo(run_id="r2", status=pb.RUN_STATUS_RUNNING), pb.RunInfo(run_id="r1")])


@pytest.fixture
def service() -> FlakyService:
    return FlakyService()


@pytest.fixture
def address(service: FlakyService) -> Iterator[str]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    pb_grpc.add_GraphServiceServicer_to_server(service, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(grace=None)


def test_backoff_grows_is_capped_and_jittered() -> None:
    policy = Retry(initial_backoff=0.1, max_backoff=1.0, multiplier=2.0, jitter=0.25)
    rand = random.Random(7)
    waits = [policy.backoff(n, rand) for n in range(1, 8) for _ in range(20)]
    for n in range(1, 8):
        nominal = min(1.0, 0.1 * 2 ** (n - 1))
        for wait in waits[(n - 1) * 20 : n * 20]:
            assert nominal * 0.75 <= wait <= min(1.0, nominal * 1.25)
    assert len(set(waits)) > 100  # spread, not one value per retry
    with pytest.raises(ValueError, match="attempts"):
        Retry(attempts=0)


def test_a_run_call_is_retried_with_one_request_id(address: str, service: FlakyService) -> None:
    with graphwire.Client(address, retry=FAST) as client:
        result = client.invoke("g", "flaky-2", {"x": 1})
        assert result.reason is FinishReason.END
        mine = client.invoke("g", "flaky-1", {"x": 1}, request_id="my-call-7")
    first, second, third, *rest = service.requests
    assert first.request_id == second.request_id == third.request_id and len(first.request_id) == 36
    assert [r.request_id for r in rest] == ["my-call-7", "my-call-7"]
    assert mine.run_id == "r1"


def test_attempts_are_bounded_and_retry_can_be_turned_off(address: str, service: FlakyService) -> None:
    with graphwire.Client(address, retry=FAST) as client:
        with pytest.raises(graphwire.Unavailable, match="attempt 4 dropped"):
            client.invoke("g", "flaky-9", None)
        assert len(service.requests) == 4
        with pytest.raises(graphwire.Unavailable, match="attempt 1 dropped"):
            client.invoke("g", "flaky-1", None, retry=False)
    assert service.requests[-1].request_id == ""  # no retry: no generated id
    with graphwire.Client(address, retry=False) as client:
        with pytest.raises(graphwire.Unavailable):
            client.update_state("g", "flaky-3", {"x": 1})
    assert service.requests[-1].request_id == ""


def test_the_timeout_bounds_the_whole_call(address: str, service: FlakyService) -> None:
    patient = Retry(attempts=1000, initial_backoff=0.05, max_backoff=0.05, jitter=0)
    with graphwire.Client(address, retry=patient) as client:
        with pytest.raises(graphwire.Unavailable):
            client.invoke("g", "flaky-1000", None, timeout=0.5)
    assert len(service.requests) < 1000


def test_reads_and_update_state_are_retried(address: str, service: FlakyService) -> None:
    with graphwire.Client(address, retry=FAST) as client:
        assert client.get_state("g", "flaky-2").checkpoint.checkpoint_id == "c1"
        assert client.update_state("g", "flaky-2", {"x": 1}).checkpoint_id == "c2"
    updates = [r for r in service.requests if isinstance(r, pb.UpdateStateRequest)]
    assert len(updates) == 3 and len({u.request_id for u in updates}) == 1 and updates[0].request_id


def test_a_dropped_stream_of_a_continuing_run_is_joined_again(address: str, service: FlakyService) -> None:
    with graphwire.Client(address, retry=FAST) as client:
        run = client.stream("g", "drops", None, on_disconnect="continue")
        events = list(run)
    assert [e.seq for e in events] == [1, 2, 3, 4, 5]
    assert isinstance(events[0], RunStarted) and isinstance(events[-1], RunFinished)
    assert (run.run_id, run.seq, run.calls) == ("r1", 5, 3)  # the call, a failed join, a join
    invoke, *joins = service.requests
    assert invoke.on_disconnect == pb.ON_DISCONNECT_CONTINUE
    assert [(j.run_id, j.after_seq) for j in joins] == [("r1", 3), ("r1", 3)]


def test_a_dropped_stream_of_a_cancelled_run_raises(address: str, service: FlakyService) -> None:
    with graphwire.Client(address, retry=FAST) as client:
        run = client.stream("g", "drops", None)
        seen = []
        with pytest.raises(graphwire.Unavailable, match="reset"):
            for event in run:
                seen.append(event.seq)
    assert seen == [1, 2, 3] and len(service.requests) == 1  # no retry, no join: that run is gone


def test_async_client_retries_and_rejoins(address: str, service: FlakyService) -> None:
    async def body() -> tuple[Any, Any]:
        async with graphwire.AsyncClient(address, retry=FAST) as client:
            result = await client.invoke("g", "flaky-3", None)
            run = client.stream("g", "drops", None, on_disconnect="continue")
            return result, [e.seq async for e in run]

    result, seqs = asyncio.run(body())
    assert result.reason is FinishReason.END and seqs == [1, 2, 3, 4, 5]
    assert len({r.request_id for r in service.requests[:4]}) == 1


def test_background_runs_are_followed_by_join_run(address: str, service: FlakyService) -> None:
    with graphwire.Client(address, retry=FAST) as client:
        with pytest.raises(ValueError, match="background"):
            client.invoke("g", "t", None, background=True)
        run = client.stream("g", "t", None, background=True)
        assert [type(e) for e in run] == [RunStarted] and run.run_id == "r1"
        with pytest.raises(graphwire.Unknown, match="without a RunFinished"):
            run.result()
        joined = client.join_run(run.run_id, after_seq=run.seq)
        result = joined.result()
    assert result.reason is FinishReason.END and [e.seq for e in result.events] == [2, 3, 4, 5]
    assert service.requests[-1].after_seq == 1 and service.requests[0].background


def test_get_run_and_list_runs(address: str) -> None:
    with graphwire.Client(address) as client:
        info = client.get_run("r7")
        runs = client.list_runs("g", "t", limit=2)
    assert (info.run_id, info.status, info.attempts, info.replica) == ("r7", RunStatus.INTERRUPTED, 2, "h:1:ab")
    assert info.call == "Resume" and info.call_args == {"resume": "yes"} and info.last_seq == 9
    assert info.reason is FinishReason.INTERRUPT and info.interrupts[0].value == "Sure?" and info.ended
    assert info.on_disconnect is graphwire.OnDisconnect.CONTINUE and info.request_id is None
    assert info.started_at is not None and info.ended_at is not None
    assert (info.ended_at - info.started_at).total_seconds() == 42 and info.started_at.tzinfo is not None
    assert [(r.run_id, r.status) for r in runs] == [("r2", RunStatus.RUNNING), ("r1", RunStatus.UNSPECIFIED)]
    assert runs[0].reason is None and not runs[0].ended
