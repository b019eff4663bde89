"""Fixtures of the cache spec suite: one ``cache`` per implementation.

Every test that takes ``cache`` (or ``new_cache``) runs once per entry of
:data:`CACHE_KINDS`. PostgreSQL caches live in a schema made for the test
module and emptied before each test; without a reachable server those tests
skip (fail under ``CI=true``).

The ``scoped`` kinds run the same suite through a
:class:`~engine.cache._scoped.ScopedCache` (a tenant's view of a shared
cache), whose cache already holds neighbours: entries under the namespaces
and keys the tests use, in another scope and outside any. A view that let
one of them through would fail the test that reads there.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from engine.cache._scoped import ScopedCache
from engine.cache.base import BaseCache
from engine.cache.memory import InMemoryCache
from engine.cache.postgres import PostgresCache
from engine.cache.redis import RedisCache
from engine.cache.sqlite import SqliteCache
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, pg_admin, pg_dsn  # noqa: F401 - fixtures

CACHE_KINDS = ["memory", "sqlite", "postgres", "redis", "memory scoped", "sqlite scoped", "postgres scoped", "redis scoped"]

#: Where neighbours are put: namespaces the tests use, and the keys they use there.
NEIGHBOUR_NAMESPACES = [("n",), ("a",), ("a", "b"), ("a,b",), ("m",)]
NEIGHBOUR_KEYS = ["k", "k0", "k1", "short", "long", "forever"]


class Clock:
    """Seconds since the epoch, moved by hand (caches read time through ``cache._now``)."""

    def __init__(self) -> None:
        self.now = 1_900_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(scope="module")
def cache_schema(pg_dsn: str) -> Iterator[str]:
    """A schema with the cache's table, for one test module."""
    name = new_schema_name()
    PostgresCache(pg_dsn, schema=name).setup()
    try:
        yield name
    finally:
        drop_schema(name)


@pytest.fixture
def redis_client() -> Iterator[Any]:
    """A client of the machine's Redis (127.0.0.1:6379); the keys a test made are deleted after it."""
    redis = pytest.importorskip("redis")
    client = redis.Redis(host="127.0.0.1", port=6379, socket_timeout=5)
    try:
        client.ping()
    except redis.RedisError as e:
        if os.environ.get("CI"):
            pytest.fail(f"CI=true but Redis at 127.0.0.1:6379 cannot be reached: {e}")
        pytest.skip(f"no Redis at 127.0.0.1:6379: {e}")
    yield client
    for key in client.scan_iter(match="test:*", count=500):
        client.delete(key)
    client.close()


@pytest.fixture(params=CACHE_KINDS)
def cache_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def new_cache(cache_kind: str, tmp_path: Path, request: pytest.FixtureRequest, clock: Clock) -> Iterator[Callable[[], BaseCache[Any]]]:
    """Build caches of the current kind, all on one database (memory: one each), on the test's clock."""
    made: list[BaseCache[Any]] = []
    prefix = f"test:{uuid.uuid4().hex}:"  # one database per test: the test run's other processes use their own
    schema: str | None = None
    backend = cache_kind.split()[0]
    if backend == "postgres":
        schema = request.getfixturevalue("cache_schema")
        admin = request.getfixturevalue("pg_admin")
        admin.execute(sql.SQL("DELETE FROM {}").format(sql.Identifier(schema, "cache_entries")))

    def build() -> BaseCache[Any]:
        if backend == "memory":
            cache: BaseCache[Any] = InMemoryCache()
        elif backend == "sqlite":
            cache = SqliteCache(path=tmp_path / "cache.db")
        elif backend == "redis":
            cache = RedisCache(request.getfixturevalue("redis_client"), prefix=prefix)
        else:
            cache = PostgresCache.from_dsn(DSN, schema=schema, max_size=4)
        cache._now = clock  # type: ignore[method-assign]
        made.append(cache)
        if cache_kind.endswith("scoped"):
            for root in ("tenant.other", None):
                view = cache if root is None else ScopedCache(cache, root)
                view.set({(ns, key): ({"neighbour": root}, None) for ns in NEIGHBOUR_NAMESPACES for key in NEIGHBOUR_KEYS})
            return ScopedCache(cache, "tenant.t")
        return cache

    yield build
    for c in made:
        c.close()


@pytest.fixture
def cache(new_cache: Callable[[], BaseCache[Any]]) -> BaseCache[Any]:
    return new_cache()


def count_rows(conn: psycopg.Connection[Any] | Any, table: sql.Composable | str) -> int:
    """How many rows ``table`` holds (a psycopg or sqlite3 connection)."""
    query = sql.SQL("SELECT count(*) FROM {}").format(table).as_string(None) if isinstance(table, sql.Composable) else f"SELECT count(*) FROM {table}"
    return int(conn.execute(query).fetchone()[0])
