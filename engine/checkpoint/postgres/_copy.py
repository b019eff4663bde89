"""Copying a thread on PostgreSQL: every row of the source under the target's id, in one statement.

One statement reads one snapshot of the source (a run writing it meanwhile
is copied up to a version, or not at all); the blobs' foreign keys, to rows of
the same thread, are checked at its end. Versions keep their ids. Given the
target's lease, the copy is fenced as a delete is (the lease must hold, and
its head is reset: the target's next version may continue any copied one).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from psycopg import Connection, sql

__all__ = ["copy_thread"]

COPY_THREAD = """
WITH copied_checkpoints AS (
    INSERT INTO {checkpoints} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, ts, type, checkpoint, metadata, versions, run_id)
    SELECT %(target)s, checkpoint_ns, checkpoint_id, parent_checkpoint_id, ts, type, checkpoint, metadata, versions, run_id
    FROM {checkpoints} WHERE thread_id = %(source)s
    RETURNING 1
), copied_blobs AS (
    INSERT INTO {blobs} (thread_id, checkpoint_ns, channel, version, type, data, base_version, seq, ref_ns, ref_channel, ref_version, ref_key)
    SELECT %(target)s, checkpoint_ns, channel, version, type, data, base_version, seq, ref_ns, ref_channel, ref_version, ref_key
    FROM {blobs} WHERE thread_id = %(source)s
    RETURNING 1
)
INSERT INTO {writes} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, data, task_path, ref_ns, ref_channel, ref_version, ref_key)
SELECT %(target)s, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, data, task_path, ref_ns, ref_channel, ref_version, ref_key
FROM {writes} WHERE thread_id = %(source)s
"""


async def copy_thread(
    run: Callable[[str, Callable[[Connection[Any]], Any]], Awaitable[Any]],
    tables: dict[str, str],
    fence: Callable[[Connection[Any]], None] | None,
    source: str,
    target: str,
) -> None:
    """Copy ``source`` to ``target`` on the saver's runner ``run`` (``tables``: its quoted table names;
    ``fence``: checks the target's lease first, in the same transaction)."""
    statement = sql.SQL(COPY_THREAD).format(**{n: sql.SQL(tables[n]) for n in ("checkpoints", "blobs", "writes")}).as_string(None)  # type: ignore[arg-type]

    def work(conn: Connection[Any]) -> None:
        with conn.transaction():
            if fence is not None:
                fence(conn)
            conn.execute(statement, {"source": source, "target": target})  # type: ignore[arg-type]

    await run("copy_thread", work)
