"""Fixtures of the store spec suite: one ``store`` per implementation.

Every test that takes ``store`` (or ``new_store``) runs once per entry of
:data:`STORE_KINDS`. PostgreSQL stores live in a schema made for the test
module and emptied before each test; without a reachable server those tests
skip (fail under ``CI=true``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from engine.store.base import BaseStore
from engine.store.memory import InMemoryStore
from engine.store.postgres import PostgresStore
from engine.store.sqlite import SqliteStore
from tests.checkpoint._pg import DSN, drop_schema, new_schema_name, pg_admin, pg_dsn  # noqa: F401 - fixtures

STORE_KINDS = ["memory", "sqlite", "postgres"]


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
    if store_kind == "postgres":
        schema = request.getfixturevalue("store_schema")
        clean_store_schema(request.getfixturevalue("pg_admin"), schema)

    def build(**options: Any) -> BaseStore:
        if store_kind == "memory":
            store: BaseStore = InMemoryStore(**options)
        elif store_kind == "sqlite":
            store = SqliteStore(tmp_path / "store.db", **options)
        else:
            store = PostgresStore.from_dsn(DSN, schema=schema, max_size=4, **options)
        store._now = clock  # type: ignore[attr-defined]
        made.append(store)
        return store

    yield build
    for s in made:
        s.close()


@pytest.fixture
def store(new_store: Callable[..., BaseStore]) -> BaseStore:
    return new_store()
