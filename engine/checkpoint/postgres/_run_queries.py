"""The SQL of run records on PostgreSQL (:class:`~engine.checkpoint.postgres._runs.PostgresRuns`'s statements).

Table names are ``{runs}``-style fields, filled in for the saver's schema by
the store; parameters are psycopg's ``%(name)s``. A statement that writes
returns ``NO_FLUSH`` (see :mod:`._queries`): its commit does not wait for the WAL flush.
"""

from __future__ import annotations

from engine.checkpoint._runs import ACTIVE, FIELDS
from engine.checkpoint._run_sql import listed_columns, listing_sql
from engine.checkpoint.postgres import _queries as q
from engine.checkpoint.postgres._prepared import END_ROW

_COLUMNS = ", ".join(FIELDS)
_ACTIVE = ", ".join(f"'{s}'" for s in ACTIVE)  # constants of ours, not input
# The record and its first events (one row, engine.checkpoint._run_sql.pack_events), written only with it.
INSERT = f"""
WITH ins AS (
    INSERT INTO {{runs}} ({_COLUMNS}) VALUES ({', '.join(f'%({n})s' for n in FIELDS)})
    ON CONFLICT DO NOTHING RETURNING run_id
), added AS (
    INSERT INTO {{run_events}} (run_id, seq, last_seq, thread_id, data)
    SELECT %(run_id)s, %(first__)s::integer, %(last__)s::integer, %(thread_id)s, %(data__)s::bytea
    WHERE EXISTS (SELECT FROM ins) AND %(first__)s::integer IS NOT NULL
    ON CONFLICT DO NOTHING
)
SELECT run_id, {q.NO_FLUSH} FROM ins
"""
_TYPES = {
    "run_id": "text", "thread_id": "text", "graph": "text", "caller_thread": "text", "call": "text", "status": "text",
    "replica": "text", "started_at": "timestamptz", "request_id": "text", "fingerprint": "bytea", "request": "bytea",
    "call_json": "text", "epoch": "bigint", "attempts": "integer", "durable": "boolean", "keeps_events": "boolean",
    "on_disconnect": "integer", "background": "boolean", "ended_at": "timestamptz", "checkpoint_id": "text",
    "started": "bytea", "finished": "bytea", "last_seq": "integer", "outcome": "bytea", "replaces": "text", "replaced_by": "text",
}  # fmt: skip
# The thread's lease taken (ACQUIRE_LEASE, its parameters prefixed with "l__") and, only if it was, the
# record under its epoch and the thread's mark: a run's start in one statement. (epoch, run_id, blank):
# the lease's epoch (NULL: another holds it), the record's id (NULL: not inserted), whether the thread
# had no version in the statement's snapshot (see PostgresRuns.astart_taking: one index probe).
TAKING = """
WITH lease AS (""" + q.ACQUIRE_LEASE.replace("%(", "%(l__").replace("RETURNING epoch, " + q.NO_FLUSH, "RETURNING epoch") + """),
ins AS (
    INSERT INTO {runs} (""" + _COLUMNS + """)
    SELECT """ + ", ".join("(SELECT epoch FROM lease)" if n == "epoch" else f"%({n})s::{_TYPES[n]}" for n in FIELDS) + """
    WHERE EXISTS (SELECT FROM lease)
    ON CONFLICT DO NOTHING RETURNING run_id
), marked AS ({mark})
SELECT (SELECT epoch FROM lease), (SELECT run_id FROM ins),
    NOT EXISTS (SELECT FROM {checkpoints} WHERE thread_id = %(thread_id)s AND checkpoint_ns = ''), """ + q.NO_FLUSH + """
"""
# TAKING when the run's start expects its thread's record (engine.checkpoint._threads.Expected, its
# parameters prefixed with "x__"): the lease is taken, and so the rest written, only if the record is
# as expected in the statement's snapshot (the part ``ok``, one probe of threads_caller); its last
# column says whether it was.
_OK = """ok AS (
    SELECT FROM {threads} AS r
    WHERE r.thread_id = %(x__key)s AND %(x__key)s = %(t__thread_id)s AND r.metadata @> %(x__holds)s::jsonb
      AND NOT EXISTS (SELECT FROM jsonb_each(%(x__lacks)s::jsonb) AS e WHERE r.metadata @> jsonb_build_object(e.key, e.value))
      AND NOT EXISTS (
        SELECT FROM {threads} AS o
        WHERE o.tenant = %(t__tenant)s AND o.caller_thread = %(t__caller_thread)s AND o.thread_id <> %(x__key)s
      )
),
"""
_LEASE_VALUES = "VALUES (%(l__thread_id)s, %(l__owner)s, 1, clock_timestamp() + make_interval(secs => %(l__ttl)s::float8), NULL, %(l__holder)s)"
assert _LEASE_VALUES in TAKING
TAKING_EXPECTED = (
    TAKING.replace("WITH lease AS (", "WITH " + _OK + "lease AS (", 1)
    .replace(_LEASE_VALUES, (  # a SELECT's values, typed (VALUES takes the columns' types; a SELECT list would not)
        "SELECT %(l__thread_id)s::text, %(l__owner)s::text, 1, clock_timestamp() + make_interval(secs => %(l__ttl)s::float8), "
        "NULL, %(l__holder)s::bigint WHERE EXISTS (SELECT FROM ok)"
    ), 1)
    .rstrip() + ", EXISTS (SELECT FROM ok)\n"
)
# The same, with its thread's mark, written only with the record (the part ``marked``).
INSERT_MARKED = INSERT.replace("\nSELECT run_id,", ", marked AS ({mark})\nSELECT run_id,")
# INSERT_MARKED when the start expects its thread's record (the part ``ok``, as TAKING_EXPECTED's): (the
# record's id, NULL: not inserted; ..., whether the record was as expected; if not, nothing was written).
_VALUES = "VALUES (" + ", ".join(f"%({n})s" for n in FIELDS) + ")"
assert _VALUES in INSERT and "\nSELECT run_id, " + q.NO_FLUSH + " FROM ins" in INSERT
INSERT_MARKED_EXPECTED = (
    INSERT.replace("WITH ins AS (", "WITH " + _OK + "ins AS (", 1)
    .replace(_VALUES, "SELECT " + ", ".join(f"%({n})s::{_TYPES[n]}" for n in FIELDS) + " WHERE EXISTS (SELECT FROM ok)", 1)
    .replace("\nSELECT run_id, " + q.NO_FLUSH + " FROM ins", (
        ", marked AS ({mark})\nSELECT (SELECT run_id FROM ins), " + q.NO_FLUSH + ", EXISTS (SELECT FROM ok)"
    ), 1)
)  # fmt: skip
# A run's last events (one row) and a change of its record, in one statement (the events go in
# whether the change applies or not): (records changed, event rows added).
_FINISHING = """added AS (
    INSERT INTO {run_events} (run_id, seq, last_seq, thread_id, data)
    SELECT %(run_id)s, %(first__)s::integer, %(last__)s::integer, %(thread_id__)s, %(data__)s::bytea
    WHERE %(first__)s::integer IS NOT NULL{also}
    ON CONFLICT DO NOTHING RETURNING run_id
), changed AS (
    UPDATE {runs} SET {sets} WHERE run_id = %(run_id)s AND attempts = %(attempts__)s{also} RETURNING run_id
)
{marked}"""
FINISH = "WITH " + _FINISHING.replace("{also}", "") + "{released}SELECT (SELECT count(*) FROM changed), (SELECT count(*) FROM added), " + q.NO_FLUSH
# The same parts in the statement that stores the run's last versions (_queries.PUT_ENDING, see
# _prepared.py), each written only if that statement's fence matched, their parameters prefixed with
# "e__"; its commit flushes the WAL (the versions need it). ENDING_ROW: (records changed) + 2 * (event rows added).
ENDING = ", " + _FINISHING.replace("{also}", " AND EXISTS (SELECT FROM fence)")
ENDING_ROW = f"UNION ALL SELECT '{END_ROW}', (SELECT count(*) FROM changed) + 2 * (SELECT count(*) FROM added)"
# FINISH's part that lets go of the run's lease (as RELEASE_LEASE), its parameters prefixed with "l__".
RELEASED = ", released AS (UPDATE {leases} SET expires_at = clock_timestamp()" + q._THE_LEASE.replace("%(", "%(l__") + ")\n"
SELECT = f"SELECT {_COLUMNS} FROM {{runs}} WHERE run_id = %(run_id)s"
FIND = f"SELECT {_COLUMNS} FROM {{runs}} WHERE thread_id = %(thread_id)s AND request_id = %(request_id)s"
_LISTED = listed_columns("''::bytea")  # a listing's columns (engine.checkpoint._runs.slim)
LIST = listing_sql("{runs}", lambda name: f"%({name})s", "''::bytea")  # by (full, before given); LIMIT NULL: all
IS_RUN_OF = "SELECT 1 FROM {runs} WHERE run_id = %(before)s AND thread_id = %(thread_id)s"
ACTIVE_OF = f"SELECT {_LISTED} FROM {{runs}} WHERE thread_id = %(thread_id)s AND status IN ({_ACTIVE})"
# Events of several runs, a row each: one JSON array of (run id, first seq, last seq, thread id,
# 1-based offset, length) and every row's data a slice of one bytea (array parameters cost
# psycopg ~20 µs each to adapt, bytea arrays more), in run id order (two replicas' writes lock the
# records they share, if any, in one order), with each run's last seq; the run ids whose row went in.
ADD_EVENTS = """
WITH bytes AS MATERIALIZED (SELECT %(bytes)b::bytea AS all_bytes), e AS MATERIALIZED (
    SELECT r ->> 0 AS run_id, (r ->> 1)::integer AS seq, (r ->> 2)::integer AS last_seq, r ->> 3 AS thread_id,
           substring(bytes.all_bytes FROM (r ->> 4)::integer FOR (r ->> 5)::integer) AS data
    FROM json_array_elements(%(rows)s::json) AS r, bytes
), added AS (
    INSERT INTO {run_events} (run_id, seq, last_seq, thread_id, data) SELECT run_id, seq, last_seq, thread_id, data FROM e
    ON CONFLICT DO NOTHING RETURNING run_id
), moved AS (
    UPDATE {runs} AS r SET last_seq = greatest(r.last_seq, e.last_seq) FROM e WHERE r.run_id = e.run_id
)
SELECT array(SELECT run_id FROM added), """ + q.NO_FLUSH + """
"""
# Events whose row did not go in (a row of the run starts at that seq: a second writer of it), one
# row each, so that no seq the other row lacks is lost.
ADD_ONE_EACH = """
INSERT INTO {run_events} (run_id, seq, last_seq, thread_id, data)
SELECT r.run_id, r.seq, r.seq, r.thread_id, r.data
FROM unnest(%(run_ids)s::text[], %(seqs)s::integer[], %(thread_ids)s::text[], %(datas)s::bytea[]) AS r(run_id, seq, thread_id, data)
ON CONFLICT DO NOTHING
RETURNING """ + q.NO_FLUSH + """
"""
EVENTS = """
SELECT seq, last_seq, data FROM {run_events} WHERE run_id = %(run_id)s AND last_seq > %(after)s AND seq > %(start)s
ORDER BY seq LIMIT %(limit)s
"""
# Durable active runs whose thread's live lease is not theirs (see the module's doc).
ORPHANS = f"""
SELECT {_COLUMNS} FROM {{runs}} AS r
WHERE r.status IN ({_ACTIVE}) AND NOT EXISTS (
    SELECT FROM {{leases}} AS l
    WHERE l.thread_id = r.thread_id AND l.owner = r.replica AND l.epoch = r.epoch
      AND l.expires_at > clock_timestamp() AND NOT {q._HOLDER_GONE}
)
LIMIT %(limit)s
"""
EXPIRE = """
DELETE FROM {run_events} WHERE run_id IN (SELECT run_id FROM {runs} WHERE ended_at IS NOT NULL AND ended_at < %(before)s)
RETURNING """ + q.NO_FLUSH + """
"""
DELETE_RUNS = """
WITH gone_events AS (DELETE FROM {run_events} WHERE run_id = ANY(%(ids)s::text[]))
DELETE FROM {runs} WHERE run_id = ANY(%(ids)s::text[])
RETURNING """ + q.NO_FLUSH + """
"""
