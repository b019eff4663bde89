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

from engine._sql.postgres.text import compact
from engine.checkpoint.postgres import _queries as q

LONGEST_SCHEMA = "s" * 63


@pytest.mark.parametrize("name", [f.name for f in fields(q.Queries) if f.name != "tables"])
def test_every_statement_is_short_enough_to_be_parsed_once(name: str) -> None:
    text = getattr(q.render(LONGEST_SCHEMA), name)
    assert len(text.encode()) <= psycopg_queries.MAX_CACHED_STATEMENT_LENGTH, name


def test_compacting_keeps_literals_and_drops_comments() -> None:
    text = compact("SELECT '--', 'a'  -- a comment's end\n    FROM t  -- another\n\n")
    assert text == "SELECT '--', 'a'  -- a comment's end\nFROM t"
