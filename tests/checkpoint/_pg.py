"""PostgreSQL for tests: where the server is, and a fresh schema per test module.

Tests that need PostgreSQL read ``GRAPHWIRE_TEST_PG_DSN`` (default: the
local server). When it cannot be reached they are skipped with the reason,
except under ``CI=true``, where they fail: CI must not pass by skipping.

Schemas: :func:`pg_schema` (module-scoped) creates and migrates a schema
named ``gw_test_<random>`` and drops it after the module; each test empties
its tables first (:func:`clean_schema`), which costs a millisecond where a
new schema would cost tens. Import the fixtures into a ``conftest.py`` to
use them (``from tests.checkpoint._pg import pg_dsn, pg_schema``).
"""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql

__all__ = ["DSN", "clean_schema", "dsn_named", "new_schema_name", "pg_dsn", "pg_schema", "require_pg", "unreachable_reason"]

DSN = os.environ.get("GRAPHWIRE_TEST_PG_DSN", "postgresql://root@127.0.0.1:5432/test")
_TABLES = ("writes", "blobs", "checkpoints", "leases", "run_events", "runs", "threads", "assistants", "assistant_versions", "crons", "webhooks", "delayed_runs")


@functools.cache
def unreachable_reason() -> str | None:
    """Why the test server cannot be used, or None when it can."""
    try:
        with psycopg.connect(DSN, autocommit=True, connect_timeout=5) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:  # noqa: BLE001 - any failure means "not here"
        return f"PostgreSQL at GRAPHWIRE_TEST_PG_DSN={DSN!r} cannot be reached: {type(exc).__name__}: {exc}"
    return None


def require_pg() -> str:
    """The DSN; skips the test when PostgreSQL is unreachable (fails it under CI=true)."""
    reason = unreachable_reason()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true: PostgreSQL tests must run)")
        pytest.skip(reason)
    return DSN


def dsn_named(app: str) -> str:
    """The test DSN with ``application_name`` set: its sessions can be found in ``pg_stat_activity``."""
    dsn = require_pg()
    return f"{dsn}{'&' if '?' in dsn else '?'}application_name={app}"


def new_schema_name() -> str:
    return f"gw_test_{uuid.uuid4().hex[:16]}"


def drop_schema(name: str) -> None:
    with psycopg.connect(DSN, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


def clean_schema(conn: psycopg.Connection[Any], name: str) -> None:
    """Empty the saver's tables in ``name`` (one statement; blobs' self-reference allows it)."""
    conn.execute(
        sql.SQL("; ").join(sql.SQL("DELETE FROM {}").format(sql.Identifier(name, t)) for t in _TABLES)  # type: ignore[arg-type]
    )


@pytest.fixture(scope="session")
def pg_dsn() -> str:
    return require_pg()


@pytest.fixture(scope="session")
def pg_admin(pg_dsn: str) -> Iterator[psycopg.Connection[Any]]:
    """One autocommit connection for the tests' own housekeeping."""
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        yield conn


@pytest.fixture(scope="module")
def pg_schema(pg_dsn: str) -> Iterator[str]:
    """A schema migrated to the current version, for one test module."""
    from engine.checkpoint.postgres import PostgresSaver

    name = new_schema_name()
    PostgresSaver(pg_dsn, schema=name).setup()
    try:
        yield name
    finally:
        drop_schema(name)
