"""Leases: one run per thread across processes, and the fencing of writes.

A saver with ``supports_leases`` (PostgreSQL) hands out a thread's lease to
one owner at a time; a lapsed or released lease is taken over with the
epoch plus one; a write carrying a lease commits only while that lease
holds, and a put only if it continues the head version the lease last wrote.
Lapses are made by moving ``expires_at`` into the past, never by waiting.
Savers without leases say so and ignore the token.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from typing import Any

import psycopg
import pytest

from engine.checkpoint import Checkpoint
from engine.checkpoint.base import LEASE_KEY, BaseCheckpointSaver, Lease, LeaseStore, MessageBus, PendingWrite
from engine.checkpoint.postgres import PostgresSaver
from engine.errors import CheckpointError, LeaseLostError
from server._leases import ThreadLeases
from tests.checkpoint._pg import DSN, clean_schema, dsn_named
from tests.checkpoint._util import make_cp

T = "g:t1"


def cfg(cid: str | None = None, lease: Lease | None = None, thread: str = T) -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": thread, "checkpoint_ns": ""}
    if cid is not None:
        conf["checkpoint_id"] = cid
    if lease is not None:
        conf[LEASE_KEY] = lease
    return {"configurable": conf}


def put(saver: BaseCheckpointSaver, parent: str | None, lease: Lease | None, n: int, cp: Checkpoint | None = None) -> str:
    cp = cp or make_cp({"n": n}, n)
    return saver.put(cfg(parent, lease), cp, {"step": n}, {"n": n})["configurable"]["checkpoint_id"]


def ids(saver: BaseCheckpointSaver) -> list[str]:
    return [t.config["configurable"]["checkpoint_id"] for t in saver.list(cfg())]


# -- savers without leases ------------------------------------------------------------
@pytest.mark.parametrize("saver_kind", ["memory", "sqlite"], indirect=True)
def test_savers_without_leases_say_so_and_ignore_the_token(saver: BaseCheckpointSaver) -> None:
    assert saver.supports_leases is False
    # The optional parts are absent, and a host checking for them says so.
    assert saver.leases is None and saver.messages is None
    assert not isinstance(saver, LeaseStore) and not isinstance(saver, MessageBus)
    with pytest.raises(ValueError, match="supports_leases"):
        ThreadLeases(saver)  # type: ignore[arg-type]
    stale = Lease(T, "someone", 7)
    first = put(saver, None, stale, 1)
    saver.put_writes(cfg(first, stale), [("w", 1)], task_id="t")
    got = saver.get_tuple(cfg())
    assert got is not None and got.pending_writes == [PendingWrite("t", "w", 1)]


# -- PostgreSQL (the `pg` fixture: tests/checkpoint/conftest.py) ---------------------
@pytest.fixture
def lapse(pg_schema: str, pg_admin: psycopg.Connection[Any]) -> Any:
    """Make the thread's lease lapse now (as if its holder had stopped renewing it)."""

    def lapse(thread: str = T) -> None:
        pg_admin.execute(
            f'UPDATE "{pg_schema}".leases SET expires_at = clock_timestamp() - interval \'1 second\' WHERE thread_id = %s',
            (thread,),
        )

    return lapse


def lease_row(admin: psycopg.Connection[Any], schema: str, thread: str = T) -> tuple[Any, ...] | None:
    return admin.execute(
        f'SELECT owner, epoch, expires_at > clock_timestamp(), head FROM "{schema}".leases WHERE thread_id = %s', (thread,)
    ).fetchone()


def test_one_owner_at_a_time_and_takeover_after_a_lapse_bumps_the_epoch(pg: PostgresSaver, lapse: Any) -> None:
    assert pg.supports_leases is True
    assert isinstance(pg.leases, LeaseStore) and isinstance(pg.messages, MessageBus)
    a = pg.leases.acquire_lease(T, "a", ttl=60)
    assert a == Lease(T, "a", 1)
    assert pg.leases.acquire_lease(T, "b", ttl=60) is None
    assert pg.leases.acquire_lease("g:other", "b", ttl=60) == Lease("g:other", "b", 1)  # leases are per thread
    assert pg.leases.renew_lease(a, ttl=60) is True
    lapse()
    b = pg.leases.acquire_lease(T, "b", ttl=60)
    assert b == Lease(T, "b", 2)
    assert pg.leases.renew_lease(a, ttl=60) is False  # lost: renewing does not bring it back
    pg.leases.release_lease(a)  # a lost lease is left alone
    assert pg.leases.acquire_lease(T, "c", ttl=60) is None


