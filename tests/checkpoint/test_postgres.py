"""What only the PostgreSQL saver has: schemas, migrations, connections shared by every loop, reconnects.

Each test makes its own schema (the conformance suite runs on PostgreSQL
too, through ``conftest.py``). Without a reachable server these tests skip,
or fail under ``CI=true``.
"""

from __future__ import annotations

import asyncio
import selectors
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

import engine.checkpoint.postgres
from engine.checkpoint.base import LEASE_KEY, PendingWrite
from engine.checkpoint.postgres import PostgresSaver, _migrate
from engine.errors import CheckpointError
from tests.checkpoint._pg import drop_schema, dsn_named, new_schema_name, require_pg
from tests.checkpoint._util import cfg, make_cp

pytestmark = pytest.mark.usefixtures("pg_dsn")


@pytest.fixture
def schema() -> Iterator[str]:
    name = new_schema_name()
    yield name
    drop_schema(name)


@pytest.fixture
def admin() -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(require_pg(), autocommit=True) as conn:
        yield conn


def catalog(conn: psycopg.Connection[Any], schema: str, versions: str = _migrate.MIGRATIONS_TABLE) -> dict[str, Any]:
    """Tables, columns, constraints and indexes of a schema, as PostgreSQL reports them,
    and the versions recorded in its ``versions`` table."""
    columns = conn.execute(
        """SELECT table_name, ordinal_position, column_name, data_type, is_nullable, column_default,
                  collation_name, numeric_precision
           FROM information_schema.columns WHERE table_schema = %s ORDER BY table_name, ordinal_position""",
        (schema,),
    ).fetchall()
    constraints = conn.execute(
        """SELECT t.relname, c.conname, c.contype, pg_get_constraintdef(c.oid)
           FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
           WHERE n.nspname = %s ORDER BY t.relname, c.conname""",
        (schema,),
    ).fetchall()
    indexes = conn.execute(
        "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = %s ORDER BY tablename, indexname",
        (schema,),
    ).fetchall()
    versions = conn.execute(
        sql.SQL("SELECT version FROM {} ORDER BY version").format(sql.Identifier(schema, versions))
    ).fetchall()
    storage = conn.execute(  # where a column's values go (0015: blobs.data stays in the table's pages)
        """SELECT t.relname, a.attname, a.attstorage FROM pg_attribute a JOIN pg_class t ON t.oid = a.attrelid
           JOIN pg_namespace n ON n.oid = t.relnamespace
           WHERE n.nspname = %s AND t.relkind = 'r' AND a.attnum > 0 ORDER BY t.relname, a.attname""",
        (schema,),
    ).fetchall()
    out = {"columns": columns, "constraints": constraints, "indexes": indexes, "versions": versions, "storage": storage}
    return _without(schema, out)


def _without(schema: str, data: Any) -> Any:
    """``data`` with the schema's name replaced by a placeholder in every string (catalogs differ by it)."""
    if isinstance(data, str):
        return data.replace(schema, "<schema>")
    if isinstance(data, dict):
        return {k: _without(schema, v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return type(data)(_without(schema, v) for v in data)
    return data


def test_package_exports_are_pinned() -> None:
    assert engine.checkpoint.postgres.__all__ == ["BasePostgresSaver", "Conn", "PostgresSaver", "ShallowPostgresSaver"]  # LangGraph's names


# -- migrations ------------------------------------------------------------------------
def test_a_new_schema_gets_the_latest_version(schema: str, admin: psycopg.Connection[Any]) -> None:
    numbers = [n for n, _ in _migrate.migrations()]
    assert numbers == list(range(1, len(numbers) + 1)) and numbers
    PostgresSaver.from_dsn(require_pg(), schema=schema).close()
    assert catalog(admin, schema)["versions"] == [(n,) for n in numbers]


def test_applying_every_migration_equals_the_fresh_schema(admin: psycopg.Connection[Any]) -> None:
    fresh, migrated, opened = new_schema_name(), new_schema_name(), new_schema_name()
    try:
        for name, scripts in ((fresh, [(_migrate.latest_version(), _migrate.fresh_schema())]),
                              (migrated, list(_migrate.migrations()))):  # fmt: skip
            with admin.transaction():
                admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
                admin.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(name)))
                admin.execute(_migrate._CREATE_TABLE)
                for number, text in scripts:
                    admin.execute(text)
                for number in range(1, _migrate.latest_version() + 1):
                    admin.execute(sql.SQL("INSERT INTO {} (version) VALUES (%s)").format(
                        sql.Identifier(name, _migrate.MIGRATIONS_TABLE)), (number,))  # fmt: skip
        PostgresSaver.from_dsn(require_pg(), schema=opened).close()
        want = catalog(admin, fresh)
        assert want["columns"] and want["constraints"] and want["indexes"]  # the comparison compares something
        assert ("blobs", "data", "m") in want["storage"]  # 0015: in the table's pages when it fits
        assert catalog(admin, migrated) == want
        assert catalog(admin, opened) == want
    finally:
        for name in (fresh, migrated, opened):
            drop_schema(name)


