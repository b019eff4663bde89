"""Fixtures for engine tests: every run-model test runs on every saver."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from engine.checkpoint import InMemorySaver, SqliteSaver
from tests.checkpoint._pg import clean_schema, pg_admin, pg_dsn, pg_schema  # noqa: F401 - fixtures


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def checkpointer(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    if request.param == "memory":
        saver = InMemorySaver()
    elif request.param == "sqlite":
        saver = SqliteSaver(str(tmp_path / "engine.db"))
    else:
        from engine.checkpoint.postgres import PostgresSaver

        schema = request.getfixturevalue("pg_schema")  # one per test module, emptied per test
        clean_schema(request.getfixturevalue("pg_admin"), schema)
        saver = PostgresSaver.from_dsn(request.getfixturevalue("pg_dsn"), schema=schema, max_size=4)
    yield saver
    saver.close()