def test_release_frees_the_thread_at_once(pg: PostgresSaver) -> None:
    a = pg.leases.acquire_lease(T, "a", ttl=60)
    assert a is not None
    pg.leases.release_lease(a)
    assert pg.leases.renew_lease(a, ttl=60) is False
    assert pg.leases.acquire_lease(T, "b", ttl=60) == Lease(T, "b", 2)


def test_the_same_owner_takes_over_its_own_leftover_lease(pg: PostgresSaver) -> None:
    first = pg.leases.acquire_lease(T, "a", ttl=60)
    again = pg.leases.acquire_lease(T, "a", ttl=60)  # e.g. its release failed while the database was down
    assert first is not None and again == Lease(T, "a", 2)
    assert pg.leases.renew_lease(first, ttl=60) is False


def test_renewing_moves_the_expiry(pg: PostgresSaver, pg_admin: psycopg.Connection[Any], pg_schema: str) -> None:
    a = pg.leases.acquire_lease(T, "a", ttl=1)
    assert a is not None
    (before,) = pg_admin.execute(f'SELECT expires_at FROM "{pg_schema}".leases').fetchone()  # type: ignore[misc]
    assert pg.leases.renew_lease(a, ttl=600) is True
    (after,) = pg_admin.execute(f'SELECT expires_at FROM "{pg_schema}".leases').fetchone()  # type: ignore[misc]
    assert (after - before).total_seconds() > 500


def test_epochs_never_repeat_even_when_the_thread_is_deleted(pg: PostgresSaver) -> None:
    a = pg.leases.acquire_lease(T, "a", ttl=60)
    assert a is not None
    put(pg, None, a, 1)
    pg.delete_thread(T)
    pg.leases.release_lease(a)
    assert pg.leases.acquire_lease(T, "b", ttl=60) == Lease(T, "b", 2)


@pytest.mark.parametrize(("owner", "ttl"), [("", 5), (None, 5), ("a", 0), ("a", -1), ("a", True), ("a", "5")])
def test_bad_lease_arguments(pg: PostgresSaver, owner: Any, ttl: Any) -> None:
    with pytest.raises(ValueError, match="lease"):
        pg.leases.acquire_lease(T, owner, ttl=ttl)


