"""PostgreSQL's ``aput_many``: a chain of versions, and pending writes, in one statement.

What the conformance suite cannot show, because the default ``aput_many``
stores versions one by one: the batch is all or none (a statement failing
in the middle of it, made to fail by a trigger, stores none of the batch and
leaves the saver able to write the thread again, deltas and all), a batch
stored again after an unknown outcome stores each row once, and a leased
batch is fenced as a whole (its first parent must be the head; its last
version becomes the head). And what one statement must do as the puts and
writes one by one would: a delta whose base another process deleted is
stored whole (the statement fails on the foreign key and goes again), two
writes with one key leave one row (the first regular write, the last
special one), and a fenced call refused stores none of its rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import psycopg
import pytest

from engine.checkpoint.base import ERROR, LEASE_KEY
from engine.checkpoint.postgres import PostgresSaver
from engine.errors import CheckpointError, LeaseLostError
from tests.checkpoint.conftest import DSN, stored_blob_count
from tests.checkpoint.test_conformance import chain_of_puts

T = "g:t1"


def root(lease: Any = None) -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": T, "checkpoint_ns": ""}
    if lease is not None:
        conf[LEASE_KEY] = lease
    return {"configurable": conf}


def with_lease(puts: list[Any], lease: Any) -> list[Any]:
    return [({"configurable": {**c["configurable"], LEASE_KEY: lease}}, cp, m, nv) for c, cp, m, nv in puts]


def stored_ids(saver: PostgresSaver) -> list[str]:
    return [t.config["configurable"]["checkpoint_id"] for t in saver.list(root())]


def ids_of(puts: Iterable[Any]) -> list[str]:
    return [cp["id"] for _, cp, _, _ in puts]


def after(put: Any) -> dict[str, Any]:
    """The config naming the checkpoint ``put`` stores: the parent of what comes next."""
    return {"configurable": {"thread_id": T, "checkpoint_ns": "", "checkpoint_id": put[1]["id"]}}


@pytest.fixture
def trigger_cleanup(pg_schema: str, pg_admin: psycopg.Connection[Any]) -> Iterator[None]:
    yield
    pg_admin.execute(f'DROP TRIGGER IF EXISTS boom ON "{pg_schema}".checkpoints')
    pg_admin.execute(f'DROP FUNCTION IF EXISTS "{pg_schema}".refuse_step_5()')


def test_a_failure_in_the_middle_of_a_batch_stores_none_of_it(
    pg: PostgresSaver, pg_admin: psycopg.Connection[Any], pg_schema: str, trigger_cleanup: None
) -> None:
    puts = chain_of_puts(T, root(), 9)
    pg.put_many(puts[:3])
    blobs_before = stored_blob_count(pg, T)
    # The database refuses the 6th version (step 5) while the batch is being written.
    pg_admin.execute(
        f'CREATE FUNCTION "{pg_schema}".refuse_step_5() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN '
        "IF NEW.metadata->>'step' = '5' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$"
    )
    pg_admin.execute(
        f'CREATE TRIGGER boom BEFORE INSERT ON "{pg_schema}".checkpoints FOR EACH ROW EXECUTE FUNCTION "{pg_schema}".refuse_step_5()'
    )
    with pytest.raises(CheckpointError, match="refused by the test"):
        pg.put_many(puts[3:])
    assert stored_ids(pg) == ids_of(reversed(puts[:3]))  # none of steps 3..8, not even 3 and 4
    assert stored_blob_count(pg, T) == blobs_before
    pg_admin.execute(f'DROP TRIGGER boom ON "{pg_schema}".checkpoints')
    # The saver did not keep believing in rows that were never stored: the same
    # batch goes in now, and every version reads back whole.
    pg.put_many(puts[3:])
    assert stored_ids(pg) == ids_of(reversed(puts))
    for _, cp, _, _ in puts:
        got = pg.get_tuple({"configurable": {"thread_id": T, "checkpoint_ns": "", "checkpoint_id": cp["id"]}})
        assert got is not None and got.checkpoint["channel_values"] == cp["channel_values"]


def test_a_batch_stored_again_after_an_unknown_outcome_stores_each_row_once(pg: PostgresSaver) -> None:
    puts = chain_of_puts(T, root(), 6)
    pg.put_many(puts)
    rows = stored_blob_count(pg, T)
    pg.put_many(puts)  # the caller was told it failed (a timeout) and sends it again
    assert stored_ids(pg) == ids_of(reversed(puts))
    assert stored_blob_count(pg, T) == rows
    more = chain_of_puts(T, after(puts[-1]), 3, start=6)
    pg.put_many(more)  # and the thread goes on, readable
    got = pg.get_tuple(root())
    assert got is not None and got.checkpoint["channel_values"] == more[-1][1]["channel_values"]


def test_a_leased_batch_must_continue_the_head_and_becomes_it(pg: PostgresSaver) -> None:
    lease = pg.leases.acquire_lease(T, "a", ttl=60)
    assert lease is not None
    first = with_lease(chain_of_puts(T, root(), 4), lease)
    pg.put_many(first)
    # A batch whose first parent is not the head (a sibling chain of version 2) is refused whole.
    sibling = with_lease(chain_of_puts(T, first[1][0], 3, start=1), lease)
    with pytest.raises(LeaseLostError, match="is not the version"):
        pg.put_many(sibling)
    assert stored_ids(pg) == ids_of(reversed(first))
    # Continuing the head works, and the batch's last version is the new head.
    tail = chain_of_puts(T, after(first[-1]), 2, start=4)
    pg.put_many(with_lease(tail, lease))
    nxt = chain_of_puts(T, after(tail[0]), 1, start=5)
    with pytest.raises(LeaseLostError):
        pg.put_many(with_lease(nxt, lease))  # continues the batch's first version, not its last
    # Another owner, once the lease is taken over, can write nothing with the old one.
    pg.leases.release_lease(lease)
    with pytest.raises(LeaseLostError):
        pg.put_many(with_lease(chain_of_puts(T, after(tail[-1]), 2, start=6), lease))
    assert stored_ids(pg)[0] == tail[-1][1]["id"]


def test_a_batch_on_bases_another_process_deleted_is_stored_whole(pg: PostgresSaver, pg_schema: str) -> None:
    puts = chain_of_puts(T, root(), 4)
    pg.put_many(puts)  # the cache now holds the "messages" list of the 4th version
    other = PostgresSaver.from_dsn(DSN, schema=pg_schema)
    try:
        other.delete_thread(T)
        other.put_many(puts[:2])  # the thread again, without versions 3 and 4 (the bases pg would name)
    finally:
        other.close()
    more = chain_of_puts(T, after(puts[-1]), 3, start=4)
    messages = more[-1][1]["channel_values"]["messages"]
    # Writes of the last version, one extending the stored list (a ref to a row of this batch).
    writes = [(after(more[-1]), [("messages", [*messages, "pending"]), ("counter", 99)], "task-1")]
    pg.put_many(more, writes=writes)
    for _, cp, _, _ in more:
        got = pg.get_tuple({"configurable": {"thread_id": T, "checkpoint_ns": "", "checkpoint_id": cp["id"]}})
        assert got is not None and got.checkpoint["channel_values"] == cp["channel_values"]
    got = pg.get_tuple(root())
    assert got is not None
    assert [tuple(w) for w in got.pending_writes] == [("task-1", "messages", [*messages, "pending"]), ("task-1", "counter", 99)]


def test_writes_with_one_key_in_one_batch_leave_what_one_by_one_would(pg: PostgresSaver) -> None:
    puts = chain_of_puts(T, root(), 2)
    at = after(puts[0])
    writes = [
        (at, [("counter", "first"), (ERROR, "boom 1")], "task-1"),
        (at, [("counter", "second"), (ERROR, "boom 2")], "task-1"),  # the same (task, index) keys again
        (at, [("counter", "other")], "task-2"),
    ]
    pg.put_many(puts, writes=writes)
    got = pg.get_tuple(at)
    assert got is not None
    assert sorted(tuple(w) for w in got.pending_writes) == [
        ("task-1", ERROR, "boom 2"), ("task-1", "counter", "first"), ("task-2", "counter", "other"),
    ]  # fmt: skip


def test_a_fenced_write_refused_stores_none_of_its_rows(pg: PostgresSaver) -> None:
    lease = pg.leases.acquire_lease(T, "a", ttl=60)
    assert lease is not None
    puts = with_lease(chain_of_puts(T, root(), 2), lease)
    pg.put_many(puts)
    at = {"configurable": {**after(puts[-1])["configurable"], LEASE_KEY: lease}}
    pg.put_writes(at, [("counter", 1)], "task-1")
    pg.leases.release_lease(lease)
    with pytest.raises(LeaseLostError, match="lapsed or was released"):
        pg.put_writes(at, [("counter", 2)], "task-2")
    got = pg.get_tuple(root())
    assert got is not None and [tuple(w) for w in got.pending_writes] == [("task-1", "counter", 1)]
    more = with_lease(chain_of_puts(T, after(puts[-1]), 2, start=2), lease)
    with pytest.raises(LeaseLostError):
        pg.put_many(more, writes=[(at, [("counter", 3)], "task-3")])
    assert stored_ids(pg) == ids_of(reversed(puts))
    got = pg.get_tuple(root())
    assert got is not None and [tuple(w) for w in got.pending_writes] == [("task-1", "counter", 1)]
