"""A Resume answers the question its caller saw, or none (issue 13, item 1).

Two callers answer the same interrupt, both with ``enqueue``, while the
thread is held (by a run slot the test takes itself, as another run would).
Both are accepted while the question is pending and wait for the thread.
When it is free, the first in line answers the question and its run stops at
the next one; when the second's turn comes, the question it answered is no
longer pending: it gets FAILED_PRECONDITION naming the interrupt it answered
and what is pending now, and the thread still waits at the second question,
which nobody answered.

The order is the test's, not the scheduler's: the thread is let go only once
the server holds both calls waiting for it
(:meth:`server._runs.RunManager.waiting`). On SQLite they wait for the
process's run slot; across two servers on one PostgreSQL, one of them waits
for the thread's lease, held by the other replica.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from graphwire import AsyncClient, FailedPrecondition, FinishReason, RunResult

from engine.checkpoint import SqliteSaver
from server.app import Server
from server._reads import key_of
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, require_pg
from tests.hardening.conftest import in_process, until

DEADLINE = 60.0


async def two_answers(holder: Server, a_srv: Server, b_srv: Server, tid: str, *, by_id: bool) -> None:
    key = key_of(None, "questions", tid)
    servers = {id(s): s for s in (holder, a_srv, b_srv)}.values()

    def waiting() -> int:
        return sum(s.service.runs.waiting(key) for s in servers)

    async with AsyncClient(f"127.0.0.1:{a_srv.port}") as a, AsyncClient(f"127.0.0.1:{b_srv.port}") as b:
        asked = await a.invoke("questions", tid, {"log": []}, timeout=DEADLINE)
        [q1] = asked.interrupts

        def answer(client: AsyncClient, text: str) -> asyncio.Future[RunResult]:
            resumes = {"resumes": {q1.interrupt_id: text}} if by_id else {"answer": text}
            return asyncio.ensure_future(client.resume("questions", tid, enqueue=True, timeout=DEADLINE, **resumes))

        async with holder.service.runs.slot(key, tid, "held-by-the-test", enqueue=False):
            first = answer(a, "A")
            await until(lambda: waiting() == 1 or first.done(), "the first Resume to wait for the thread")
            second = answer(b, "B")
            await until(lambda: waiting() == 2 or second.done(), "the second Resume to wait for the thread")
            assert not first.done() and not second.done(), (first, second)
        outcomes = await asyncio.gather(first, second, return_exceptions=True)

        won = [o for o in outcomes if isinstance(o, RunResult)]
        refused = [o for o in outcomes if isinstance(o, FailedPrecondition)]
        assert len(won) == 1 and len(refused) == 1, outcomes
        assert won[0].reason is FinishReason.INTERRUPT
        [q2] = won[0].interrupts
        assert q2.value == "second?" and q2.interrupt_id != q1.interrupt_id
        message = refused[0].message
        assert q1.interrupt_id in message and q2.interrupt_id in message, message  # what it answered, and what is pending now

        state = await a.get_state("questions", tid, timeout=DEADLINE)
        winner = "A" if won[0] is outcomes[0] else "B"
        assert state.values["log"] == [f"first:{winner}"]  # the late answer reached no node
        assert [i.interrupt_id for i in state.interrupts] == [q2.interrupt_id]
        # The question still pending is answered as usual.
        done = await a.resume("questions", tid, "C", timeout=DEADLINE)
        assert done.reason is FinishReason.END and done.values["log"] == [f"first:{winner}", "second:C"]


@pytest.mark.parametrize("by_id", [False, True], ids=["answer", "resumes-by-id"])
def test_a_queued_resume_of_an_answered_interrupt_is_refused(by_id: bool, tmp_path: Path, tid: str) -> None:
    async def body() -> None:
        async with in_process(SqliteSaver(str(tmp_path / "gw.db"))) as srv:
            await two_answers(srv, srv, srv, tid, by_id=by_id)

    asyncio.run(body())


@pytest.mark.parametrize("by_id", [False, True], ids=["answer", "resumes-by-id"])
def test_a_resume_waiting_for_another_replica_is_checked_when_it_starts(by_id: bool, tid: str) -> None:
    require_pg()
    from engine.checkpoint.postgres import PostgresSaver

    schema = new_schema_name()

    async def body() -> None:
        async with in_process(PostgresSaver.from_dsn(DSN, schema=schema), lease_seconds=5.0) as one:
            async with in_process(PostgresSaver.from_dsn(DSN, schema=schema), lease_seconds=5.0) as two:
                # Two holds the thread (its slot and lease); the first answer waits on one for the lease.
                await two_answers(two, one, two, tid, by_id=by_id)

    try:
        asyncio.run(body())
    finally:
        drop_schema(schema)