def test_concurrent_acquires_give_one_lease(pg: PostgresSaver) -> None:
    start = threading.Barrier(8)
    got: list[Lease | None] = []

    def acquire(n: int) -> None:
        start.wait()
        got.append(pg.leases.acquire_lease(T, f"owner-{n}", ttl=60))

    workers = [threading.Thread(target=acquire, args=(n,)) for n in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    won = [g for g in got if g is not None]
    assert len(got) == 8 and len(won) == 1 and won[0].epoch == 1


# -- fencing --------------------------------------------------------------------------
def test_writes_of_a_lease_taken_over_are_refused_and_store_nothing(
    pg: PostgresSaver, lapse: Any, blob_count: Any
) -> None:
    a = pg.leases.acquire_lease(T, "a", ttl=60)
    assert a is not None
    first = put(pg, None, a, 1)
    lapse()
    b = pg.leases.acquire_lease(T, "b", ttl=60)
    assert b is not None
    blobs = blob_count(pg, T)
    with pytest.raises(LeaseLostError, match=r"taken over \(now epoch 2 of b\)") as lost:
        put(pg, first, a, 2)
    assert isinstance(lost.value, CheckpointError) and repr(T) in str(lost.value)
    with pytest.raises(LeaseLostError, match="taken over"):
        pg.put_writes(cfg(first, a), [("w", 1)], task_id="t")
    assert ids(pg) == [first] and blob_count(pg, T) == blobs
    got = pg.get_tuple(cfg())
    assert got is not None and got.pending_writes == []
    # The new holder writes; it may start from any version (a fork), then must chain.
    second = put(pg, first, b, 2)
    pg.put_writes(cfg(second, b), [("w", 2)], task_id="t")
    assert ids(pg) == [second, first]


def test_a_rerun_tasks_writes_past_its_pack_are_fenced_too(pg: PostgresSaver, lapse: Any) -> None:
    # The writes a task run again adds past its stored pack go in a second statement (_rows.store_past_stored),
    # under the same fence: stored while the lease holds, refused once it was taken over.
    a = pg.leases.acquire_lease(T, "a", ttl=60)
    assert a is not None
    first = put(pg, None, a, 1)
    pg.put_writes(cfg(first, a), [("w", 1), ("x", 2)], task_id="t")
    pg.put_writes(cfg(first, a), [("w", 9), ("x", 9), ("y", 3)], task_id="t")
    got = pg.get_tuple(cfg(first))
    assert got is not None and [(w[1], w[2]) for w in got.pending_writes] == [("w", 1), ("x", 2), ("y", 3)]
    lapse()
    b = pg.leases.acquire_lease(T, "b", ttl=60)
    assert b is not None
    with pytest.raises(LeaseLostError, match="taken over"):
        pg.put_writes(cfg(first, a), [("w", 9), ("x", 9), ("y", 9), ("z", 4)], task_id="t")
    got = pg.get_tuple(cfg(first))
    assert got is not None and [(w[1], w[2]) for w in got.pending_writes] == [("w", 1), ("x", 2), ("y", 3)]


def test_writes_of_a_lapsed_or_released_lease_are_refused(pg: PostgresSaver, lapse: Any) -> None:
    a = pg.leases.acquire_lease(T, "a", ttl=60)
    assert a is not None
    first = put(pg, None, a, 1)
    lapse()
    with pytest.raises(LeaseLostError, match="lapsed or was released"):
        put(pg, first, a, 2)
    b = pg.leases.acquire_lease(T, "b", ttl=60)
    assert b is not None
    pg.leases.release_lease(b)
    with pytest.raises(LeaseLostError, match="lapsed or was released"):
        pg.put_writes(cfg(first, b), [("w", 1)], task_id="t")
    never = Lease("g:never", "a", 1)
    with pytest.raises(LeaseLostError, match="no lease row"):
        pg.put(cfg(None, never, thread="g:never"), make_cp({"n": 1}), {}, {"n": 1})
    assert ids(pg) == [first]


def test_a_put_must_continue_the_head_its_lease_last_wrote(pg: PostgresSaver, lapse: Any) -> None:
    a = pg.leases.acquire_lease(T, "a", ttl=60)
    assert a is not None
    one = put(pg, None, a, 1)
    with pytest.raises(LeaseLostError, match="last wrote"):
        put(pg, None, a, 2)  # a second root
    cp = make_cp({"n": 2}, 2)
    two = put(pg, one, a, 2, cp)
    assert put(pg, one, a, 2, cp) == two  # the same put again (a retry after an unknown outcome)
    with pytest.raises(LeaseLostError, match=rf"parent {one!r} is not the version"):
        put(pg, one, a, 3)  # a sibling of `two`
    three = put(pg, two, a, 3)
    assert ids(pg) == [three, two, one]
    # A put in a child namespace is fenced by the lease alone.
    sub = {"configurable": {"thread_id": T, "checkpoint_ns": "child", LEASE_KEY: a}}
    pg.put(sub, make_cp({"s": 1}), {}, {"s": 1})
    lapse()
    with pytest.raises(LeaseLostError):
        pg.put(sub, make_cp({"s": 2}, 2), {}, {"s": 2})


def test_a_takeover_waits_for_a_write_in_flight(pg: PostgresSaver, pg_schema: str) -> None:
    """While a write's transaction holds the lease row, a takeover cannot get it."""
    a = pg.leases.acquire_lease(T, "a", ttl=60)
    assert a is not None
    with psycopg.connect(DSN, autocommit=True) as writer, psycopg.connect(DSN, autocommit=True) as other:
        with writer.transaction():
            row = writer.execute(pg._q.FENCE_WRITES, {"thread_id": T, "owner": "a", "epoch": 1}).fetchone()
            assert row == (1,)
            # Even with the lease lapsed by the clock, the takeover must wait for the write to commit.
            other.execute("SET lock_timeout = '200ms'")
            with pytest.raises(psycopg.errors.LockNotAvailable):
                other.execute(f'UPDATE "{pg_schema}".leases SET expires_at = clock_timestamp() WHERE thread_id = %s', (T,))
            with pytest.raises(psycopg.errors.LockNotAvailable):
                other.execute(pg._q.ACQUIRE_LEASE, {"thread_id": T, "owner": "b", "ttl": 60.0, "holder": None})


def wait_for_lock_wait(admin: psycopg.Connection[Any], app: str, worker: threading.Thread, why: Any) -> None:
    """Return once a session named ``app`` waits for a lock; fail if ``worker`` ends first
    (``why()`` says what it got) or after 20 s."""
    deadline = time.monotonic() + 20
    while not admin.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s AND wait_event_type = 'Lock'", (app,)
    ).fetchone()[0]:  # type: ignore[index]
        assert time.monotonic() < deadline, f"no session of {app} waited for a lock within 20 s"
        assert worker.is_alive(), why()


