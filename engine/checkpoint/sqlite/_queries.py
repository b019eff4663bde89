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
    "BLOB_EXISTS",
    "CHECKPOINT_EXISTS",
    "COMMIT",
    "COUNT_BLOBS",
    "DELETE_BLOB",
    "DELETE_CHECKPOINT",
    "DELETE_THREAD",
    "DELETE_WRITES",
    "INSERT_BLOB",
    "INSERT_CHECKPOINT",
    "INSERT_WRITE",
    "LIST_CHECKPOINTS",
    "LIST_LIMIT",
    "LIST_THREADS",
    "LIST_ORDER",
    "META_EQUALS",
    "META_IS_BOOL",
    "META_IS_NULL",
    "META_IS_TEXT",
    "REPLACE_WRITE",
    "ROLLBACK",
    "SELECT_BLOB_BASES",
    "SELECT_CHAINS",
    "SELECT_CHECKPOINT",
    "SELECT_CHECKPOINT_METAS",
    "SELECT_LATEST_CHECKPOINT",
    "SELECT_WRITES",
    "SELECT_WRITE_REFS",
    "TASK_WRITES",
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
    (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, ts, type, checkpoint, metadata, run_id)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
"""

# A (channel, version) already stored holds the same value: keep the first.
INSERT_BLOB = """
INSERT OR IGNORE INTO blobs
    (thread_id, checkpoint_ns, channel, version, type, data, base_version, seq, ref_ns, ref_channel, ref_version, ref_key)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
# Checked in the write transaction before a delta names its base (or a row or
# a write its ref): the cache that chose it may be older than a prune or
# delete by another process.
BLOB_EXISTS = """
SELECT 1 FROM blobs WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?
"""

# Regular writes: idempotent per (task_id, idx). Special channels: replaced.
INSERT_WRITE = """
INSERT OR IGNORE INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, data, task_path,
                              ref_ns, ref_channel, ref_version, ref_key)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
# A task's regular writes stored at a version (see _writes.past_stored).
TASK_WRITES = """
SELECT idx, type, data FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? AND task_id = ? AND idx >= 0
"""
REPLACE_WRITE = """
INSERT OR REPLACE INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, data, task_path,
                               ref_ns, ref_channel, ref_version, ref_key)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""

# -- get ----------------------------------------------------------------------------
# A version's metadata as read: the run that wrote it is a column of its own, 16 bytes
# (migrations/0013_run_column.sql), put back as a UUID's text. Metadata that is not
# JSON is left as it is, for the read to refuse.
_HEX = "hex(run_id)"
_RUN = f"lower(substr({_HEX}, 1, 8) || '-' || substr({_HEX}, 9, 4) || '-' || substr({_HEX}, 13, 4) || '-' || substr({_HEX}, 17, 4) || '-' || substr({_HEX}, 21))"
_METADATA = f"""CASE WHEN run_id IS NULL THEN metadata WHEN NOT json_valid(metadata) THEN metadata
    ELSE json_set(metadata, '$.__graphwire_run_id__', {_RUN}) END"""
SELECT_CHECKPOINT = f"""
SELECT checkpoint_id, parent_checkpoint_id, ts, type, checkpoint, {_METADATA} AS metadata
FROM checkpoints
WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?
"""
SELECT_LATEST_CHECKPOINT = f"""
SELECT checkpoint_id, parent_checkpoint_id, ts, type, checkpoint, {_METADATA} AS metadata
FROM checkpoints
WHERE thread_id = ? AND checkpoint_ns = ?
ORDER BY checkpoint_id DESC
LIMIT 1
"""
# The rows that rebuild a checkpoint's channel values, in one statement
# whatever the number of channels: each wanted (ns, channel, version), and each
# list a wanted checkpoint's pending writes extend, then each row's base (or
# ref: a chain may pass into another namespace), recursively, down to full
# values (see engine/checkpoint/_delta.py). Parameters: ?1 the wanted rows as a
# JSON array of [ns, channel, version]; ?2 the thread; ?3 a JSON array of
# [ns, channel, version] rows the caller has already read (an alist decodes
# each row once): the walk stops there; ?4 a JSON array of [ns, checkpoint_id]
# whose writes' refs are wanted. The recursion carries keys only (UNION drops
# chains that merge); the data is fetched once per row at the end. CROSS JOIN
# fixes the loop order (SQLite never reorders it), so every step is a
# primary-key lookup, never a scan.
_NEXT = """CASE WHEN b.ref_version IS NULL THEN b.checkpoint_ns ELSE b.ref_ns END,
           CASE WHEN b.ref_version IS NULL THEN b.channel ELSE b.ref_channel END,
           coalesce(b.ref_version, b.base_version)"""
