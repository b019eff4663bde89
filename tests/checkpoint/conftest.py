"""Fixtures shared by the checkpoint tests: one ``saver`` per implementation.

Every test that takes ``saver`` runs once per entry of :data:`SAVER_KINDS`.
To add PostgreSQL: append ``"postgres"`` there, build it in :func:`make_saver`
(e.g. from a session fixture that starts a server and a fresh schema per test)
and teach :func:`stored_blob_count` to count its blobs table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.checkpoint import BaseCheckpointSaver, InMemorySaver, SqliteSaver
from engine.checkpoint.sqlite import _queries
from engine.serde import Serializer

SAVER_KINDS = ["memory", "sqlite"]  # add "postgres" here


def make_saver(kind: str, tmp_path: Path, serde: Serializer | None = None) -> BaseCheckpointSaver:
    """A new, empty saver of ``kind``."""
    if kind == "memory":
        return InMemorySaver(serde=serde)
    if kind == "sqlite":
        return SqliteSaver(tmp_path / f"checkpoints-{id(serde)}.db", serde=serde)
    raise ValueError(f"unknown saver kind {kind!r}")


def stored_blob_count(saver: BaseCheckpointSaver, thread_id: str) -> int:
    """How many channel values a saver holds for a thread (looks at its storage)."""
    if isinstance(saver, InMemorySaver):
        thread = saver._threads.get(thread_id)
        return 0 if thread is None else len(thread.blobs)
    if isinstance(saver, SqliteSaver):
        return saver._conn.execute(_queries.COUNT_BLOBS, (thread_id,)).fetchone()[0]
    raise TypeError(f"no blob counter for {type(saver).__name__}")


@pytest.fixture(params=SAVER_KINDS)
def saver_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def new_saver(saver_kind: str, tmp_path: Path) -> Iterator[Callable[..., BaseCheckpointSaver]]:
    """Build more savers of the current kind (e.g. with a custom serde); closed after the test."""
    made: list[BaseCheckpointSaver] = []

    def build(serde: Serializer | None = None) -> BaseCheckpointSaver:
        made.append(make_saver(saver_kind, tmp_path, serde))
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