def test_a_write_waiting_on_a_takeover_in_flight_is_refused_once_it_commits(
    pg: PostgresSaver, pg_schema: str, pg_admin: psycopg.Connection[Any]
) -> None:
    a = pg.leases.acquire_lease(T, "a", ttl=60)
    assert a is not None
    first = put(pg, None, a, 1)
    app = f"gw_test_{uuid.uuid4().hex[:8]}"
    outcome: list[BaseException | str] = []
    with psycopg.connect(DSN, autocommit=True) as taker:
        with taker.transaction():
            taker.execute(  # a takeover, not committed yet
                f'UPDATE "{pg_schema}".leases SET owner = %s, epoch = epoch + 1, head = NULL WHERE thread_id = %s', ("b", T)
            )
            saver = PostgresSaver.from_dsn(dsn_named(app), schema=pg_schema)

            def write() -> None:
                try:
                    outcome.append(put(saver, first, a, 2))
                except BaseException as exc:  # noqa: BLE001 - asserted below
                    outcome.append(exc)

            writer = threading.Thread(target=write)
            writer.start()
            wait_for_lock_wait(pg_admin, app, writer, lambda: f"the write did not wait: {outcome}")
        writer.join(20)
        saver.close()
    assert len(outcome) == 1 and isinstance(outcome[0], LeaseLostError), outcome
    assert ids(pg) == [first]
    assert lease_row(pg_admin, pg_schema) == ("b", 2, True, None)


def test_a_takeover_that_waited_for_the_row_still_gets_its_whole_ttl(
    pg: PostgresSaver, pg_schema: str, pg_admin: psycopg.Connection[Any], lapse: Any
) -> None:
    """The expiry is computed once the row is got, not when the statement started waiting for it."""
    a = pg.leases.acquire_lease(T, "a", ttl=60)
    assert a is not None
    lapse()
    app = f"gw_test_{uuid.uuid4().hex[:8]}"
    got: list[Lease | None | BaseException] = []
    with psycopg.connect(DSN, autocommit=True) as writer:
        with writer.transaction():
            writer.execute(pg._q.FENCE_WRITES.replace("AND expires_at > clock_timestamp()", ""),
                           {"thread_id": T, "owner": "a", "epoch": 1})  # fmt: skip - a write in flight holds the row
            saver = PostgresSaver.from_dsn(dsn_named(app), schema=pg_schema)

            def acquire() -> None:
                try:
                    got.append(saver.leases.acquire_lease(T, "b", ttl=1))
                except BaseException as exc:  # noqa: BLE001 - asserted below
                    got.append(exc)

            taker = threading.Thread(target=acquire)
            taker.start()
            wait_for_lock_wait(pg_admin, app, taker, lambda: f"the acquire did not wait: {got}")
            writer.execute("SELECT pg_sleep(1.5)")  # not synchronisation: the waiting outlasts the new lease's ttl
        taker.join(20)
        saver.close()
    assert got == [Lease(T, "b", 2)]
    assert lease_row(pg_admin, pg_schema) == ("b", 2, True, None)  # live: its ttl counts from when it got the row


def test_a_transaction_left_open_by_a_stalled_process_does_not_keep_the_lease_row(
    pg_schema: str, pg_admin: psycopg.Connection[Any], lapse: Any
) -> None:
    """A replica paused mid-write (SIGSTOP) holds the row until PostgreSQL ends its idle transaction."""
    clean_schema(pg_admin, pg_schema)
    saver = PostgresSaver.from_dsn(DSN, schema=pg_schema, idle_in_transaction=0.2)
    a = saver.leases.acquire_lease(T, "a", ttl=60)
    assert a is not None

    async def stall() -> None:
        async with saver._conns.reserved() as conn:  # one of the saver's own connections
            await conn.run(lambda c: c.execute("BEGIN"))  # a fenced write's transaction, then the process stalls
            await conn.run(lambda c: c.execute(saver._q.FENCE_WRITES, {"thread_id": T, "owner": "a", "epoch": 1}))
            with psycopg.connect(DSN, autocommit=True) as other:
                other.execute("SET lock_timeout = '100ms'")

                def takeover() -> bool:
                    try:
                        other.execute(f'UPDATE "{pg_schema}".leases SET expires_at = clock_timestamp() WHERE thread_id = %s', (T,))
                    except psycopg.errors.LockNotAvailable:
                        return False
                    return True

                deadline = time.monotonic() + 20
                while not takeover():
                    assert time.monotonic() < deadline, "the stalled transaction kept the lease row"
            with pytest.raises(psycopg.errors.IdleInTransactionSessionTimeout):
                await conn.run(lambda c: c.execute("COMMIT"))  # its session was ended, its transaction rolled back
            assert await conn.run(lambda c: c.broken)

    asyncio.run(stall())
    assert saver.leases.acquire_lease(T, "b", ttl=60) == Lease(T, "b", 2)
    saver.close()
