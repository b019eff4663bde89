"""Fixtures of the store spec suite: one ``store`` per implementation.

Every test that takes ``store`` (or ``new_store``) runs once per entry of
:data:`STORE_KINDS`. PostgreSQL stores live in a schema made for the test
module and emptied before each test; without a reachable server those tests
skip (fail under ``CI=true``).

The ``scoped`` kinds run the same suite through a
:class:`~engine.store.ScopedStore` (a tenant's view of a shared store), and
``outside`` through the view from outside every scope. Their stores already
hold neighbours: items under the namespaces and keys the tests use, in
another scope and outside any (for ``outside``: in scopes only). A view that
let one of them through would fail the test that reads there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from engine.store import ScopedStore
from engine.store.base import BaseStore, PutOp
from engine.store.memory import InMemoryStore
from engine.store.postgres import PostgresStore
from engine.store.sqlite import SqliteStore
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, pg_admin, pg_dsn  # noqa: F401 - fixtures

STORE_KINDS = ["memory", "sqlite", "postgres", "memory scoped", "sqlite scoped", "sqlite outside"]

#: Where neighbours are put: namespaces the tests use, and the keys they use there.
NEIGHBOUR_NAMESPACES = [("docs", "b"), ("docs",), ("n",), ("a",), ("d",), ("ok",), ("m", "u1"), ("memories", "u1")]
NEIGHBOUR_KEYS = ["k", "k0", "k1", "short", "a"]


class Clock:
    """A clock the test moves by hand (stores read time through ``store._now``)."""

    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, minutes: float) -> None:
        self.now += timedelta(minutes=minutes)


@pytest.fixture(scope="module")
def store_schema(pg_dsn: str) -> Iterator[str]:
    """A schema with the store's tables, for one test module."""
    name = new_schema_name()
    PostgresStore(pg_dsn, schema=name).setup()
    try:
        yield name
    finally:
        drop_schema(name)


def clean_store_schema(conn: psycopg.Connection[Any], name: str) -> None:
    conn.execute(sql.SQL("DELETE FROM {}; DELETE FROM {}").format(
        sql.Identifier(name, "store_vectors"), sql.Identifier(name, "store_items")))  # fmt: skip


@pytest.fixture(params=STORE_KINDS)
def store_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def new_store(store_kind: str, tmp_path: Path, request: pytest.FixtureRequest, clock: Clock) -> Iterator[Callable[..., BaseStore]]:
    """Build stores of the current kind (``index=``, ``ttl=``), all on one database, on the test's clock."""
    made: list[BaseStore] = []
    schema: str | None = None
    backend = store_kind.split()[0]
    if backend == "postgres":
        schema = request.getfixturevalue("store_schema")
        clean_store_schema(request.getfixturevalue("pg_admin"), schema)

    def build(**options: Any) -> BaseStore:
        if backend == "memory":
            store: BaseStore = InMemoryStore(**options)
        elif backend == "sqlite":
            store = SqliteStore(tmp_path / "store.db", **options)
        else:
            store = PostgresStore.from_dsn(DSN, schema=schema, max_size=4, **options)
        store._now = clock  # type: ignore[attr-defined]
        made.append(store)
        if " " in store_kind:
            return _viewed(store, store_kind.split()[1])
        return store

    yield build
    for s in made:
        s.close()


@pytest.fixture
def store(new_store: Callable[..., BaseStore]) -> BaseStore:
    return new_store()


def _viewed(store: BaseStore, how: str) -> BaseStore:
    """``store`` with neighbours, seen through a scope ("scoped") or from outside every scope ("outside")."""
    roots: list[str | None] = ["tenant.other", "tenant.t-2"] if how == "outside" else ["tenant.other", None]
    for root in roots:
        ScopedStore(store, root).batch(
            [PutOp(ns, key, {"neighbour": root or "unscoped"}, index=False) for ns in NEIGHBOUR_NAMESPACES for key in NEIGHBOUR_KEYS]
        )
    return ScopedStore(store, "tenant.t" if how == "scoped" else None)
