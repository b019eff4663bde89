"""The PostgreSQL saver's statements as rendered: short enough for psycopg to parse once.

psycopg remembers a statement's parsed placeholders only when it is at most
``MAX_CACHED_STATEMENT_LENGTH`` bytes long; a longer one is parsed again at
every call (the get once cost ~80 µs of CPU a call that way). The longest
schema name a saver takes is the worst case.
"""

from __future__ import annotations

from dataclasses import fields

import pytest
from psycopg import _queries as psycopg_queries

from engine._sql.postgres.text import compact, positional
from engine.checkpoint.postgres import _queries as q

LONGEST_SCHEMA = "s" * 63


@pytest.mark.parametrize("name", [f.name for f in fields(q.Queries) if f.name != "tables"])
def test_every_statement_is_short_enough_to_be_parsed_once(name: str) -> None:
    text = getattr(q.render(LONGEST_SCHEMA), name)
    assert len(text.encode()) <= psycopg_queries.MAX_CACHED_STATEMENT_LENGTH, name


def test_compacting_keeps_literals_and_drops_comments() -> None:
    text = compact("SELECT '--', 'a'  -- a comment's end\n    FROM t  -- another\n\n")
    assert text == "SELECT '--', 'a'  -- a comment's end\nFROM t"


def test_a_statement_longer_than_psycopg_remembers_goes_positional() -> None:
    # A run's last versions with its end (engine/checkpoint/postgres/_prepared.py) is longer: it runs on a
    # raw cursor, its placeholders made positional once (one per name, as psycopg's own conversion makes them).
    text, names = positional("SELECT %(a)s, %(b)b, %(a)s WHERE x LIKE '%%y' AND %(c__d)s")
    assert text == "SELECT $1, $2, $1 WHERE x LIKE '%y' AND $3" and names == ("a", "b", "c__d")
    from engine.checkpoint.postgres._runs import PostgresRuns
    from engine.checkpoint.postgres._threads import PostgresThreads

    rendered = q.render(LONGEST_SCHEMA)
    runs = PostgresRuns(None, rendered, threads=PostgresThreads(None, rendered))  # type: ignore[arg-type]
    kind = (("checkpoint_id", "ended_at", "finished", "last_seq", "started", "status"), False, True, True)
    statement, order = runs._ending_sql(kind)
    assert len(statement.encode()) > psycopg_queries.MAX_CACHED_STATEMENT_LENGTH  # (why it is positional)
    assert "%(" not in statement and f"${len(order)}" in statement and f"${len(order) + 1}" not in statement
    assert {"bytes", "checkpoint_id", "e__checkpoint_id", "e__t__thread_id", "owner"} <= set(order)
