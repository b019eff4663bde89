"""Thread records over gRPC, on SQLite and PostgreSQL (issue 33 item 1).

* The run path keeps a thread's status: BUSY while a run holds it (a gated node
  holds it here), then IDLE, INTERRUPTED with its pending interrupts, or ERROR;
  the first run on an unknown thread creates its record.
* CreateThread (ids made or given, ``if_exists``), GetThread (with values),
  UpdateThread (a shallow merge of metadata), DeleteThread (the record too).
* SearchThreads filters (metadata containment, status, graph, ids, times),
  sorts and pages by token; CountThreads counts what a search's filter finds.
* CopyThread gives a thread with the same history; PruneThread keeps the newest.

Each server runs in the test's event loop on a saver of the ``backend``
parameter (see tests/server/test_run_records.py); nothing sleeps to synchronise.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

from engine.checkpoint import SqliteSaver
from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg
from tests.hardening.conftest import in_process

DEADLINE = 60.0


@pytest.fixture(params=["sqlite", "postgres"])
def new_saver(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], Any]]:
    (tmp_path / "gates").mkdir()
    monkeypatch.setenv("GRAPHWIRE_TEST_GATES", str(tmp_path / "gates"))
    if request.param == "sqlite":
        yield lambda: SqliteSaver(str(tmp_path / "gw.db"))
        return
    from engine.checkpoint.postgres import PostgresSaver

    dsn, schema = require_pg(), new_schema_name()
    try:
        yield lambda: PostgresSaver.from_dsn(dsn, schema=schema)
    finally:
        drop_schema(schema)


@contextlib.asynccontextmanager
async def serving(new_saver: Callable[[], Any], **config: Any) -> AsyncIterator[tuple[Any, Any]]:
    async with in_process(new_saver(), **config) as srv, grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as channel:
        yield srv, pb_grpc.GraphServiceStub(channel)


def tid() -> str:
    return f"thr-{uuid.uuid4().hex[:8]}"


async def code_of(call: Any) -> grpc.StatusCode:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    return info.value.code()


def test_status_follows_the_runs(new_saver: Any, tmp_path: Path) -> None:
    async def body() -> None:
        async with serving(new_saver) as (_, stub):
            thread = tid()
            stream = stub.Invoke(pb.InvokeRequest(graph="gated", thread_id=thread, input_json=json.dumps({"gate": "g1", "label": "x"})), timeout=DEADLINE)
            async for e in stream:
                if e.HasField("custom"):
                    break  # its node waits at its gate: the run holds the thread
            got = await stub.GetThread(pb.GetThreadRequest(graph="gated", thread_id=thread), timeout=DEADLINE)
            assert got.status == pb.THREAD_STATUS_BUSY and got.graph == "gated" and got.thread_id == thread
            busy = await stub.SearchThreads(pb.SearchThreadsRequest(filter=pb.ThreadFilter(statuses=[pb.THREAD_STATUS_BUSY])), timeout=DEADLINE)
            assert [t.thread_id for t in busy.threads] == [thread]
            (tmp_path / "gates" / "g1").touch()
            assert [e async for e in stream][-1].run_finished.reason == pb.FINISH_REASON_END
            after = await stub.GetThread(pb.GetThreadRequest(graph="gated", thread_id=thread, include_values=True), timeout=DEADLINE)
            assert after.status == pb.THREAD_STATUS_IDLE and after.updated_at.ToDatetime() > got.created_at.ToDatetime()
            assert json.loads(after.values_json)["log"] == ["x"]

            asked = tid()
            end = [e async for e in stub.Invoke(pb.InvokeRequest(graph="questions", thread_id=asked, input_json="{}"), timeout=DEADLINE)][-1]
            waiting = await stub.GetThread(pb.GetThreadRequest(graph="questions", thread_id=asked), timeout=DEADLINE)
            assert waiting.status == pb.THREAD_STATUS_INTERRUPTED
            assert [i.interrupt_id for i in waiting.interrupts] == [i.interrupt_id for i in end.run_finished.interrupts]
            assert json.loads(waiting.interrupts[0].value_json) == "first?" and waiting.interrupts[0].node == "ask"
            req = pb.ResumeRequest(graph="questions", thread_id=asked, resume_json='"yes"')
            [e async for e in stub.Resume(req, timeout=DEADLINE)]
            again = await stub.GetThread(pb.GetThreadRequest(graph="questions", thread_id=asked), timeout=DEADLINE)
            assert again.status == pb.THREAD_STATUS_INTERRUPTED and json.loads(again.interrupts[0].value_json) == "second?"

            failed = tid()
            [e async for e in stub.Invoke(pb.InvokeRequest(graph="failing", thread_id=failed, input_json='{"fail": true}'), timeout=DEADLINE)]
            err = await stub.GetThread(pb.GetThreadRequest(graph="failing", thread_id=failed), timeout=DEADLINE)
            assert err.status == pb.THREAD_STATUS_ERROR and not err.interrupts

    asyncio.run(body())


def test_create_get_update_delete(new_saver: Any) -> None:
    async def body() -> None:
        async with serving(new_saver) as (_, stub):
            made = await stub.CreateThread(pb.CreateThreadRequest(graph="chain3", metadata_json='{"user": "ann", "a": {"x": 1}}'), timeout=DEADLINE)
            assert uuid.UUID(made.thread_id) and made.status == pb.THREAD_STATUS_IDLE and not made.HasField("ttl")
            same = pb.CreateThreadRequest(graph="chain3", thread_id=made.thread_id, metadata_json='{"user": "bob"}')
            assert await code_of(stub.CreateThread(same, timeout=DEADLINE)) == grpc.StatusCode.ALREADY_EXISTS
            same.if_exists = pb.IF_EXISTS_DO_NOTHING
            kept = await stub.CreateThread(same, timeout=DEADLINE)
            assert json.loads(kept.metadata_json) == {"user": "ann", "a": {"x": 1}}
            got = await stub.GetThread(pb.GetThreadRequest(graph="chain3", thread_id=made.thread_id, include_values=True), timeout=DEADLINE)
            assert got.values_json == ""  # no version yet
            up = pb.UpdateThreadRequest(graph="chain3", thread_id=made.thread_id, metadata_json='{"a": {"y": 2}, "n": 1}')
            done = await stub.UpdateThread(up, timeout=DEADLINE)
            assert json.loads(done.metadata_json) == {"user": "ann", "a": {"y": 2}, "n": 1}
            assert done.updated_at.ToDatetime() >= made.updated_at.ToDatetime()
            ttl = await stub.UpdateThread(pb.UpdateThreadRequest(graph="chain3", thread_id=made.thread_id, ttl=pb.ThreadTtl(seconds=60)), timeout=DEADLINE)
            assert ttl.ttl.seconds == 60 and ttl.ttl.strategy == pb.TTL_STRATEGY_DELETE and ttl.HasField("expires_at")
            # A thread made by CreateThread runs as any other, and DeleteThread takes its record.
            [e async for e in stub.Invoke(pb.InvokeRequest(graph="chain3", thread_id=made.thread_id, input_json='{"n": 0}'), timeout=DEADLINE)]
            assert json.loads((await stub.GetThread(pb.GetThreadRequest(graph="chain3", thread_id=made.thread_id), timeout=DEADLINE)).metadata_json)["n"] == 1
            await stub.DeleteThread(pb.DeleteThreadRequest(graph="chain3", thread_id=made.thread_id), timeout=DEADLINE)
            gone = pb.GetThreadRequest(graph="chain3", thread_id=made.thread_id)
            assert await code_of(stub.GetThread(gone, timeout=DEADLINE)) == grpc.StatusCode.NOT_FOUND
            count = await stub.CountThreads(pb.CountThreadsRequest(filter=pb.ThreadFilter(graph="chain3")), timeout=DEADLINE)
            assert count.count == 0
            # A record without versions is deleted too.
            empty = await stub.CreateThread(pb.CreateThreadRequest(graph="chain3", thread_id="empty"), timeout=DEADLINE)
            await stub.DeleteThread(pb.DeleteThreadRequest(graph="chain3", thread_id=empty.thread_id), timeout=DEADLINE)
            assert await code_of(stub.GetThread(pb.GetThreadRequest(graph="chain3", thread_id="empty"), timeout=DEADLINE)) == grpc.StatusCode.NOT_FOUND
            for bad in (
                stub.CreateThread(pb.CreateThreadRequest(graph="chain3", metadata_json="[1]"), timeout=DEADLINE),
                stub.UpdateThread(pb.UpdateThreadRequest(graph="chain3", thread_id="nope"), timeout=DEADLINE),
                stub.SearchThreads(pb.SearchThreadsRequest(page_token="garbage"), timeout=DEADLINE),
                stub.SearchThreads(pb.SearchThreadsRequest(limit=5000), timeout=DEADLINE),
            ):
                assert await code_of(bad) in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND)

    asyncio.run(body())


def test_search_filters_pages_and_counts(new_saver: Any) -> None:
    async def body() -> None:
        async with serving(new_saver) as (_, stub):
            ids = []
            for i in range(7):
                meta = {"user": "ann" if i % 2 else "bob", "tags": ["t", i % 3]}
                made = await stub.CreateThread(pb.CreateThreadRequest(graph="chain3", thread_id=f"s{i}", metadata_json=json.dumps(meta)), timeout=DEADLINE)
                ids.append(made.thread_id)
            await stub.CreateThread(pb.CreateThreadRequest(graph="gated", thread_id="other", metadata_json='{"user": "ann"}'), timeout=DEADLINE)
            ann = pb.ThreadFilter(graph="chain3", metadata_json='{"user": "ann"}')
            seen, token = [], ""
            while True:
                page = await stub.SearchThreads(pb.SearchThreadsRequest(filter=ann, limit=2, page_token=token), timeout=DEADLINE)
                seen += [t.thread_id for t in page.threads]
                token = page.next_page_token
                if not token:
                    break
            assert seen == ["s5", "s3", "s1"]  # newest first, every page after the last one's row
            asc = await stub.SearchThreads(pb.SearchThreadsRequest(filter=ann, sort_order=pb.SORT_ORDER_ASC, limit=2), timeout=DEADLINE)
            assert [t.thread_id for t in asc.threads] == ["s1", "s3"]
            other_order = pb.SearchThreadsRequest(filter=ann, page_token=asc.next_page_token)
            assert await code_of(stub.SearchThreads(other_order, timeout=DEADLINE)) == grpc.StatusCode.INVALID_ARGUMENT
            assert (await stub.CountThreads(pb.CountThreadsRequest(filter=ann), timeout=DEADLINE)).count == 3
            every = pb.ThreadFilter(metadata_json='{"user": "ann"}')
            assert (await stub.CountThreads(pb.CountThreadsRequest(filter=every), timeout=DEADLINE)).count == 4
            tagged = pb.ThreadFilter(graph="chain3", metadata_json='{"tags": [2]}', thread_ids=["s2", "s5", "s0"])
            assert {t.thread_id for t in (await stub.SearchThreads(pb.SearchThreadsRequest(filter=tagged), timeout=DEADLINE)).threads} == {"s2", "s5"}
            s3 = await stub.GetThread(pb.GetThreadRequest(graph="chain3", thread_id="s3"), timeout=DEADLINE)
            window = pb.ThreadFilter(graph="chain3", created_after=s3.created_at)
            assert {t.thread_id for t in (await stub.SearchThreads(pb.SearchThreadsRequest(filter=window), timeout=DEADLINE)).threads} == {"s4", "s5", "s6"}
            # An update moves a thread to the front of the updated_at order.
            await stub.UpdateThread(pb.UpdateThreadRequest(graph="chain3", thread_id="s0", metadata_json='{"seen": true}'), timeout=DEADLINE)
            by_update = await stub.SearchThreads(pb.SearchThreadsRequest(filter=pb.ThreadFilter(graph="chain3"), sort_by=pb.THREAD_SORT_BY_UPDATED_AT, limit=1), timeout=DEADLINE)
            assert [t.thread_id for t in by_update.threads] == ["s0"]

    asyncio.run(body())


def test_copy_has_the_same_history_and_prune_keeps_the_newest(new_saver: Any) -> None:
    async def body() -> None:
        async with serving(new_saver) as (_, stub):
            src = tid()
            await stub.CreateThread(pb.CreateThreadRequest(graph="chain3", thread_id=src, metadata_json='{"k": "v"}'), timeout=DEADLINE)
            for n in (0, 10):
                [e async for e in stub.Invoke(pb.InvokeRequest(graph="chain3", thread_id=src, input_json=json.dumps({"n": n})), timeout=DEADLINE)]
            history = await stub.ListHistory(pb.ListHistoryRequest(graph="chain3", thread_id=src), timeout=DEADLINE)
            # A fork: the history is a tree, not a chain.
            fork = pb.ForkRequest(graph="chain3", thread_id=src, checkpoint_id=history.snapshots[3].checkpoint.checkpoint_id)
            [e async for e in stub.Fork(fork, timeout=DEADLINE)]
            before = await stub.ListHistory(pb.ListHistoryRequest(graph="chain3", thread_id=src), timeout=DEADLINE)
            copy = await stub.CopyThread(pb.CopyThreadRequest(graph="chain3", thread_id=src), timeout=DEADLINE)
            assert copy.thread_id != src and json.loads(copy.metadata_json) == {"k": "v"}
            copied = await stub.ListHistory(pb.ListHistoryRequest(graph="chain3", thread_id=copy.thread_id), timeout=DEADLINE)
            assert [(s.checkpoint.checkpoint_id, s.checkpoint.parent_id, s.values_json) for s in copied.snapshots] == [
                (s.checkpoint.checkpoint_id, s.checkpoint.parent_id, s.values_json) for s in before.snapshots
            ]
            again = pb.CopyThreadRequest(graph="chain3", thread_id=src, new_thread_id=copy.thread_id)
            assert await code_of(stub.CopyThread(again, timeout=DEADLINE)) == grpc.StatusCode.ALREADY_EXISTS
            # The copy runs on from its newest version.
            [e async for e in stub.Invoke(pb.InvokeRequest(graph="chain3", thread_id=copy.thread_id, input_json='{"n": 100}'), timeout=DEADLINE)]
            state = await stub.GetState(pb.GetStateRequest(graph="chain3", thread_id=copy.thread_id), timeout=DEADLINE)
            assert json.loads(state.values_json)["n"] == 103
            pruned = await stub.PruneThread(pb.PruneThreadRequest(graph="chain3", thread_id=src), timeout=DEADLINE)
            assert pruned.deleted == len(before.snapshots) - 1
            left = await stub.ListHistory(pb.ListHistoryRequest(graph="chain3", thread_id=src), timeout=DEADLINE)
            assert [s.checkpoint.checkpoint_id for s in left.snapshots] == [before.snapshots[0].checkpoint.checkpoint_id]
            assert len((await stub.ListHistory(pb.ListHistoryRequest(graph="chain3", thread_id=copy.thread_id), timeout=DEADLINE)).snapshots) > 1
            missing = pb.PruneThreadRequest(graph="chain3", thread_id="never-ran")
            assert await code_of(stub.PruneThread(missing, timeout=DEADLINE)) == grpc.StatusCode.NOT_FOUND

    asyncio.run(body())


def test_tenants_see_only_their_own_threads(new_saver: Any, tmp_path: Path) -> None:
    acme, globex = "acme-token-0123456789", "globex-token-0123456789"
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(f'acme = "{acme}"\nglobex = "{globex}"\n')

    def auth(token: str) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {token}"),)

    async def body() -> None:
        async with serving(new_saver, auth_tokens=str(tokens)) as (_, stub):
            await stub.CreateThread(pb.CreateThreadRequest(graph="chain3", thread_id="t", metadata_json='{"who": "acme"}'), metadata=auth(acme), timeout=DEADLINE)
            [e async for e in stub.Invoke(pb.InvokeRequest(graph="chain3", thread_id="ran", input_json="{}"), metadata=auth(acme), timeout=DEADLINE)]
            get = pb.GetThreadRequest(graph="chain3", thread_id="t")
            assert await code_of(stub.GetThread(get, metadata=auth(globex), timeout=DEADLINE)) == grpc.StatusCode.NOT_FOUND
            every = pb.SearchThreadsRequest()
            assert (await stub.SearchThreads(every, metadata=auth(globex), timeout=DEADLINE)).threads == []
            assert (await stub.CountThreads(pb.CountThreadsRequest(), metadata=auth(globex), timeout=DEADLINE)).count == 0
            mine = await stub.SearchThreads(every, metadata=auth(acme), timeout=DEADLINE)
            assert sorted(t.thread_id for t in mine.threads) == ["ran", "t"]
            made = pb.CreateThreadRequest(graph="chain3", thread_id="t", metadata_json='{"who": "globex"}')
            theirs = await stub.CreateThread(made, metadata=auth(globex), timeout=DEADLINE)  # its own "t", beside acme's
            assert json.loads(theirs.metadata_json) == {"who": "globex"}
            assert json.loads((await stub.GetThread(get, metadata=auth(acme), timeout=DEADLINE)).metadata_json) == {"who": "acme"}

    asyncio.run(body())


def test_a_thread_whose_last_steps_writes_conflict_is_listed_as_recorded(new_saver: Any) -> None:
    # As LangGraph's get_state, GetState raises the step's InvalidUpdateError (the live view applies the
    # finished tasks' writes); a thread's record, alone or in a listing, shows its newest version as stored.
    async def body() -> None:
        async with serving(new_saver) as (_, stub):
            thread = tid()
            request = pb.InvokeRequest(graph="parallel", thread_id=thread, input_json='{"gate": "", "label": "clash"}')
            end = [e async for e in stub.Invoke(request, timeout=DEADLINE)][-1].run_finished
            assert end.reason == pb.FINISH_REASON_ERROR and end.error.type == "InvalidUpdateError"
            state = stub.GetState(pb.GetStateRequest(graph="parallel", thread_id=thread), timeout=DEADLINE)
            assert await code_of(state) == grpc.StatusCode.INVALID_ARGUMENT
            got = await stub.GetThread(pb.GetThreadRequest(graph="parallel", thread_id=thread, include_values=True), timeout=DEADLINE)
            assert got.status == pb.THREAD_STATUS_ERROR and json.loads(got.values_json) == {"gate": "", "label": "clash", "log": []}
            listed = await stub.SearchThreads(pb.SearchThreadsRequest(filter=pb.ThreadFilter(graph="parallel"), include_values=True), timeout=DEADLINE)
            assert [json.loads(t.values_json)["label"] for t in listed.threads] == ["clash"]

    asyncio.run(body())
