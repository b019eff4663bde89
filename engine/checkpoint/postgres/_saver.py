"""The PostgreSQL checkpoint saver: psycopg 3, one set of connections per saver.

Async at heart: every method is a coroutine, whose statements run on a
blocking connection (autocommit; a write is one transaction) of the saver's
pool, used on one of its worker threads (:mod:`._conns`), so any event loop can await
them and no connection belongs to a loop; under a sync call, on the calling
thread, as LangGraph's sync saver does. The sync face is the base class's,
derived mechanically.

The saver keeps to the checkpoint contract; its parts share its connections by
composition: reads (:mod:`._reads`), pruning (:mod:`._prune`), leases and
the fence every leased write checks first (:mod:`._leases`, ``saver.leases``),
messages between the processes sharing the tables (:mod:`._messages`,
``saver.messages``), a host's run and thread records (:mod:`._runs`,
``saver.runs``; :mod:`._threads`, ``saver.threads``). Named SQL is in :mod:`._queries`, numbered migrations
in ``migrations/``, applied at start-up by :mod:`._migrate`.

Every write is one statement, atomic on its own (no transaction around it:
one round trip): a put (blobs and checkpoint row), ``aput_many``'s chain of
puts with the pending writes that go with them (one commit flush for
versions that queued up behind a write), a task's pending writes
(:mod:`._rows` builds its few parameters). A write carrying a
:class:`~engine.checkpoint.base.Lease` (the run's fencing token,
``config["configurable"][LEASE_KEY]``) checks and locks the thread's lease
row in the same statement, before it stores anything; a delete given one is
a transaction whose first statement does. One whose lease was lost raises
:class:`~engine.errors.LeaseLostError` and stores (or deletes) nothing.

Failures reach callers as :class:`~engine.errors.CheckpointError` with the
psycopg error as ``__cause__`` (``psycopg.OperationalError``: the database
could not be reached). A call that finds its connection broken (the
server restarted, or ended a transaction left idle by a stalled process) is
retried on another: every write is idempotent, so a retry after an unknown
outcome stores the same rows once (and a fenced write is checked again).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import psycopg
from psycopg import Connection

from engine.checkpoint._delta import DEFAULT_CACHE_THREADS, DEFAULT_FANOUT
from engine.checkpoint._retention import Choose
from engine.checkpoint._sql_write import SqlDeltas, blob_versions, dump_sql_meta
from engine.checkpoint._versions import take_checkpoint
from engine.checkpoint._helpers import (
    dump_metadata,
    make_config,
    parse_config,
    parse_write_config,
    storable_text,
)
from engine.checkpoint._metadata import put_metadata, split_run
from engine.checkpoint._ts import stored_ts
from engine.checkpoint._opening import OpenedByConnString
from engine.checkpoint._writes import WriteRow, dump_writes
from engine.checkpoint.base import (
    LEASE_KEY,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    Lease,
    ThreadInfo,
    check_chain,
)
from engine.checkpoint.postgres import _queries as q
from engine._sql.files import MigrationTexts
from engine._sql.postgres.conns import Connections, NoConnection, kept_cursor, kept_raw_cursor
from engine._sql.postgres.given import Pipe, given, opened
from engine.checkpoint.postgres._copy import copy_thread
from engine.checkpoint.postgres._leases import PostgresLeases, require_storable
from engine.checkpoint.postgres._messages import PostgresMessages
from engine.checkpoint.postgres._prune import prune
from engine.checkpoint.postgres._prepared import END_ROW, Ending, PreparedPut, prepare
from engine.checkpoint.postgres._assistants import PostgresAssistants
from engine.checkpoint.postgres._crons import PostgresCrons
from engine.checkpoint.postgres._webhooks import PostgresWebhooks
from engine.checkpoint.postgres._delayed import PostgresDelayed
from engine.checkpoint.postgres._runs import PostgresRuns
from engine.checkpoint.postgres._threads import PostgresThreads
from engine.checkpoint.postgres._reads import Reads
from engine.checkpoint.postgres._rows import Batch, Put, TaskWrites, store_past_stored
from engine._sql.postgres.migrate import IDENTIFIER, migrate
from engine.checkpoint.postgres._migrate import CHECKPOINT_TABLES
from engine.errors import CheckpointError
from engine.serde import Serializer

__all__ = ["PostgresSaver"]

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

T = TypeVar("T")

# An unquoted PostgreSQL identifier: what a schema name may be (it is quoted anyway).


class PostgresSaver(OpenedByConnString, BaseCheckpointSaver):
    """Checkpoints in PostgreSQL.

    Args:
        conn: a libpq connection string or ``postgresql://`` URL, or (as
            LangGraph's saver takes) a psycopg ``Connection``,
            ``ConnectionPool``, ``AsyncConnection`` or ``AsyncConnectionPool``
            the caller made (autocommit) and closes: see :mod:`._given`.
        pipe: LangGraph's: a pipeline of the ``Connection`` given, in which
            the saver's statements then run (settable later, as LangGraph's
            test suite does: ``saver.pipe = saver.conn.pipeline()``).
        schema: the PostgreSQL schema holding the tables (created if
            missing); None uses the connection's current schema
            (``search_path``). Must be an identifier: letters, digits, ``_``
            and ``$``, not starting with a digit, at most 63 characters.
        serde: the serializer of state values.
        min_size / max_size: connections kept open / at most (psycopg-pool's; as many worker threads use them).
        timeout: seconds a call waits for a connection before failing.
        delta_fanout: ``K`` of :mod:`engine.checkpoint._delta` (None: no deltas).
        delta_cache_threads: how many threads' last values the delta cache keeps.
        idle_in_transaction: seconds one of the saver's transactions may wait
            on this process (paused, stalled) before PostgreSQL ends the
            session and rolls it back. Every transaction the saver runs is a
            few statements sent back to back, so this only ever fires on a
            stalled process, which would otherwise keep the locks it holds: a
            paused replica in the middle of a fenced write holds its thread's
            lease row, and no other replica could take the thread over.

    The schema is migrated by :meth:`setup` (:meth:`from_dsn` calls it), or
    else before the first call. ``leases`` and ``messages``: see the module's doc.
    """

    supports_leases = True
    MIGRATIONS = MigrationTexts(CHECKPOINT_TABLES.migrations)  # LangGraph's name; read-only here

    def __init__(
        self,
        conn: Any,
        pipe: Any = None,
        *,
        schema: str | None = None,
        serde: Serializer | None = None,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 5.0,
        delta_fanout: int | None = DEFAULT_FANOUT,
        delta_cache_threads: int = DEFAULT_CACHE_THREADS,
        idle_in_transaction: float = 5.0,
        max_state_bytes: int | None = None,
    ) -> None:
        super().__init__(serde=serde)
        if schema is not None and (type(schema) is not str or not IDENTIFIER.match(schema)):
            raise ValueError(
                f"schema must be a PostgreSQL identifier (letters, digits, _ and $, not starting "
                f"with a digit, at most 63 characters), got {schema!r}"
            )
        self.schema = schema
        found = given(conn)
        self.conn, self._borrowed = conn, found.borrowed
        self._dsn = dsn = found.dsn
        self.pipe = pipe
        self._q = q.render(schema)
        self._conns = Connections(
            dsn, min_size=min_size, max_size=max_size, timeout=timeout, name="graphwire-checkpoint",
            idle_in_transaction=idle_in_transaction, borrowed=found.borrowed, keep_idle=found.keep,
        )  # fmt: skip
        self._deltas = SqlDeltas(fanout=delta_fanout, max_threads=delta_cache_threads, max_state_bytes=max_state_bytes)
        self._reads = Reads(self._run, self._q, self._deltas, lambda: self.serde, lambda: self.keeps_run_ids)
        self.leases: PostgresLeases = PostgresLeases(self._run, self._q, dsn)
        self.messages: PostgresMessages = PostgresMessages(self._run, self._q, dsn, schema, self.asetup)
        self.threads: PostgresThreads = PostgresThreads(self._run, self._q)
        self.runs: PostgresRuns = PostgresRuns(self._run, self._q, threads=self.threads, leases=self.leases, blank=self._reads.blank)
        self.assistants, self.crons, self.webhooks, self.delayed = (PostgresAssistants(self._run, self._q, schema), PostgresCrons(self._run, self._q), PostgresWebhooks(self._run, self._q), PostgresDelayed(self._run, self._q))
        self._setup_lock = threading.Lock()
        self._ready = False

    @classmethod
    def from_dsn(
        cls, dsn: str, *, schema: str | None = None, serde: Serializer | None = None, min_size: int = 1, max_size: int = 10,
        **options: Any,
    ) -> PostgresSaver:  # fmt: skip
        """A saver on ``dsn``, its schema migrated now (so a bad DSN fails at start-up).

        ``options`` are the constructor's other keyword arguments.

        Raises:
            CheckpointError: the database cannot be reached, or migrating failed.
        """
        saver = cls(dsn, schema=schema, serde=serde, min_size=min_size, max_size=max_size, **options)
        PostgresSaver.setup(saver)  # the sync one, whatever a subclass's setup is
        return saver

    @classmethod
    @contextmanager
    def from_conn_string(
        cls, conn_string: str, *, pipeline: bool = False, serde: Serializer | None = None
    ) -> Iterator[PostgresSaver]:
        """LangGraph's opening: a saver on one connection to ``conn_string`` (in a pipeline if
        ``pipeline``), for the ``with`` block; the connection is closed after it."""
        with opened(lambda conn: cls(conn, serde=serde), conn_string, pipeline=pipeline) as saver:
            yield saver

    pipe = Pipe()

    # -- plumbing -----------------------------------------------------------------
    def setup(self) -> None:
        """Create or migrate the schema (idempotent; blocks; other replicas wait on a lock)."""
        with self._setup_lock:
            if self._ready:
                return
            try:
                with psycopg.connect(self._dsn, autocommit=True) as conn:
                    migrate(conn, self.schema, tables=CHECKPOINT_TABLES)
            except psycopg.Error as exc:
                raise CheckpointError(f"PostgreSQL: cannot open the checkpoint database: {exc}") from exc
            self._ready = True

    async def asetup(self) -> None:
        """:meth:`setup` without blocking the event loop."""
        if not self._ready:
            await asyncio.to_thread(PostgresSaver.setup, self)

    async def _run(self, what: str, work: Callable[[Connection[Any]], T]) -> T:
        """Run ``work`` (blocking) on one of the saver's connections; retried on a new
        connection when the server had dropped the one it got (it restarted, or ended
        a transaction this process left idle while stalled): every work may run twice."""
        await self.asetup()
        try:
            return await self._conns.run(work, retry_broken=2)
        except NoConnection as exc:
            raise CheckpointError(f"PostgreSQL: {what} failed: no connection to the database: {exc}") from exc
        except psycopg.Error as exc:
            raise CheckpointError(f"PostgreSQL: {what} failed: {exc}") from exc

    # -- leases ---------------------------------------------------------------------
    @property
    def requires_lease(self) -> bool:  # type: ignore[override]
        """Whether every write must carry a lease: the lease store's setting (a host that leases sets it)."""
        return self.leases.requires_lease

    @requires_lease.setter
    def requires_lease(self, value: bool) -> None:
        self.leases.requires_lease = value

    async def aclose(self) -> None:
        self.leases.close()
        await self._conns.aclose()

    # -- reads (engine/checkpoint/postgres/_reads.py) ---------------------------------
    async def aget_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        return await self._reads.get_tuple(config)

    def alist(
        self, config: Mapping[str, Any] | None, *, filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None, limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:  # fmt: skip
        return self._reads.list(config, filter=filter, before=before, limit=limit)

    def alist_threads(self, *, prefix: str = "", limit: int | None = None) -> AsyncIterator[ThreadInfo]:
        return self._reads.list_threads(prefix=prefix, limit=limit)

    # -- writes ---------------------------------------------------------------------
    def _prepare_put(
        self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions
    ) -> tuple[str, str, Put]:
        """Serialize a put (an unstorable value fails here, before any statement): (thread, ns, put)."""
        thread_id, ns, parent_id = parse_config(config)
        checkpoint, new_versions = take_checkpoint(checkpoint, new_versions)
        require_storable(thread_id, ns, checkpoint["id"], parent_id, *new_versions)
        plan = self._deltas.plan_put(self.serde, thread_id, ns, checkpoint["channel_values"], new_versions, checkpoint["channel_versions"])
        meta_type, meta = dump_sql_meta(self.serde, checkpoint, None, plan.inline)  # the versions go to a column
        require_storable(*checkpoint["channel_versions"])
        versions = blob_versions(plan, checkpoint["channel_versions"])
        md, run_id = split_run(put_metadata(config, metadata))  # the run has a column of its own
        put = Put(checkpoint["id"], parent_id, stored_ts(checkpoint["id"], checkpoint["ts"]), meta_type, meta, dump_metadata(md), _dumps(versions), plan, run_id)
        return thread_id, ns, put

    async def aput(
        self, config: Mapping[str, Any], checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions
    ) -> dict[str, Any]:
        thread_id, ns, put = self._prepare_put(config, checkpoint, metadata, new_versions)
        store = self._storer(Batch(thread_id, ns, [put], []), config)
        inserted = (await self._run("put", store))[0]
        self._deltas.commit(thread_id, ns, put.plan, inserted)
        return make_config(thread_id, ns, checkpoint["id"])

    async def aput_many(
        self,
        puts: Sequence[tuple[Mapping[str, Any], Checkpoint, CheckpointMetadata, ChannelVersions]],
        *,
        writes: Sequence[tuple[Any, ...]] = (),
    ) -> list[dict[str, Any]]:
        """Store a chain of versions of one thread, and pending writes of them, in one
        statement: all or none, one commit for all of them.

        Each version's deltas may build on the version before it (written by
        the same statement), so the cache learns each plan before the next is
        made, and forgets the thread unless the batch commits exactly as
        planned. With a lease, the fence is checked once, for the chain as a
        whole: its first parent must be the head, and its last version
        becomes the head.

        Raises:
            ValueError: the puts are not one chain of one thread and namespace
                (see :func:`~engine.checkpoint.base.check_chain`).
        """
        check_chain(puts)
        if (len(puts) < 2 and not writes) or len({cp["id"] for _, cp, _, _ in puts}) < len(puts):
            # One put; or a chain naming a version twice, which one statement cannot store twice.
            return [await self.aput(*put) for put in puts]
        prepared = self.prepare_many(puts, writes=writes)
        assert prepared is not None  # (a chain of distinct versions)
        return await prepared.astore()

    def prepare_many(
        self,
        puts: Sequence[tuple[Mapping[str, Any], Checkpoint, CheckpointMetadata, ChannelVersions]],
        *,
        writes: Sequence[tuple[Any, ...]] = (),
    ) -> PreparedPut | None:
        """:meth:`aput_many` up to its statement, to store alone or with a run's end (:mod:`._prepared`)."""
        return prepare(self, puts, writes)

    async def aput_writes(
        self,
        config: Mapping[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        task_writes = TaskWrites.of(self.serde, config, task_id, task_path, self._dump_writes(config, writes, task_id))
        if task_writes is None:
            return
        thread_id, ns = task_writes.keys[:2]
        await self._run("put_writes", self._storer(Batch(thread_id, ns, [], [task_writes]), config))

    def _storer(self, batch: Batch, config: Mapping[str, Any], ending: Ending | None = None) -> Callable[[Connection[Any]], list[list[str]]]:
        """The work that stores ``batch`` (one statement), returning the channels of each put's
        blob rows actually inserted; with ``ending``, a run's end in the same statement (see
        :mod:`._prepared`: a root-namespace chain under a lease).

        With a fencing token in ``config``, the statement checks it first and
        stores nothing unless it holds (a put chain of the root namespace must
        continue the lease's head, and moves it). A delta whose base is gone
        (pruned or deleted elsewhere since the cache learned it) fails the
        statement: it is sent again with every value whole.
        """
        thread_id = batch.thread_id
        self._reads.forget(thread_id)
        lease = _lease_of(self, config, thread_id)
        head = (batch.puts[0].parent_id, batch.puts[-1].checkpoint_id) if batch.puts and batch.ns == "" else None
        if lease is None:
            sql, fence = self._q.PUT, None
        else:
            fence = self.leases.fence_params(thread_id, lease, head)
            sql = self._q.PUT_FENCED_HEAD if head is not None else self._q.PUT_FENCED
        if ending is not None:
            if head is None or fence is None:
                raise ValueError("a run's end is stored with a root-namespace chain under a lease only")
            sql = ending.sql

        def store(conn: Connection[Any], full: bool) -> list[list[str]]:
            params = batch.params(full=full)
            if fence is not None:
                params.update(fence)
            cur = kept_cursor(conn)
            if ending is None:
                cur.execute(sql, params)
                rows = cur.fetchall()
            else:
                raw = kept_raw_cursor(conn)
                raw.execute(sql, ending.values(params))
                rows = []
                for row in raw.fetchall():
                    if row[0] == END_ROW:
                        ending.value = row[1]  # (NULL channels are the fence's and the writes' rows)
                    else:
                        rows.append(row)
            if fence is not None and not any(channel is None and version >= 0 for channel, version in rows):
                raise self.leases.refusal(conn, lease, head)
            fenced = None if lease is None else (lambda: self.leases.fence_params(thread_id, lease, None))
            if batch.writes and not store_past_stored(cur, self._q, batch, rows, full=full, fence=fenced):
                raise self.leases.refusal(conn, lease, None)
            left = {(channel, version) for channel, version in rows if channel is not None}
            inserted = []
            for put in batch.puts:
                channels = []
                for r in put.plan.rows:  # a row written whole has the delta's channel and version
                    if (r.channel, r.version) in left:
                        left.discard((r.channel, r.version))  # a key twice in one batch is stored once
                        channels.append(r.channel)
                inserted.append(channels)
            return inserted

        def work(conn: Connection[Any]) -> list[list[str]]:
            try:
                return store(conn, full=False)
            except psycopg.errors.ForeignKeyViolation:
                # A base is gone: the statement stored nothing; store full values.
                self._deltas.forget_thread(thread_id)
                return store(conn, full=True)

        return work

    def _dump_writes(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str) -> list[WriteRow]:
        """Serialize one task's pending writes (an unstorable value fails here)."""
        refer = self._deltas.referrer(self.serde, parse_write_config(config)[0])
        return dump_writes(self.serde, writes, task_id, max_bytes=self._deltas.max_state_bytes, refer=refer)

    async def adelete_thread(self, thread_id: str, *, lease: Lease | None = None) -> None:
        thread_id = str(thread_id)
        if lease is None and self.requires_lease:
            raise ValueError(f"thread {thread_id!r}: a delete without the thread's lease, on a checkpointer that requires one")
        if not _storable(thread_id):
            return

        def work(conn: Connection[Any]) -> None:
            if lease is None:
                conn.execute(self._q.DELETE_THREAD, {"thread_id": thread_id})
                return
            with conn.transaction():
                self.leases.check_fence(conn, thread_id, lease, None, delete=True)
                conn.execute(self._q.DELETE_THREAD, {"thread_id": thread_id})

        await self._run("delete_thread", work)
        self._deltas.forget_thread(thread_id)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str, *, lease: Lease | None = None) -> None:
        """Copy every version and pending write of the source thread to the target (their ids kept),
        in one statement. ``lease``: the target's (a saver that requires leases requires it); the
        copy is fenced as a delete is, and the target's next version may continue any of them."""
        source, target = str(source_thread_id), str(target_thread_id)
        if lease is None and self.requires_lease:
            raise ValueError(f"thread {target!r}: a copy without the thread's lease, on a checkpointer that requires one")
        if not _storable(source, target):
            return
        self._reads.forget(target)  # it may have versions now (Reads.blank)
        fence = None if lease is None else (lambda conn: self.leases.check_fence(conn, target, lease, None, delete=True))
        await copy_thread(self._run, self._q.tables, fence, source, target)
        self._deltas.forget_thread(target)

    async def _aprune_thread(self, thread_id: str, choose: Choose) -> int:
        if not _storable(thread_id):
            return 0
        try:
            return await prune(self._run, self._q, thread_id, choose)
        finally:
            self._deltas.forget_thread(thread_id)


def _storable(*texts: str | None) -> bool:
    """Whether PostgreSQL text can hold every one of these (no NUL, no lone surrogate)."""
    return all(t is None or storable_text(t) for t in texts)


def _lease_of(saver: PostgresSaver, config: Mapping[str, Any], thread_id: str) -> Any:
    """The fencing token a write's config carries; ValueError when the saver requires one and it has none."""
    lease = (config.get("configurable") or {}).get(LEASE_KEY)
    if lease is None and saver.requires_lease:
        raise ValueError(f"thread {thread_id!r}: a write without the thread's lease, on a checkpointer that requires one")
    return lease
