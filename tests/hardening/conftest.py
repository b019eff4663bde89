"""Servers and storage access for the hardening suite.

``hardened`` (session-scoped, parametrised ``sqlite`` / ``postgres``) is a
real server process (the stock CLI) with a small message limit and, on
SQLite, a per-thread state size limit (``--max-state-bytes``).
Each comes with a :class:`Storage` that reads and crafts its rows directly,
the way an attacker with write access to the database would. PostgreSQL
servers use a schema of their own, dropped at the end; without a reachable
PostgreSQL they skip (fail under ``CI=true``, see :mod:`tests.checkpoint._pg`).

``sqlite_hardened`` is the SQLite one alone, for tests that need one server.

:func:`in_process` runs a server in the test's own event loop instead, for
tests that watch what the server holds (its run slots) while calls wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from engine.checkpoint._meta_form import unpack
from engine.serde import Serializer
from server.app import Server, build_server
from server.config import ServerConfig
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, require_pg
from tests.conftest import TEST_GRAPHS, ServerProcess, start_server_process

#: The hardened servers' request size limit (--max-message-bytes).
MAX_MESSAGE_BYTES = 1024 * 1024
#: The hardened SQLite server's per-thread state limit (max_state_bytes).
MAX_STATE_BYTES = 256 * 1024
GRAPHS = {**TEST_GRAPHS, "unsendable": "tests.hardening._unsendable:unsendable"}


@contextlib.asynccontextmanager
async def in_process(saver: Any, **config: Any) -> AsyncIterator[Server]:
    """A server on ``saver`` in the running event loop, with the test graphs; stopped at the end.

    Gated graphs need ``GRAPHWIRE_TEST_GATES`` set (``monkeypatch.setenv``).
    """
    srv = await build_server(ServerConfig(address="127.0.0.1:0", graphs=dict(GRAPHS), **config), checkpointer=saver)
    try:
        yield srv
    finally:
        await srv.stop(grace=5)


async def until(condition: Callable[[], Any], what: str, deadline: float = 60.0) -> Any:
    """Poll ``condition`` (its result awaited when it is a coroutine), yielding the loop, until it is
    truthy, and return that; fail after ``deadline`` seconds."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + deadline
    while True:
        got = condition()
        if asyncio.iscoroutine(got):
            got = await got
        if got:
            return got
        if loop.time() > give_up:
            raise AssertionError(f"timed out after {deadline}s waiting for {what}")
        await asyncio.sleep(0.01)


