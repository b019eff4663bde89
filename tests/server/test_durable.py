"""Durable turns on one server with its SQLite file (issue 20): request_id
retries, JoinRun, on_disconnect = CONTINUE, background runs, GetRun and
ListRuns, and a retry after the server was killed mid-run.

Calls go through the raw stubs, so each test sees exactly the wire. Gated
nodes (tests/graphs.py) hold runs where a test needs them; ``parallel``'s
``fast`` node counts its runs in a file.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

DEADLINE = 30.0


def wait_until(condition: Callable[[], Any], what: str, timeout: float = DEADLINE) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = condition()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.02)


@pytest.fixture
def stub(server: Any) -> Iterator[pb_grpc.GraphServiceStub]:
    with server.channel() as channel:
        yield pb_grpc.GraphServiceStub(channel)


def invoke(stub: Any, **kw: Any) -> list[pb.RunEvent]:
    return list(stub.Invoke(pb.InvokeRequest(**kw), timeout=DEADLINE))


def gated_input(gate: str | None, label: str, message: str = "hello") -> str:
    return json.dumps({"gate": gate, "label": label, "log": [message]})


def seqs(events: list[pb.RunEvent]) -> list[int]:
    return [e.seq for e in events]


def fast_runs(server: Any, label: str) -> int:
    path = server.gates / f"runs-{label}"
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_a_retry_after_the_run_finished_runs_nothing_and_answers_the_same(server: Any, stub: Any, thread_id: str) -> None:
    label = uuid.uuid4().hex
    request = dict(graph="parallel", thread_id=thread_id, input_json=gated_input(None, label), request_id="turn-1")
    history = lambda: stub.ListHistory(pb.ListHistoryRequest(graph="parallel", thread_id=thread_id), timeout=DEADLINE)  # noqa: E731
    first = invoke(stub, **request)
    assert first[0].HasField("run_started") and first[-1].HasField("run_finished")
    assert fast_runs(server, label) == 1
    versions = history()
    again = invoke(stub, **request)
    assert again == first  # the same events, RunFinished and its final checkpoint included, as first sent
    assert fast_runs(server, label) == 1  # no node ran
    assert history() == versions  # nothing written
    # A new request_id is a new call.
    invoke(stub, **{**request, "request_id": "turn-2"})
    assert fast_runs(server, label) == 2


def test_the_same_request_id_with_another_request_is_invalid(stub: Any, thread_id: str) -> None:
    invoke(stub, graph="parallel", thread_id=thread_id, input_json=gated_input(None, "a"), request_id="r")
    with pytest.raises(grpc.RpcError) as failed:
        invoke(stub, graph="parallel", thread_id=thread_id, input_json=gated_input(None, "b"), request_id="r")
    assert failed.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "request_id" in (failed.value.details() or "") and "different request" in (failed.value.details() or "")
    # Another thread has request ids of its own.
    invoke(stub, graph="parallel", thread_id=thread_id + "-2", input_json=gated_input(None, "b"), request_id="r")


def test_join_gets_the_rest_of_a_live_run_with_no_gap_or_repeat(server: Any, stub: Any, thread_id: str) -> None:
    gate = f"join-{uuid.uuid4().hex}"
    stream = stub.Invoke(pb.InvokeRequest(
        graph="gated", thread_id=thread_id, input_json=gated_input(gate, "j"), on_disconnect=pb.ON_DISCONNECT_CONTINUE,
    ), timeout=DEADLINE)  # fmt: skip
    head = []
    for e in stream:
        head.append(e)
        if e.HasField("custom"):  # the node is waiting at its gate
            break
    run_id = head[0].run_id
    joined = stub.JoinRun(pb.JoinRunRequest(run_id=run_id, after_seq=head[1].seq), timeout=DEADLINE)
    server.open_gate(gate)
    rest = list(joined)
    assert seqs(rest) == list(range(head[1].seq + 1, rest[-1].seq + 1))
    assert rest[-1].HasField("run_finished") and rest[-1].run_finished.reason == pb.FINISH_REASON_END
    # The first caller's stream and the join agree event by event.
    original = head + list(stream)
    assert original[2:] == rest
    # A join after the end replays from the stored events; event_kinds filter them (RunFinished always comes).
    only = list(stub.JoinRun(pb.JoinRunRequest(run_id=run_id, event_kinds=[pb.EVENT_KIND_CUSTOM]), timeout=DEADLINE))
    assert [e.WhichOneof("event") for e in only] == ["custom", "run_finished"]


def test_continue_goes_on_without_its_caller(server: Any, stub: Any, thread_id: str) -> None:
    gate = f"cont-{uuid.uuid4().hex}"
    stream = stub.Invoke(pb.InvokeRequest(
        graph="gated", thread_id=thread_id, input_json=gated_input(gate, "c"), on_disconnect=pb.ON_DISCONNECT_CONTINUE,
    ), timeout=DEADLINE)  # fmt: skip
    started = next(stream)
    stream.cancel()  # the caller leaves
    run = stub.GetRun(pb.GetRunRequest(run_id=started.run_id), timeout=DEADLINE)
    assert run.status == pb.RUN_STATUS_RUNNING and run.on_disconnect == pb.ON_DISCONNECT_CONTINUE
    server.open_gate(gate)
    done = wait_until(
        lambda: (r := stub.GetRun(pb.GetRunRequest(run_id=started.run_id), timeout=DEADLINE)).status != pb.RUN_STATUS_RUNNING and r,
        "the run to end",
    )
    assert done.status == pb.RUN_STATUS_SUCCESS and done.reason == pb.FINISH_REASON_END
    state = stub.GetState(pb.GetStateRequest(graph="gated", thread_id=thread_id), timeout=DEADLINE)
    assert json.loads(state.values_json)["log"] == ["hello", "c"]
    assert done.checkpoint_id == state.checkpoint.checkpoint_id
    events = list(stub.JoinRun(pb.JoinRunRequest(run_id=started.run_id), timeout=DEADLINE))
    assert events[0] == started and seqs(events) == list(range(1, len(events) + 1))


def test_a_default_run_is_cancelled_when_its_caller_leaves(server: Any, stub: Any, thread_id: str) -> None:
    gate = f"cancel-{uuid.uuid4().hex}"
    stream = stub.Invoke(pb.InvokeRequest(graph="gated", thread_id=thread_id, input_json=gated_input(gate, "x")), timeout=DEADLINE)
    started = next(stream)
    stream.cancel()
    wait_until(
        lambda: stub.GetRun(pb.GetRunRequest(run_id=started.run_id), timeout=DEADLINE).status == pb.RUN_STATUS_CANCELLED,
        "the run to be cancelled",
    )
    with pytest.raises(grpc.RpcError) as failed:  # it kept no events
        list(stub.JoinRun(pb.JoinRunRequest(run_id=started.run_id), timeout=DEADLINE))
    assert failed.value.code() is grpc.StatusCode.FAILED_PRECONDITION


def test_background_returns_after_run_started(server: Any, stub: Any, thread_id: str) -> None:
    gate = f"bg-{uuid.uuid4().hex}"
    events = invoke(stub, graph="gated", thread_id=thread_id, input_json=gated_input(gate, "b"), background=True)
    assert [e.WhichOneof("event") for e in events] == ["run_started"]
    run_id = events[0].run_id
    assert stub.GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE).background
    joined = stub.JoinRun(pb.JoinRunRequest(run_id=run_id, after_seq=1), timeout=DEADLINE)
    server.open_gate(gate)
    rest = list(joined)
    assert rest[0].seq == 2 and rest[-1].run_finished.reason == pb.FINISH_REASON_END


def test_get_run_and_list_runs(stub: Any, thread_id: str) -> None:
    ids = []
    for i in range(3):
        ids.append(invoke(stub, graph="chain3", thread_id=thread_id, input_json=json.dumps({"n": i}))[0].run_id)
    listed = stub.ListRuns(pb.ListRunsRequest(graph="chain3", thread_id=thread_id), timeout=DEADLINE).runs
    assert [r.run_id for r in listed] == ids[::-1]
    newest = listed[0]
    assert (newest.status, newest.reason, newest.call, newest.attempts, newest.thread_id, newest.graph) == (
        pb.RUN_STATUS_SUCCESS, pb.FINISH_REASON_END, "Invoke", 1, thread_id, "chain3",
    )
    assert json.loads(newest.call_json) == {"input": {"n": 2}}
    assert newest.ended_at.ToDatetime() >= newest.started_at.ToDatetime() and newest.replica
    state = stub.GetState(pb.GetStateRequest(graph="chain3", thread_id=thread_id), timeout=DEADLINE)
    assert newest.checkpoint_id == state.checkpoint.checkpoint_id
    assert newest.last_seq > 1
    page = stub.ListRuns(pb.ListRunsRequest(graph="chain3", thread_id=thread_id, limit=1, before=ids[2]), timeout=DEADLINE).runs
    assert [r.run_id for r in page] == [ids[1]]
    assert stub.GetRun(pb.GetRunRequest(run_id=ids[0]), timeout=DEADLINE).run_id == ids[0]
    for call in (lambda: stub.GetRun(pb.GetRunRequest(run_id="no-such-run"), timeout=DEADLINE),
                 lambda: list(stub.JoinRun(pb.JoinRunRequest(run_id="no-such-run"), timeout=DEADLINE))):  # fmt: skip
        with pytest.raises(grpc.RpcError) as missing:
            call()
        assert missing.value.code() is grpc.StatusCode.NOT_FOUND
    # Deleted with the thread.
    stub.DeleteThread(pb.DeleteThreadRequest(graph="chain3", thread_id=thread_id), timeout=DEADLINE)
    assert not stub.ListRuns(pb.ListRunsRequest(graph="chain3", thread_id=thread_id), timeout=DEADLINE).runs


def test_an_interrupted_run_records_its_question(stub: Any, thread_id: str) -> None:
    remind = json.dumps({"messages": [{"role": "user", "content": "remind me to call mom at 5pm"}]})
    run_id = invoke(stub, graph="reminders", thread_id=thread_id, input_json=remind)[0].run_id
    info = stub.GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE)
    assert info.status == pb.RUN_STATUS_INTERRUPTED and info.reason == pb.FINISH_REASON_INTERRUPT
    assert [json.loads(i.value_json) for i in info.interrupts] == ["Add a reminder to call mom at 5pm?"]
    resumed = invoke_resume = list(stub.Resume(pb.ResumeRequest(graph="reminders", thread_id=thread_id, resume_json='"yes"'), timeout=DEADLINE))
    assert invoke_resume[-1].run_finished.reason == pb.FINISH_REASON_END
    info = stub.GetRun(pb.GetRunRequest(run_id=resumed[0].run_id), timeout=DEADLINE)
    assert (info.call, json.loads(info.call_json), info.status) == ("Resume", {"resume": "yes"}, pb.RUN_STATUS_SUCCESS)


def test_update_state_with_a_request_id_applies_once(stub: Any, thread_id: str) -> None:
    invoke(stub, graph="chain3", thread_id=thread_id, input_json=json.dumps({"n": 0}))
    request = pb.UpdateStateRequest(graph="chain3", thread_id=thread_id, values_json=json.dumps({"log": ["x"]}), as_node="c", request_id="u1")
    first = stub.UpdateState(request, timeout=DEADLINE)
    again = stub.UpdateState(request, timeout=DEADLINE)
    assert again.checkpoint == first.checkpoint
    state = stub.GetState(pb.GetStateRequest(graph="chain3", thread_id=thread_id), timeout=DEADLINE)
    assert json.loads(state.values_json)["log"].count("x") == 1


@pytest.mark.parametrize(
    ("build", "word"),
    [
        (lambda t: pb.InvokeRequest(graph="chain3", thread_id=t, input_json="{}", on_disconnect=7), "on_disconnect"),
        (lambda t: pb.InvokeRequest(graph="chain3", thread_id=t, input_json="{}", request_id="x" * 600), "request_id"),
        (lambda t: pb.InvokeRequest(graph="chain3", thread_id=t, input_json="{}", request_id="r",
                                    config=pb.RunConfig(metadata_json='{"run_id": "mine"}')), "config.metadata_json"),  # fmt: skip
        (lambda t: pb.JoinRunRequest(run_id=""), "run_id"),
    ],
    ids=["unknown on_disconnect", "request_id too long", "request_id with a run_id in metadata", "join without run_id"],
)
def test_bad_durable_fields_are_invalid(stub: Any, thread_id: str, build: Any, word: str) -> None:
    request = build(thread_id)
    with pytest.raises(grpc.RpcError) as failed:
        list((stub.JoinRun if isinstance(request, pb.JoinRunRequest) else stub.Invoke)(request, timeout=DEADLINE))
    assert failed.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert word in (failed.value.details() or "")


def test_a_retry_after_the_server_was_killed_applies_the_message_once(start_server: Any, thread_id: str) -> None:
    first = start_server()
    gate = f"kill-{uuid.uuid4().hex}"
    request = pb.InvokeRequest(graph="gated", thread_id=thread_id, input_json=gated_input(gate, "k", "user message"), request_id="turn")
    with first.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        stream = stub.Invoke(request, timeout=DEADLINE)
        for e in stream:
            if e.HasField("custom"):  # the node waits at its gate, the input version is saved
                break
        first.kill()
    second = start_server(db=first.db, gates=first.gates)
    second.open_gate(gate)
    with second.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        events = list(stub.Invoke(request, timeout=DEADLINE))
        assert events[-1].run_finished.reason == pb.FINISH_REASON_END
        assert seqs(events) == sorted(set(seqs(events)))  # no repeat
        values = json.loads(events[-1].run_finished.values_json)
        assert values["log"] == ["user message", "k"]  # the message once, the turn finished
        info = stub.GetRun(pb.GetRunRequest(run_id=events[0].run_id), timeout=DEADLINE)
        assert (info.status, info.attempts) == (pb.RUN_STATUS_SUCCESS, 2)
        history = stub.ListHistory(pb.ListHistoryRequest(graph="gated", thread_id=thread_id), timeout=DEADLINE)
        assert [s.checkpoint.source for s in history.snapshots] == ["loop", "loop", "input"]  # one input version
        # And once more: the finished outcome, nothing run.
        assert list(stub.Invoke(request, timeout=DEADLINE)) == events


def test_a_background_run_killed_mid_step_is_finished_after_a_restart(start_server: Any, thread_id: str) -> None:
    import sqlite3

    first = start_server()
    gate, label = f"bg-kill-{uuid.uuid4().hex}", uuid.uuid4().hex
    with first.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        started = invoke(stub, graph="parallel", thread_id=thread_id, input_json=gated_input(gate, label), background=True)[0]

    def fast_write_stored() -> bool:  # fast finished and its write is stored (on the newest version); slow waits at its gate
        with sqlite3.connect(first.db) as db:
            rows = db.execute(
                "SELECT count(*) FROM writes WHERE thread_id = ?1 AND channel = 'log' AND checkpoint_id = "
                "(SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = '')",
                (f"parallel:{thread_id}",),
            ).fetchone()
        return fast_runs(first, label) == 1 and rows[0] > 0

    wait_until(fast_write_stored, "fast's pending write")
    first.kill()
    second = start_server(db=first.db, gates=first.gates)
    second.open_gate(gate)
    with second.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        done = wait_until(
            lambda: (r := stub.GetRun(pb.GetRunRequest(run_id=started.run_id), timeout=DEADLINE)).status == pb.RUN_STATUS_SUCCESS and r,
            "the restarted server to finish the run",
        )
        assert done.attempts == 2
        state = stub.GetState(pb.GetStateRequest(graph="parallel", thread_id=thread_id), timeout=DEADLINE)
        assert sorted(json.loads(state.values_json)["log"]) == ["fast", "hello", "slow"]
        assert fast_runs(second, label) == 1  # the finished task did not run again
        events = list(stub.JoinRun(pb.JoinRunRequest(run_id=started.run_id), timeout=DEADLINE))
        assert events[0] == started and events[-1].run_finished.reason == pb.FINISH_REASON_END
        assert seqs(events) == sorted(set(seqs(events)))


def test_prune_takes_run_records_with_the_history(tmp_path: Any) -> None:
    import asyncio
    from datetime import timedelta

    from engine.checkpoint import SqliteSaver
    from engine.checkpoint._runs import RunRecord
    from server._prune import prune_threads
    from server._records import now, open_run_store

    saver = SqliteSaver(tmp_path / "p.db")
    store = open_run_store(saver)

    async def go() -> list[Any]:
        t0 = now() - timedelta(days=3)
        for i in range(4):
            await store.astart(RunRecord(f"r{i}", "g:t", "g", "t", "Invoke", "SUCCESS", "me", t0 + timedelta(days=i),
                                         ended_at=t0 + timedelta(days=i)))  # fmt: skip
        await store.astart(RunRecord("live", "g:t", "g", "t", "Invoke", "RUNNING", "me", t0))
        out = [p async for p in prune_threads(saver, "g", ["t"], older_than=timedelta(days=1, hours=12))]
        out += [p async for p in prune_threads(saver, "g", ["t"], keep_last=1)]
        return out

    pruned = asyncio.run(go())
    assert [p.runs for p in pruned] == [2, 1]  # r0, r1 are older than the cut; then all ended ones but r3
    assert [r.run_id for r in asyncio.run(store.alist("g:t"))] == ["r3", "live"]
    saver.close()


def test_retention_and_attempts_settings_are_checked() -> None:
    from server.config import load_config

    assert load_config(None, {"run_retention_seconds": 60, "max_run_attempts": 5}).max_run_attempts == 5
    for bad in ({"run_retention_seconds": 0}, {"max_run_attempts": 0}, {"run_retention_seconds": "day"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            load_config(None, bad)


def test_a_retry_while_the_first_attempt_runs_joins_it(server: Any, stub: Any, thread_id: str) -> None:
    gate = f"joinretry-{uuid.uuid4().hex}"
    request = pb.InvokeRequest(graph="gated", thread_id=thread_id, input_json=gated_input(gate, "r"), request_id="same")
    first = stub.Invoke(request, timeout=DEADLINE)
    head = [next(first)]  # RunStarted: the first attempt holds the thread
    retry = stub.Invoke(request, timeout=DEADLINE)  # the thread is busy: the retry joins instead of ABORTED
    server.open_gate(gate)
    joined = list(retry)
    assert head + list(first) == joined
    state = stub.GetState(pb.GetStateRequest(graph="gated", thread_id=thread_id), timeout=DEADLINE)
    assert json.loads(state.values_json)["log"] == ["hello", "r"]


def test_a_durable_run_stopped_by_shutdown_is_continued_after_the_restart(start_server: Any, thread_id: str) -> None:
    first = start_server(args=["--grace", "0.2"])
    gate = f"drain-{uuid.uuid4().hex}"
    with first.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        run_id = invoke(stub, graph="gated", thread_id=thread_id, input_json=gated_input(gate, "d"), background=True)[0].run_id
        wait_until(lambda: stub.GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE).last_seq >= 1, "the run to start")
    assert first.terminate() == 0  # past the grace period: stopped, not ended
    second = start_server(db=first.db, gates=first.gates)
    second.open_gate(gate)
    with second.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        done = wait_until(
            lambda: (r := stub.GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE)).status == pb.RUN_STATUS_SUCCESS and r,
            "the restarted server to finish the run",
        )
        assert done.attempts == 2
        state = stub.GetState(pb.GetStateRequest(graph="gated", thread_id=thread_id), timeout=DEADLINE)
        assert json.loads(state.values_json)["log"] == ["hello", "d"]


def test_a_run_that_keeps_dying_ends_error_after_max_run_attempts(start_server: Any, thread_id: str) -> None:
    env = {"GRAPHWIRE_MAX_RUN_ATTEMPTS": "1"}
    first = start_server(env=env)
    gate = f"giveup-{uuid.uuid4().hex}"
    with first.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        run_id = invoke(stub, graph="gated", thread_id=thread_id, input_json=gated_input(gate, "g"), background=True)[0].run_id
        wait_until(lambda: stub.GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE).last_seq >= 1, "the run to start")
    first.kill()
    second = start_server(db=first.db, gates=first.gates, env=env)
    with second.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        done = wait_until(
            lambda: (r := stub.GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE)).status == pb.RUN_STATUS_ERROR and r,
            "the run to be given up",
        )
        assert (done.reason, done.error.type, done.attempts) == (pb.FINISH_REASON_ERROR, "RecoveryError", 1)
        assert "max_run_attempts is 1" in done.error.message
        events = list(stub.JoinRun(pb.JoinRunRequest(run_id=run_id), timeout=DEADLINE))
        assert events[-1].run_finished.error.type == "RecoveryError"


def test_runs_are_tenant_isolated(start_server: Any, tmp_path: Any, thread_id: str) -> None:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text('acme = "acme-token-0123456789"\nbeta = "beta-token-0123456789"\n')
    srv = start_server(args=["--auth-tokens", str(tokens)])
    acme, beta = (("authorization", "Bearer acme-token-0123456789"),), (("authorization", "Bearer beta-token-0123456789"),)
    with srv.channel() as channel:
        stub = pb_grpc.GraphServiceStub(channel)
        request = pb.InvokeRequest(graph="chain3", thread_id=thread_id, input_json='{"n": 0}', request_id="t1")
        run_id = list(stub.Invoke(request, timeout=DEADLINE, metadata=acme))[0].run_id
        assert stub.GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE, metadata=acme).run_id == run_id
        for call in (lambda: stub.GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE, metadata=beta),
                     lambda: list(stub.JoinRun(pb.JoinRunRequest(run_id=run_id), timeout=DEADLINE, metadata=beta))):  # fmt: skip
            with pytest.raises(grpc.RpcError) as hidden:
                call()
            assert hidden.value.code() is grpc.StatusCode.NOT_FOUND
        listed = stub.ListRuns(pb.ListRunsRequest(graph="chain3", thread_id=thread_id), timeout=DEADLINE, metadata=beta)
        assert not listed.runs
        # The same request_id in the other tenant is its own call: it runs.
        other = list(stub.Invoke(request, timeout=DEADLINE, metadata=beta))
        assert other[0].run_id != run_id and other[-1].run_finished.reason == pb.FINISH_REASON_END