SELECT_CHAINS = f"""
WITH RECURSIVE want(ns, channel, version) AS (
    SELECT json_extract(v.value, '$[0]'), json_extract(v.value, '$[1]'), json_extract(v.value, '$[2]')
    FROM json_each(?1) AS v
  UNION ALL
    SELECT w.ref_ns, w.ref_channel, w.ref_version
    FROM json_each(?4) AS k
    CROSS JOIN writes AS w
      ON w.thread_id = ?2 AND w.checkpoint_ns = json_extract(k.value, '$[0]')
     AND w.checkpoint_id = json_extract(k.value, '$[1]')
    WHERE w.ref_version IS NOT NULL
), chain(ns, channel, version, next_ns, next_channel, next_version) AS (
    SELECT b.checkpoint_ns, b.channel, b.version, {_NEXT}
    FROM want AS v
    CROSS JOIN blobs AS b
      ON b.thread_id = ?2 AND b.checkpoint_ns = v.ns AND b.channel = v.channel AND b.version = v.version
  UNION
    SELECT b.checkpoint_ns, b.channel, b.version, {_NEXT}
    FROM chain AS c
    CROSS JOIN blobs AS b
      ON b.thread_id = ?2 AND b.checkpoint_ns = c.next_ns AND b.channel = c.next_channel AND b.version = c.next_version
    WHERE c.next_version IS NOT NULL
      AND NOT EXISTS (
        SELECT 1 FROM json_each(?3) AS k
        WHERE json_extract(k.value, '$[0]') = c.next_ns AND json_extract(k.value, '$[1]') = c.next_channel
          AND json_extract(k.value, '$[2]') = c.next_version
      )
)
SELECT b.checkpoint_ns, b.channel, b.version, b.type, b.data, b.base_version, b.seq,
       b.ref_ns, b.ref_channel, b.ref_version, b.ref_key
FROM chain AS c
CROSS JOIN blobs AS b
  ON b.thread_id = ?2 AND b.checkpoint_ns = c.ns AND b.channel = c.channel AND b.version = c.version
"""
# Whether a listed checkpoint still exists when its page is read (one pruned
# since the listing began is skipped).
CHECKPOINT_EXISTS = "SELECT 1 FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?"
SELECT_WRITES = """
SELECT task_id, channel, type, data, ref_ns, ref_channel, ref_version, ref_key
FROM writes
WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?
ORDER BY task_path, task_id, idx
"""

# -- list: LIST_CHECKPOINTS [WHERE clause AND clause ...] LIST_ORDER [LIST_LIMIT] -----
LIST_CHECKPOINTS = f"""
SELECT * FROM (
    SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, ts, type, checkpoint, {_METADATA} AS metadata
    FROM checkpoints
)
"""
WHERE_THREAD = "thread_id = ?"
WHERE_NS = "checkpoint_ns = ?"
WHERE_ID = "checkpoint_id = ?"
WHERE_BEFORE = "checkpoint_id < ?"
# Parameters: key, value. A JSON true/false extracts as 1/0, as Python compares.
# Parameters: key, key, value. The type test keeps a stored true/false (1/0 to SQL) from matching a number.
META_EQUALS = (
    """(json_type(metadata, '$."' || ? || '"') IN ('integer', 'real') AND json_extract(metadata, '$."' || ? || '"') = ?)"""
)
# Parameters: key, 'true' or 'false'.
META_IS_BOOL = """json_type(metadata, '$."' || ? || '"') = ?"""
# Parameters: key, key, value. The type test keeps '{}' from matching an object.
META_IS_TEXT = (
    """(json_type(metadata, '$."' || ? || '"') = 'text' AND json_extract(metadata, '$."' || ? || '"') = ?)"""
)
# Parameters: key. Present and null (a missing key has no json_type).
META_IS_NULL = """coalesce(json_type(metadata, '$."' || ? || '"'), 'null') = 'null'"""  # missing or null, as LangGraph's
LIST_ORDER = "\nORDER BY checkpoint_id DESC, thread_id DESC, checkpoint_ns DESC"
LIST_LIMIT = "\nLIMIT ?"

# -- delete -------------------------------------------------------------------------
DELETE_THREAD = (
    "DELETE FROM run_events WHERE thread_id = ?",
    "DELETE FROM runs WHERE thread_id = ?",
    "DELETE FROM threads WHERE thread_id = ?",
    "DELETE FROM writes WHERE thread_id = ?",
    "DELETE FROM blobs WHERE thread_id = ?",
    "DELETE FROM checkpoints WHERE thread_id = ?",
)

# -- prune: read what the thread holds, decide in Python (engine/checkpoint/_retention.py), delete
SELECT_CHECKPOINT_METAS = """
SELECT checkpoint_ns, checkpoint_id, ts, type, checkpoint FROM checkpoints WHERE thread_id = ?
"""
SELECT_BLOB_BASES = """
SELECT checkpoint_ns, channel, version, base_version, ref_ns, ref_channel, ref_version FROM blobs WHERE thread_id = ?
"""
# The rows pending writes extend: a kept checkpoint's writes keep them.
SELECT_WRITE_REFS = """
SELECT checkpoint_ns, checkpoint_id, ref_ns, ref_channel, ref_version
FROM writes WHERE thread_id = ? AND ref_version IS NOT NULL
"""
DELETE_WRITES = "DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?"
DELETE_CHECKPOINT = "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?"
DELETE_BLOB = "DELETE FROM blobs WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?"

# -- alist_threads: each thread's newest root checkpoint, newest first. ?1/?2 bound
# the thread ids to a prefix's range (?2 NULL: no upper bound); ?3 the limit (-1: none).
# With max(), SQLite takes the bare columns (ts) from the row holding the maximum.
LIST_THREADS = """
SELECT thread_id, max(checkpoint_id) AS newest, ts
FROM checkpoints
WHERE checkpoint_ns = '' AND thread_id >= ?1 AND (?2 IS NULL OR thread_id < ?2)
GROUP BY thread_id
ORDER BY newest DESC, thread_id
LIMIT ?3
"""

# -- introspection (tests, tooling) ---------------------------------------------------
COUNT_BLOBS = "SELECT count(*) FROM blobs WHERE thread_id = ?"