def rss_kib(pid: int, which: str = "VmRSS") -> int:
    """The resident set size of process ``pid`` in KiB (``VmRSS`` of /proc/PID/status; ``VmHWM``: its peak)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{which}:"):
            return int(line.split()[1])
    raise RuntimeError(f"no {which} for process {pid}")


def _plain(value: Any) -> Any:
    """A column value as comparable data: bytes as bytes, PostgreSQL's json/jsonb as canonical text."""
    if isinstance(value, memoryview):
        return bytes(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return value


@dataclass
class Storage:
    """Direct access to a server's checkpoint tables (SQLite file or PostgreSQL schema)."""

    kind: str
    db: Path | None = None
    schema: str | None = None

    # -- plumbing ------------------------------------------------------------------
    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        if self.kind == "sqlite":
            with sqlite3.connect(self.db, timeout=10) as conn:  # type: ignore[arg-type]
                rows = conn.execute(sql.replace("%s", "?"), params).fetchall()
            conn.close()
            return rows
        import psycopg

        with psycopg.connect(DSN, autocommit=True, options=f"-csearch_path={self.schema}") as conn:
            cur = conn.execute(sql, params)  # type: ignore[arg-type]
            return cur.fetchall() if cur.description else []

    # -- reading -------------------------------------------------------------------
    def head(self, key: str) -> str:
        """The newest checkpoint id of storage thread ``key`` ("graph:thread")."""
        rows = self._run(
            "SELECT checkpoint_id FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = '' "
            "ORDER BY checkpoint_id DESC LIMIT 1",
            (key,),
        )
        assert rows, f"no checkpoint stored for {key!r}"
        return str(rows[0][0])

    def versions(self, key: str, checkpoint_id: str) -> dict[str, int]:
        """The channel versions a stored checkpoint names."""
        if self.kind == "sqlite":
            ((tag, data),) = self._run(
                "SELECT type, checkpoint FROM checkpoints WHERE thread_id = %s AND checkpoint_id = %s", (key, checkpoint_id)
            )
            meta = Serializer().loads_typed((tag, bytes(data)))
            return dict(unpack(meta)["channel_versions"])  # under one-letter keys, or long ones
        ((versions,),) = self._run(
            "SELECT versions FROM checkpoints WHERE thread_id = %s AND checkpoint_id = %s", (key, checkpoint_id)
        )
        return dict(versions)

    def rows(self, key: str) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of a thread, per table, sorted, bytes as bytes: for byte-for-byte comparisons."""
        out = {}
        for table in ("checkpoints", "blobs", "writes"):
            found = self._run(f"SELECT * FROM {table} WHERE thread_id = %s", (key,))
            out[table] = sorted(tuple(_plain(v) for v in r) for r in found)
        return out

    # -- crafting ------------------------------------------------------------------
    def set_blob(self, key: str, channel: str, version: int, tag: str, data: bytes) -> None:
        """Replace one stored channel value (made a full value, not a delta)."""
        self._run(
            "UPDATE blobs SET type = %s, data = %s, base_version = NULL, seq = 0 "
            "WHERE thread_id = %s AND channel = %s AND version = %s",
            (tag, data, key, channel, version),
        )

    def drop_blob(self, key: str, channel: str, version: int) -> None:
        """Delete one stored channel value (a row a checkpoint names, gone by hand or by a bug)."""
        self._run("DELETE FROM blobs WHERE thread_id = %s AND channel = %s AND version = %s", (key, channel, version))

    def set_meta(self, key: str, checkpoint_id: str, tag: str, data: bytes) -> None:
        """Replace a checkpoint's serialized meta (the ``checkpoint`` column)."""
        self._run(
            "UPDATE checkpoints SET type = %s, checkpoint = %s WHERE thread_id = %s AND checkpoint_id = %s",
            (tag, data, key, checkpoint_id),
        )

    def set_writes(self, key: str, checkpoint_id: str, tag: str, data: bytes) -> int:
        """Replace every pending write stored on a checkpoint; returns how many there were."""
        found = self._run("SELECT count(*) FROM writes WHERE thread_id = %s AND checkpoint_id = %s", (key, checkpoint_id))
        self._run(
            "UPDATE writes SET type = %s, data = %s WHERE thread_id = %s AND checkpoint_id = %s",
            (tag, data, key, checkpoint_id),
        )
        return int(found[0][0])

    def set_column(self, key: str, table: str, column: str, value_sql: str) -> None:
        """Set one column of a thread's newest rows in ``table`` to an SQL expression (``value_sql``).

        ``checkpoints``: the newest checkpoint's row; ``writes``: its pending
        writes; ``blobs``: the row of its ``messages`` value. Raises what the
        database raises when it refuses the value (a NULL in a NOT NULL column).
        """
        cid = self.head(key)
        where = {
            "checkpoints": ("thread_id = %s AND checkpoint_id = %s", (key, cid)),
            "writes": ("thread_id = %s AND checkpoint_id = %s", (key, cid)),
            "blobs": ("thread_id = %s AND channel = 'messages' AND version = %s", (key, self.versions(key, cid)["messages"])),
        }[table]
        self._run(f"UPDATE {table} SET {column} = {value_sql} WHERE {where[0]}", where[1])

    def blob_row(self, key: str) -> tuple[Any, ...]:
        """``(version, base_version, seq)`` of the newest checkpoint's ``messages`` row."""
        version = self.versions(key, self.head(key))["messages"]
        ((base, seq),) = self._run(
            "SELECT base_version, seq FROM blobs WHERE thread_id = %s AND channel = 'messages' AND version = %s",
            (key, version),
        )
        return version, base, seq

    def set_metadata(self, key: str, checkpoint_id: str, text: str) -> None:
        """Replace a checkpoint's metadata (JSON text; PostgreSQL's column is jsonb)."""
        cast = "" if self.kind == "sqlite" else "::jsonb"
        self._run(
            f"UPDATE checkpoints SET metadata = %s{cast} WHERE thread_id = %s AND checkpoint_id = %s",
            (text, key, checkpoint_id),
        )


@dataclass
class Hardened:
    """A hardened server and its storage."""

    kind: str
    server: ServerProcess
    storage: Storage

    def client(self, **kwargs: Any) -> Any:
        return self.server.client(**kwargs)

    def raw_unary(self, method: str, data: bytes) -> grpc.RpcError | bytes:
        """Send ``data`` as the request bytes of a unary GraphService method: its reply bytes, or its error."""
        with self.server.channel() as channel:
            call = channel.unary_unary(f"/graphwire.v1.GraphService/{method}", request_serializer=None, response_deserializer=None)
            try:
                return call(data, timeout=10)
            except grpc.RpcError as exc:
                return exc

    def raw_stream(self, method: str, data: bytes) -> grpc.RpcError | list[bytes]:
        """The same for a streaming method: every reply's bytes, or its error."""
        with self.server.channel() as channel:
            call = channel.unary_stream(f"/graphwire.v1.GraphService/{method}", request_serializer=None, response_deserializer=None)
            try:
                return list(call(data, timeout=10))
            except grpc.RpcError as exc:
                return exc


def _start_sqlite(workdir: Path) -> Hardened:
    srv = start_server_process(
        workdir,
        graphs=GRAPHS,
        args=["--max-message-bytes", str(MAX_MESSAGE_BYTES), "--max-state-bytes", str(MAX_STATE_BYTES)],
        env={"GRAPHWIRE_FORECAST_DELAY": "0"},
    )
    assert srv.db is not None
    return Hardened("sqlite", srv, Storage("sqlite", db=srv.db))


@pytest.fixture(scope="session")
def sqlite_hardened(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hardened]:
    h = _start_sqlite(tmp_path_factory.mktemp("hardened-sqlite"))
    yield h
    code = h.server.terminate()
    assert code == 0, f"server exited with {code} on SIGTERM:\n{h.server.log()}"


@pytest.fixture(scope="session")
def pg_hardened(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hardened]:
    require_pg()
    schema = new_schema_name()
    try:
        srv = start_server_process(
            tmp_path_factory.mktemp("hardened-pg"),
            graphs=GRAPHS,
            pg_dsn=DSN,
            pg_schema=schema,
            args=["--max-message-bytes", str(MAX_MESSAGE_BYTES)],
            env={"GRAPHWIRE_FORECAST_DELAY": "0"},
        )
        try:
            yield Hardened("postgres", srv, Storage("postgres", schema=schema))
        finally:
            code = srv.terminate()
            assert code == 0, f"server exited with {code} on SIGTERM:\n{srv.log()}"
    finally:
        drop_schema(schema)


@pytest.fixture(params=["sqlite", "postgres"])
def hardened(request: pytest.FixtureRequest) -> Hardened:
    """The hardened server of each storage kind."""
    return request.getfixturevalue({"sqlite": "sqlite_hardened", "postgres": "pg_hardened"}[request.param])


@pytest.fixture
def tid() -> str:
    """A fresh thread id."""
    return f"h-{uuid.uuid4().hex[:12]}"
