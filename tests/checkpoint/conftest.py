"""Fixtures shared by the checkpoint tests: one ``saver`` per implementation.

Every test that takes ``saver`` runs once per entry of :data:`SAVER_KINDS`.
PostgreSQL savers live in a schema made for the test module (see
:mod:`tests.checkpoint._pg`), emptied before each test; without a reachable
server those tests skip (fail under ``CI=true``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from engine.checkpoint import BaseCheckpointSaver, InMemorySaver, SqliteSaver
from engine.checkpoint.postgres import PostgresSaver
from engine.checkpoint.sqlite import _queries
from engine.serde import Serializer
from tests.checkpoint._pg import DSN, clean_schema, pg_admin, pg_dsn, pg_schema  # noqa: F401 - fixtures

SAVER_KINDS = ["memory", "sqlite", "postgres"]


def make_saver(
    kind: str, tmp_path: Path, serde: Serializer | None = None, *, schema: str | None = None, **options: Any
) -> BaseCheckpointSaver:
    """A new saver of ``kind`` (for "postgres": on an existing, migrated ``schema``)."""
    if kind == "memory":
        return InMemorySaver(serde=serde, **options)
    if kind == "sqlite":
        return SqliteSaver(tmp_path / f"checkpoints-{id(serde)}.db", serde=serde, **options)
    if kind == "postgres":
        from tests.checkpoint._pg import DSN

        saver = PostgresSaver(DSN, schema=schema, serde=serde, max_size=4, **options)
        saver.setup()
        return saver
    raise ValueError(f"unknown saver kind {kind!r}")


def stored_blob_count(saver: BaseCheckpointSaver, thread_id: str) -> int:
    """How many channel values a saver holds for a thread (looks at its storage)."""
    if isinstance(saver, InMemorySaver):
        thread = saver._threads.get(thread_id)
        return 0 if thread is None else len(thread.blobs)
    if isinstance(saver, SqliteSaver):
        return saver._conn.execute(_queries.COUNT_BLOBS, (thread_id,)).fetchone()[0]
    if isinstance(saver, PostgresSaver):
        with psycopg.connect(saver._dsn) as conn:
            row = conn.execute(saver._q.COUNT_BLOBS, (thread_id,)).fetchone()
        return 0 if row is None else int(row[0])
    raise TypeError(f"no blob counter for {type(saver).__name__}")


def stored_blob_bytes(saver: BaseCheckpointSaver, thread_id: str) -> int:
    """How many bytes of serialized channel values a saver holds for a thread."""
    if isinstance(saver, InMemorySaver):
        thread = saver._threads.get(thread_id)
        return 0 if thread is None else sum(len(data) for _, data, *_ in thread.blobs.values())
    if isinstance(saver, SqliteSaver):
        row = saver._conn.execute("SELECT coalesce(sum(length(data)), 0) FROM blobs WHERE thread_id = ?", (thread_id,))
        return int(row.fetchone()[0])
    if isinstance(saver, PostgresSaver):
        with psycopg.connect(saver._dsn) as conn:
            query = "SELECT coalesce(sum(octet_length(data)), 0) FROM {} WHERE thread_id = %s"
            row = conn.execute(query.format(saver._q.tables["blobs"]), (thread_id,)).fetchone()  # type: ignore[arg-type]
        return 0 if row is None else int(row[0])
    raise TypeError(f"no blob counter for {type(saver).__name__}")


@pytest.fixture(params=SAVER_KINDS)
def saver_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def new_saver(
    saver_kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[..., BaseCheckpointSaver]]:
    """Build more savers of the current kind (e.g. with a custom serde); closed after the test.

    For "postgres", every saver of one test shares the module's schema,
    emptied when the test starts.
    """
    made: list[BaseCheckpointSaver] = []
    schema: str | None = None
    if saver_kind == "postgres":
        schema = request.getfixturevalue("pg_schema")
        clean_schema(request.getfixturevalue("pg_admin"), schema)

    def build(serde: Serializer | None = None, **options: Any) -> BaseCheckpointSaver:
        made.append(make_saver(saver_kind, tmp_path, serde, schema=schema, **options))
        return made[-1]

    yield build
    for s in made:
        s.close()


@pytest.fixture
def saver(new_saver: Callable[..., BaseCheckpointSaver]) -> BaseCheckpointSaver:
    return new_saver()


@pytest.fixture
def blob_count() -> Callable[[BaseCheckpointSaver, str], int]:
    return stored_blob_count


@pytest.fixture
def blob_bytes() -> Callable[[BaseCheckpointSaver, str], int]:
    return stored_blob_bytes


@pytest.fixture
def pg(pg_schema: str, pg_admin: psycopg.Connection[Any]) -> Iterator[PostgresSaver]:
    """A PostgreSQL saver on the module's schema, emptied first."""
    clean_schema(pg_admin, pg_schema)
    saver = PostgresSaver.from_dsn(DSN, schema=pg_schema, max_size=4)
    yield saver
    saver.close()
