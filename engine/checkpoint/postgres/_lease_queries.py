"""The statements of the PostgreSQL saver's leases (one run per thread across replicas) and its fences.

Part of :mod:`._queries` (which imports every name here: a saver's rendered
:class:`~._queries.Queries` holds them with the others); table names as there.
"""

from __future__ import annotations

__all__ = [
    "ACQUIRE_LEASE", "FENCE_DELETE", "FENCE_PUT", "FENCE_PUT_RELEASING", "FENCE_WRITES", "LEASE_HOLDER", "NO_FLUSH",
    "RELEASE_LEASE", "RENEW_LEASE", "SELECT_LEASE",
]  # fmt: skip

# A statement (its own transaction, in autocommit) whose commit need not wait
# for the WAL flush (a lease change, see _leases.py; a run record, _runs.py)
# ends with RETURNING ... NO_FLUSH: set_config(..., true) lasts until the end of
# the transaction, and the commit reads it. It is evaluated for each row the
# statement writes, so it is in force whenever the commit has something to
# flush. One statement, one round trip: the same as BEGIN; SET LOCAL
# synchronous_commit = off; the statement; COMMIT, pipelined, at a quarter of
# psycopg's work.
NO_FLUSH = "set_config('synchronous_commit', 'off', true)"

# -- leases: one run per thread across replicas ---------------------------------------
# Every time is the database's clock_timestamp(): replicas' clocks never
# matter, and a statement that waited for a row lock judges expiry when it
# gets the row, not when it started.
#
# A holder is gone when the session-level advisory lock its row names (its
# process's presence, see _leases.py) is held by no session: its process
# ended, and PostgreSQL released the lock with its session. A row without a
# holder lasts until it expires.
_HOLDER_GONE = """(l.holder IS NOT NULL AND NOT EXISTS (
        SELECT FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND objsubid = 1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND classid = (l.holder >> 32)::oid AND objid = (l.holder & 4294967295)::oid))"""
# Acquire: insert the row, or take it over when it lapsed, or its holder is
# gone, or it is the same owner's (the host runs one run per thread per
# owner, so that is a leftover, e.g. a release that failed while the database
# was down): epoch + 1, no head. No row returned: another owner holds it. Two
# acquires at once: the second waits for the first's row lock, then finds it live.
ACQUIRE_LEASE = """
INSERT INTO {leases} AS l (thread_id, owner, epoch, expires_at, head, holder)
VALUES (%(thread_id)s, %(owner)s, 1, clock_timestamp() + make_interval(secs => %(ttl)s::float8), NULL, %(holder)s)
ON CONFLICT (thread_id) DO UPDATE SET
    owner = excluded.owner, epoch = l.epoch + 1, head = NULL, holder = excluded.holder,
    expires_at = clock_timestamp() + make_interval(secs => %(ttl)s::float8)  -- now: after any wait for the row
    WHERE l.expires_at <= clock_timestamp() OR l.owner = excluded.owner OR """ + _HOLDER_GONE + """
RETURNING epoch, """ + NO_FLUSH + """
"""
_THE_LEASE = """
WHERE thread_id = %(thread_id)s AND owner = %(owner)s AND epoch = %(epoch)s AND expires_at > clock_timestamp()"""
RENEW_LEASE = """
UPDATE {leases} SET expires_at = clock_timestamp() + make_interval(secs => %(ttl)s::float8), holder = %(holder)s
""" + _THE_LEASE + """
RETURNING epoch, """ + NO_FLUSH + """
"""
# Lapsed at once: the next acquire, by anyone, takes it over (epoch + 1).
RELEASE_LEASE = """
UPDATE {leases} SET expires_at = clock_timestamp()""" + _THE_LEASE + """
RETURNING """ + NO_FLUSH + """
"""

# Fencing, the first statement of a write's transaction. Both lock the lease
# row until the write commits, so a takeover (an UPDATE of the row) waits for
# the write, and a write waits for a takeover in flight and then, re-reading
# the row, finds it changed and matches nothing.
# A root-namespace put also needs its parent to be the head this lease last
# wrote (or no head yet; or the new id itself: a retried put) and moves the head.
FENCE_PUT = """
UPDATE {leases} SET head = %(checkpoint_id)s""" + _THE_LEASE + """
  AND (head IS NULL OR head = %(parent_id)s OR head = %(checkpoint_id)s)
RETURNING epoch
"""
# Deleting the thread: the lease holds, and its head is gone with the versions.
FENCE_DELETE = """
UPDATE {leases} SET head = NULL""" + _THE_LEASE + """
RETURNING epoch
"""
# Pending writes (and puts in other namespaces): the lease holds, FOR SHARE
# (which, unlike FOR KEY SHARE, conflicts with every UPDATE of the row).
FENCE_WRITES = """
SELECT epoch FROM {leases}""" + _THE_LEASE + """
FOR SHARE
"""
# A run's end lets go of its lease in the statement that stores its last versions (_queries.PUT_ENDING):
# the fence's own update of the lease row does it (one statement may not update a row twice). A retry
# after an unknown outcome passes it once the head is the batch's last version (the run stored it, and
# let go; another owner's acquire would have moved the epoch).
FENCE_PUT_RELEASING = """
UPDATE {leases} SET head = %(checkpoint_id)s, expires_at = least(expires_at, clock_timestamp())
WHERE thread_id = %(thread_id)s AND owner = %(owner)s AND epoch = %(epoch)s
  AND (expires_at > clock_timestamp() OR head = %(checkpoint_id)s)
  AND (head IS NULL OR head = %(parent_id)s OR head = %(checkpoint_id)s)
RETURNING epoch
"""

# Why a fence matched nothing (only read then, to word the error).
SELECT_LEASE = """
SELECT owner, epoch, expires_at <= clock_timestamp(), head FROM {leases} WHERE thread_id = %(thread_id)s
"""

# Who holds the thread's live lease (the busy message names it).
LEASE_HOLDER = """
SELECT owner, expires_at FROM {leases} AS l
WHERE thread_id = %(thread_id)s AND expires_at > clock_timestamp() AND NOT """ + _HOLDER_GONE + """
"""