def test_a_failed_migration_leaves_the_schema_as_it_was(
    schema: str, admin: psycopg.Connection[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    PostgresSaver.from_dsn(require_pg(), schema=schema).close()
    before = catalog(admin, schema)
    broken = (*_migrate.migrations(), (_migrate.latest_version() + 1, "CREATE TABLE extra (a int);\nSELECT no_such_fn();"))
    monkeypatch.setattr(_migrate, "migrations", lambda: broken)
    with pytest.raises(CheckpointError, match="no_such_fn"):
        PostgresSaver.from_dsn(require_pg(), schema=schema)
    monkeypatch.undo()
    assert catalog(admin, schema) == before  # no table "extra", the same versions


def test_a_schema_from_a_newer_version_is_refused(schema: str, admin: psycopg.Connection[Any]) -> None:
    PostgresSaver.from_dsn(require_pg(), schema=schema).close()
    admin.execute(sql.SQL("INSERT INTO {} (version) VALUES (%s)").format(
        sql.Identifier(schema, _migrate.MIGRATIONS_TABLE)), (_migrate.latest_version() + 1,))  # fmt: skip
    with pytest.raises(CheckpointError, match="newer"):
        PostgresSaver.from_dsn(require_pg(), schema=schema)


def test_replicas_starting_at_once_migrate_once(schema: str, admin: psycopg.Connection[Any]) -> None:
    start = threading.Barrier(6)
    errors: list[BaseException] = []

    def replica() -> None:
        try:
            start.wait()
            PostgresSaver.from_dsn(require_pg(), schema=schema).close()
        except BaseException as exc:  # noqa: BLE001 - collected, asserted empty
            errors.append(exc)

    workers = [threading.Thread(target=replica) for _ in range(6)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert errors == []
    assert catalog(admin, schema)["versions"] == [(n,) for n in range(1, _migrate.latest_version() + 1)]


@pytest.mark.parametrize("bad", ['a"b', "1abc", "x; DROP TABLE y", "", "a" * 64, "schéma", "a b", None.__class__])
def test_schema_names_must_be_identifiers(bad: Any) -> None:
    with pytest.raises(ValueError, match="identifier"):
        PostgresSaver(require_pg(), schema=bad)


def test_an_unreachable_database_fails_at_start_up_with_a_readable_error() -> None:
    with pytest.raises(CheckpointError, match="cannot open the checkpoint database") as info:
        PostgresSaver.from_dsn("postgresql://root@127.0.0.1:1/test?connect_timeout=2")
    assert isinstance(info.value.__cause__, psycopg.OperationalError)


# -- connections -------------------------------------------------------------------------
def connections(admin: psycopg.Connection[Any], app: str) -> int:
    row = admin.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (app,)).fetchone()
    return int(row[0]) if row else 0


def wait_for_no_connections(admin: psycopg.Connection[Any], app: str) -> int:
    """How many sessions named ``app`` remain, once none do or after a generous deadline.

    The server notices closed sockets a moment later; under load that moment
    can be long, so this waits on the condition rather than for a time.
    """
    deadline = time.monotonic() + 20
    while connections(admin, app) != 0 and time.monotonic() < deadline:
        admin.execute("SELECT pg_sleep(0.02)")
    return connections(admin, app)


def test_sync_use_from_many_threads_and_loops_then_close_releases_every_connection(
    schema: str, admin: psycopg.Connection[Any]
) -> None:
    app = f"gw_test_{uuid.uuid4().hex[:8]}"
    saver = PostgresSaver.from_dsn(dsn_named(app), schema=schema, max_size=2)
    errors: list[BaseException] = []

    def work(n: int) -> None:  # each thread: its own event loop, hence its own pool
        try:
            config = cfg(f"thread-{n}")
            for step in range(10):
                cp = make_cp({"n": n, "log": list(range(step + 1))}, version=step + 1)
                config = saver.put(config, cp, {"source": "loop", "step": step}, cp["channel_versions"])
                saver.put_writes(config, [("w", step)], task_id="t")
        except BaseException as exc:  # noqa: BLE001 - collected, asserted empty
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert errors == []

    async def inside_a_loop() -> None:  # the sync face from async code runs on a worker thread
        got = saver.get_tuple(cfg("thread-0"))
        assert got is not None and got.checkpoint["channel_values"] == {"n": 0, "log": list(range(10))}
        assert (await saver.aget_tuple(cfg("thread-1"))) is not None

    asyncio.run(inside_a_loop())
    for n in range(4):
        got = saver.get_tuple(cfg(f"thread-{n}"))
        assert got is not None and got.pending_writes == [PendingWrite("t", "w", 9)]
    assert connections(admin, app) >= 1
    saver.close()
    assert wait_for_no_connections(admin, app) == 0


def test_the_sync_face_from_long_lived_threads_shares_the_savers_few_connections(
    schema: str, admin: psycopg.Connection[Any]
) -> None:
    """ToolNode's worker threads call a saver's or a store's sync face and live on,
    each with an event loop of its own for good. The connections are the saver's
    (the store's), not those loops': at most ``max_size`` while the threads live,
    and none once it is closed."""
    from engine.store.postgres import PostgresStore

    app = f"gw_test_{uuid.uuid4().hex[:8]}"
    saver = PostgresSaver.from_dsn(dsn_named(app), schema=schema, max_size=2)
    store = PostgresStore.from_dsn(dsn_named(f"{app}_store"), schema=schema, max_size=2)
    used, done = threading.Barrier(7), threading.Event()
    errors: list[BaseException] = []

    def tool(n: int) -> None:
        try:
            config = saver.put(cfg(f"thread-{n}"), make_cp({"n": n}), {"step": 0}, {"n": 1})
            assert saver.get_tuple(config) is not None
            store.put(("memories", str(n)), "k", {"n": n})
            assert store.get(("memories", str(n)), "k") is not None
        except BaseException as exc:  # noqa: BLE001 - collected, asserted empty
            errors.append(exc)
        used.wait(30)
        done.wait(30)  # alive, as a pool's worker thread is

    workers = [threading.Thread(target=tool, args=(n,)) for n in range(6)]
    for w in workers:
        w.start()
    try:
        used.wait(30)
        assert errors == []
        assert 1 <= connections(admin, app) <= 2
        assert 1 <= connections(admin, f"{app}_store") <= 2
    finally:
        done.set()
        for w in workers:
            w.join()
    saver.close()
    store.close()
    assert wait_for_no_connections(admin, app) == 0
    assert wait_for_no_connections(admin, f"{app}_store") == 0


class StallingProxy:
    """A TCP relay to PostgreSQL that can withhold the server's replies on one connection.

    The connection accepted next after :meth:`stall_next` reaches the server,
    which starts its session, but nothing the server sends is passed on: the
    client's connect stays half-open, as when its event loop stops before it
    reads the reply. ``replied`` is set once the server has said it is ready
    for queries on that connection. A client closing its socket closes the
    server's side too, so the server's session ends with the client's.
    """

    _READY = b"Z\x00\x00\x00\x05I"  # ReadyForQuery, idle: the last message of a session's start

    def __init__(self, upstream: str) -> None:
        params = conninfo_to_dict(upstream)
        self._upstream = (str(params.get("host") or "127.0.0.1"), int(params.get("port") or 5432))
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self.replied = threading.Event()
        self._stall = False
        self._stop_r, self._stop_w = socket.socketpair()
        self._thread = threading.Thread(target=self._run, name="stalling-proxy", daemon=True)
        self._thread.start()

    def stall_next(self) -> None:
        self._stall = True

    def close(self) -> None:
        self._stop_w.send(b"x")
        self._thread.join()
        for sock in (self._listener, self._stop_r, self._stop_w):
            sock.close()

    def _run(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self._listener, selectors.EVENT_READ)
        sel.register(self._stop_r, selectors.EVENT_READ)
        while True:
            for key, _ in sel.select():
                if key.fileobj is self._stop_r:
                    for other in list(sel.get_map().values()):
                        if other.data is not None:
                            other.fileobj.close()  # type: ignore[union-attr]
                    sel.close()
                    return
                if key.fileobj is self._listener:
                    client, _ = self._listener.accept()
                    server = socket.create_connection(self._upstream)
                    withheld, self._stall = (bytearray() if self._stall else None), False
                    sel.register(client, selectors.EVENT_READ, (server, None))  # data: (peer, withheld bytes)
                    sel.register(server, selectors.EVENT_READ, (client, withheld))
                    continue
                sock, (peer, withheld) = key.fileobj, key.data
                assert isinstance(sock, socket.socket)
                if sock.fileno() == -1:  # closed with its peer earlier in this round
                    continue
                try:
                    data = sock.recv(65536)
                except OSError:  # reset: as closed
                    data = b""
                if not data:  # one side closed: close both
                    for end_ in (sock, peer):
                        sel.unregister(end_)
                        end_.close()
                elif withheld is None:
                    peer.sendall(data)
                else:
                    withheld += data
                    if withheld.endswith(self._READY):
                        self.replied.set()


def test_a_connection_still_opening_when_asyncio_run_ends_is_closed_with_the_saver(
    schema: str, admin: psycopg.Connection[Any]
) -> None:
    """A call's connection may still be opening, its session already started on
    the server, when the loop that awaits the call ends. The connection
    belongs to the saver's pool, not to that loop: it stays the saver's, and
    closing the saver ends its session (the connect gives up after the
    saver's ``timeout``: libpq's connect_timeout)."""
    app = f"gw_test_{uuid.uuid4().hex[:8]}"
    proxy = StallingProxy(require_pg())
    try:
        # No SSL or GSS negotiation: the session's start goes out at once, and the server answers it.
        dsn = make_conninfo(require_pg(), host="127.0.0.1", port=str(proxy.port), application_name=app,
                            sslmode="disable", gssencmode="disable")  # fmt: skip
        # min_size=0: the pool opens no connection of its own at once, only the one the call asks for.
        saver = PostgresSaver.from_dsn(dsn, schema=schema, min_size=0, max_size=2, timeout=2)
        proxy.stall_next()  # the saver's first connection stays half-open

        async def use_then_end() -> None:
            call = asyncio.ensure_future(saver.aget_tuple(cfg()))
            assert await asyncio.to_thread(proxy.replied.wait, 30), "the stalled session never started"
            assert connections(admin, app) == 1
            call.cancel()  # asyncio.run ends while the call's connection is half-open

        asyncio.run(use_then_end())
        saver.close()
        assert wait_for_no_connections(admin, app) == 0
    finally:
        proxy.close()


def test_many_asyncio_runs_on_one_saver_neither_hang_nor_pile_up_connections(
    schema: str, admin: psycopg.Connection[Any]
) -> None:
    app = f"gw_test_{uuid.uuid4().hex[:8]}"
    saver = PostgresSaver.from_dsn(dsn_named(app), schema=schema, max_size=3)

    async def burst(i: int) -> None:
        cp = make_cp({"i": i}, version=i + 1)
        config = await saver.aput(cfg(), cp, {"step": i}, cp["channel_versions"])
        await asyncio.gather(*(saver.aget_tuple(config) for _ in range(5)))  # grows the pool

    for i in range(8):
        asyncio.run(burst(i))  # each run's loop closes its pool on the way out
    assert connections(admin, app) <= 3 + 1
    saver.close()


def test_connections_the_server_dropped_are_replaced_without_failing_a_call(
    schema: str, admin: psycopg.Connection[Any]
) -> None:
    app = f"gw_test_{uuid.uuid4().hex[:8]}"
    saver = PostgresSaver.from_dsn(dsn_named(app), schema=schema, min_size=2, max_size=2)

    async def scenario() -> None:
        config = await saver.aput(cfg(), make_cp({"a": 1}), {"step": 0}, {"a": 1})
        await asyncio.gather(saver.aget_tuple(config), saver.aget_tuple(config))  # both connections used
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s", (app,))
        await asyncio.sleep(0.05)
        got = await saver.aget_tuple(config)  # the first connections it takes are dead
        assert got is not None and got.checkpoint["channel_values"] == {"a": 1}
        config = await saver.aput(config, make_cp({"a": 2}, 2), {"step": 1}, {"a": 2})
        got = await saver.aget_tuple(cfg())
        assert got is not None and got.checkpoint["channel_values"] == {"a": 2}
        await saver.aclose()

    asyncio.run(scenario())


# -- keys PostgreSQL text cannot hold --------------------------------------------------------
def test_keys_with_nul_or_lone_surrogates_read_as_absent_and_fail_to_write(schema: str) -> None:
    with PostgresSaverContext(schema) as saver:
        for bad in ("a\x00b", "\udcff"):
            assert saver.get_tuple(cfg(bad)) is None
            assert list(saver.list(cfg(bad))) == []
            saver.delete_thread(bad)
            with pytest.raises(ValueError, match="cannot store"):
                saver.put(cfg(bad), make_cp({"a": 1}), {}, {"a": 1})


# -- history --------------------------------------------------------------------------------
def test_a_long_history_is_listed_in_pages_with_its_writes(schema: str) -> None:
    with PostgresSaverContext(schema, delta_fanout=8) as saver:
        config, made, log = cfg(), [], []
        for step in range(300):
            log = log + [step]
            cp = make_cp({"log": log, "step": step}, version=step + 1)
            config = saver.put(config, cp, {"source": "loop", "step": step}, cp["channel_versions"])
            if step % 7 == 0:
                saver.put_writes(config, [("w", step), ("v", -step)], task_id=f"task-{step}")
            made.append((config, log, step))
        listed = list(saver.list(cfg()))
        assert [t.config for t in listed] == [c for c, _, _ in reversed(made)]
        for t, (_, log_, step) in zip(listed, reversed(made)):
            assert t.checkpoint["channel_values"] == {"log": log_, "step": step}
            want = [PendingWrite(f"task-{step}", "w", step), PendingWrite(f"task-{step}", "v", -step)]
            assert t.pending_writes == (want if step % 7 == 0 else [])
        assert [t.metadata["step"] for t in saver.list(cfg(), filter={"source": "loop"}, limit=3)] == [299, 298, 297]


class PostgresSaverContext:
    def __init__(self, schema: str, **options: Any) -> None:
        self.saver = PostgresSaver.from_dsn(require_pg(), schema=schema, **options)

    def __enter__(self) -> PostgresSaver:
        return self.saver

    def __exit__(self, *exc: object) -> None:
        self.saver.close()


# -- the fencing token ----------------------------------------------------------------------
def test_writes_carrying_a_lease_run_in_a_transaction_and_store_the_same(schema: str) -> None:
    with PostgresSaverContext(schema) as saver:
        lease = saver.leases.acquire_lease("t1", "me", ttl=60)
        assert lease is not None
        leased = {"configurable": {**cfg()["configurable"], LEASE_KEY: lease}}
        config = saver.put(leased, make_cp({"xs": [1]}), {"step": 0}, {"xs": 1})
        config = saver.put({"configurable": {**config["configurable"], LEASE_KEY: lease}},
                           make_cp({"xs": [1, 2]}, 2), {"step": 1}, {"xs": 2})  # fmt: skip
        saver.put_writes({"configurable": {**config["configurable"], LEASE_KEY: lease}}, [("w", 1)], task_id="t")
        got = saver.get_tuple(cfg())
        assert got is not None and got.config == config
        assert got.checkpoint["channel_values"] == {"xs": [1, 2]}
        assert got.pending_writes == [PendingWrite("t", "w", 1)]


def test_a_token_that_is_not_a_lease_is_refused(schema: str) -> None:
    with PostgresSaverContext(schema) as saver:
        with pytest.raises(TypeError, match="must be a Lease"):
            saver.put({"configurable": {**cfg()["configurable"], LEASE_KEY: "epoch-1"}}, make_cp({"a": 1}), {}, {"a": 1})
        assert saver.get_tuple(cfg()) is None


# -- listing threads ---------------------------------------------------------------------------
def test_threads_are_listed_by_prefix_newest_first(schema: str) -> None:
    with PostgresSaverContext(schema) as saver:
        newest = {}
        for thread in ("g:one", "g:two", "g%_:x", "h", "g:one"):
            newest[thread] = saver.put(cfg(thread), make_cp({"a": 1}), {}, {"a": 1})["configurable"]["checkpoint_id"]
        saver.put({"configurable": {"thread_id": "g:sub", "checkpoint_ns": "child"}}, make_cp({"a": 1}), {}, {"a": 1})
        listed = list(saver.list_threads(prefix="g:"))
        assert [(t.thread_id, t.checkpoint_id) for t in listed] == [("g:one", newest["g:one"]), ("g:two", newest["g:two"])]
        assert [t.thread_id for t in saver.list_threads()] == ["g:one", "h", "g%_:x", "g:two"]
        assert [t.thread_id for t in saver.list_threads(prefix="g%_")] == ["g%_:x"]  # not a pattern
        assert [t.thread_id for t in saver.list_threads(limit=1)] == ["g:one"]
        assert list(saver.list_threads(limit=0)) == [] and list(saver.list_threads(prefix="\x00")) == []
        with pytest.raises(ValueError, match="limit"):
            list(saver.list_threads(limit=-1))
