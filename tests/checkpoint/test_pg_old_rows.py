"""Old rows on PostgreSQL: a schema an earlier version wrote opens, migrates and reads back exactly.

Each corpus (``corpus/postgres-v*.sql``, written by that version with
``make_pg_corpus.py``) is loaded into a schema at its version, as a database
already in service; the current saver migrates it, must read every version
of every namespace as recorded, and then goes on writing the same threads
(new rows, refs included, on top of the old ones), pruning and deleting them.

A failure here means a change broke data already in customers' databases:
fix the change (or add a migration), never the corpus.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from engine.checkpoint.postgres import PostgresSaver, _migrate
from tests.checkpoint._pg import drop_schema, new_schema_name, require_pg
from tests.checkpoint.make_pg_corpus import build, describe, digest, user

CORPORA = sorted((Path(__file__).parent / "corpus").glob("postgres-v*.sql"))


@pytest.fixture(params=CORPORA, ids=[p.stem for p in CORPORA])
def old_schema(request: pytest.FixtureRequest) -> Iterator[tuple[str, dict[str, Any]]]:
    """A schema at the corpus's version holding its rows, and what they must read as."""
    corpus: Path = request.param
    version = int(corpus.stem.rpartition("-v")[2])
    name = new_schema_name()
    with psycopg.connect(require_pg(), autocommit=True) as conn, conn.transaction():
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
        conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(name)))
        conn.execute(_migrate._CREATE_TABLE)
        for number, text in _migrate.migrations()[:version]:
            conn.execute(text)
            conn.execute(sql.SQL("INSERT INTO {} (version) VALUES (%s)").format(sql.Identifier(_migrate.MIGRATIONS_TABLE)), (number,))
        conn.execute(corpus.read_text(encoding="utf-8"))
    try:
        yield name, json.loads(corpus.with_name(f"{corpus.stem}.expected.json").read_text(encoding="utf-8"))
    finally:
        drop_schema(name)


def test_there_is_a_corpus_older_than_the_schema() -> None:
    assert CORPORA and all(int(p.stem.rpartition("-v")[2]) < _migrate.latest_version() for p in CORPORA)


def test_old_rows_read_back_exactly_and_the_threads_go_on(old_schema: tuple[str, dict[str, Any]]) -> None:
    schema, expected = old_schema
    saver = PostgresSaver.from_dsn(require_pg(), schema=schema)  # migrates the old schema
    try:
        with psycopg.connect(require_pg()) as conn:
            applied = conn.execute(sql.SQL("SELECT max(version) FROM {}").format(
                sql.Identifier(schema, _migrate.MIGRATIONS_TABLE))).fetchone()  # fmt: skip
        assert applied == (_migrate.latest_version(),)
        for thread, recorded in expected.items():
            assert describe(saver, thread) == recorded, thread
        # The threads go on: new versions (deltas on old rows, refs to them) read back as a copy would.
        for thread in expected:
            graph = build(saver, thread)
            config = {"configurable": {"thread_id": thread}}
            before = graph.get_state(config).values
            turns = before["turns"]
            for turn in range(turns, turns + 3):
                graph.invoke(user(turn), config)
            after = graph.get_state(config).values
            assert after["messages"][: len(before["messages"])] == before["messages"]
            assert len(after["messages"]) == len(before["messages"]) + 6 and after["turns"] == turns + 3
            old = {(v["ns"], v["id"]): v for v in expected[thread]}
            now = describe(saver, thread)
            assert [v for v in now if (v["ns"], v["id"]) in old] == expected[thread]  # old versions unchanged
            assert len(now) > len(old)
            if thread == "supervisor":  # the agent's new calls refer to the old conversation, not copy it
                with psycopg.connect(require_pg()) as conn:
                    (refs,) = conn.execute(sql.SQL("SELECT count(*) FROM {} WHERE thread_id = %s AND ref_version IS NOT NULL").format(
                        sql.Identifier(schema, "writes")), (thread,)).fetchone() or (0,)  # fmt: skip
                assert refs >= 3
            # Prune and delete leave what the newest versions read, then nothing.
            newest = {v["ns"]: v for v in now}
            saver.prune(f"{thread}", keep_last=1)
            assert {v["ns"]: v for v in describe(saver, thread)} == newest
            assert digest(graph.get_state(config).values) == digest(after)
            saver.delete_thread(thread)
            with psycopg.connect(require_pg()) as conn:
                for table in ("checkpoints", "blobs", "writes"):
                    (n,) = conn.execute(sql.SQL("SELECT count(*) FROM {} WHERE thread_id = %s").format(
                        sql.Identifier(schema, table)), (thread,)).fetchone() or (None,)  # fmt: skip
                    assert n == 0, (thread, table)
    finally:
        saver.close()
