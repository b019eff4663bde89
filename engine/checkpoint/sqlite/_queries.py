"""Every SQL statement the SQLite saver runs, by name.

Values are always bound as ``?`` parameters, including the metadata keys of a
list filter, which reach SQLite as parts of a JSON path built *in SQL*
(``'$."' || ? || '"'``): a key such as ``a') OR 1=1--`` is data, never SQL.
Only the fragments below are ever joined into a statement.

Each statement is a fixed string, so sqlite3's per-connection statement cache
prepares it once; the hot path (put, get) never compiles SQL again.
"""

from __future__ import annotations

__all__ = [
    "BEGIN_READ",
    "BEGIN_WRITE",
    "COMMIT",
    "COUNT_BLOBS",
    "DELETE_THREAD",
    "INSERT_BLOB",
    "INSERT_CHECKPOINT",
    "INSERT_WRITE",
    "LIST_CHECKPOINTS",
    "LIST_LIMIT",
    "LIST_ORDER",
    "META_EQUALS",
    "META_IS_NULL",
    "META_IS_TEXT",
    "REPLACE_WRITE",
    "ROLLBACK",
    "SELECT_BLOBS",
    "SELECT_CHECKPOINT",
    "SELECT_LATEST_CHECKPOINT",
    "SELECT_WRITES",
    "WHERE_BEFORE",
    "WHERE_ID",
    "WHERE_NS",
    "WHERE_THREAD",
]

# IMMEDIATE takes the write lock up front, so two processes sharing the file
# wait on busy_timeout instead of failing to upgrade a read lock.
BEGIN_WRITE = "BEGIN IMMEDIATE"
BEGIN_READ = "BEGIN"
COMMIT = "COMMIT"
ROLLBACK = "ROLLBACK"

# -- put --------------------------------------------------------------------------
INSERT_CHECKPOINT = """
INSERT OR REPLACE INTO checkpoints
    (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, ts, type, checkpoint, metadata)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
"""

# A (channel, version) already stored holds the same value: keep the first.
INSERT_BLOB = """
INSERT OR IGNORE INTO blobs (thread_id, checkpoint_ns, channel, version, type, data)
VALUES (?, ?, ?, ?, ?, ?)
"""

# Regular writes: idempotent per (task_id, idx). Special channels: replaced.
INSERT_WRITE = """
INSERT OR IGNORE INTO writes
    (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, data, task_path)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
REPLACE_WRITE = """
INSERT OR REPLACE INTO writes
    (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, data, task_path)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
"""

# -- get ----------------------------------------------------------------------------
SELECT_CHECKPOINT = """
SELECT checkpoint_id, parent_checkpoint_id, ts, type, checkpoint, metadata
FROM checkpoints
WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?
"""
SELECT_LATEST_CHECKPOINT = """
SELECT checkpoint_id, parent_checkpoint_id, ts, type, checkpoint, metadata
FROM checkpoints
WHERE thread_id = ? AND checkpoint_ns = ?
ORDER BY checkpoint_id DESC
LIMIT 1
"""
# The blobs at a checkpoint's versions, in one statement whatever the number
# of channels: the versions arrive as one JSON object {"channel": version}.
# CROSS JOIN fixes the loop order (SQLite never reorders it): walk the few
# versions and look each blob up by primary key, rather than scan the
# thread's blobs.
SELECT_BLOBS = """
SELECT b.channel, b.type, b.data
FROM json_each(?) AS v
CROSS JOIN blobs AS b
  ON b.thread_id = ? AND b.checkpoint_ns = ? AND b.channel = v.key AND b.version = v.value
"""
SELECT_WRITES = """
SELECT task_id, channel, type, data
FROM writes
WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?
ORDER BY task_id, idx
"""

# -- list: LIST_CHECKPOINTS [WHERE clause AND clause ...] LIST_ORDER [LIST_LIMIT] -----
LIST_CHECKPOINTS = """
SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, ts, type, checkpoint, metadata
FROM checkpoints
"""
WHERE_THREAD = "thread_id = ?"
WHERE_NS = "checkpoint_ns = ?"
WHERE_ID = "checkpoint_id = ?"
WHERE_BEFORE = "checkpoint_id < ?"
# Parameters: key, value. A JSON true/false extracts as 1/0, as Python compares.
META_EQUALS = """json_extract(metadata, '$."' || ? || '"') = ?"""
# Parameters: key, key, value. The type test keeps '{}' from matching an object.
META_IS_TEXT = (
    """(json_type(metadata, '$."' || ? || '"') = 'text' AND json_extract(metadata, '$."' || ? || '"') = ?)"""
)
# Parameters: key. Present and null (a missing key has no json_type).
META_IS_NULL = """json_type(metadata, '$."' || ? || '"') = 'null'"""
LIST_ORDER = "\nORDER BY checkpoint_id DESC, thread_id DESC, checkpoint_ns DESC"
LIST_LIMIT = "\nLIMIT ?"

# -- delete -------------------------------------------------------------------------
DELETE_THREAD = (
    "DELETE FROM writes WHERE thread_id = ?",
    "DELETE FROM blobs WHERE thread_id = ?",
    "DELETE FROM checkpoints WHERE thread_id = ?",
)

# -- introspection (tests, tooling) ---------------------------------------------------
COUNT_BLOBS = "SELECT count(*) FROM blobs WHERE thread_id = ?"
