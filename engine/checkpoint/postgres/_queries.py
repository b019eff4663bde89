"""Every SQL statement the PostgreSQL saver runs, by name.

Table names are written ``{checkpoints}``, ``{blobs}``, ``{writes}``, ``{leases}``:
:func:`render` fills them in once per saver with the schema-qualified names,
quoted by :class:`psycopg.sql.Identifier` (the schema name is never spliced in
as text). Everything else is a bound parameter: thread ids, namespaces,
checkpoint ids, and the keys *and* values of a metadata filter
(``metadata -> %s::text = %s::jsonb``), so a key such as ``a') OR 1=1--`` is
data, never SQL. Only the fragments below are ever joined into a statement.
Statements are fixed strings per saver, so psycopg prepares the hot ones
(put, get) on the server after a few uses.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from psycopg import sql

from engine._sql.postgres.text import compact
from engine.checkpoint.postgres._lease_queries import (  # noqa: F401 - the saver's statements, rendered with the rest
    _HOLDER_GONE,
    _THE_LEASE,
    ACQUIRE_LEASE,
    FENCE_DELETE,
    FENCE_PUT,
    FENCE_PUT_RELEASING,
    FENCE_WRITES,
    LEASE_HOLDER,
    NO_FLUSH,
    RELEASE_LEASE,
    RENEW_LEASE,
    SELECT_LEASE,
)

__all__ = ["Queries", "render"]

# -- put: versions and pending writes, one statement ------------------------------------
# A batch (checkpoint rows, their blobs, pending writes: any may be none) is
# one statement, atomic on its own: no transaction around it, one round trip.
# Each kind of row is one JSON array of arrays (columns by position, see
# _rows.py), every row's bytes a slice (1-based offset, length) of one bytea:
# a parameter per column, as arrays, cost psycopg ~20 µs each to adapt. Rows are read as jsonb, parsed
# once (json's ``->>`` parses the text at every use); a checkpoint's ``versions`` stays the json text sent
# (``j -> 7``). A blob already stored at (channel, version) holds the same value: the first copy stays;
# RETURNING names those inserted (the delta cache learns only those). A delta whose base (or ref) is
# missing fails a foreign key, checked at the statement's end (a base the statement inserts counts), and
# with it the statement: the saver then writes it full. A checkpoint stored again is replaced. Regular
# writes are idempotent per (task_id, idx): the first copy stays; special channels have fixed negative
# indexes and replace. A write naming a row as its items (_chain.ITEMS) comes whole too (columns 14-21):
# stored so unless that row is inserted now. A pack (a task's writes, one row at index 0) holds the indexes past
# its own: a write past index 0 is not stored where the task has a pack, unless checked (column 22); the packs
# and such writes stored are counted (a row NULL, -1 - count), the rest stored per _writes.past_stored (_rows.py).
_PUT = """
WITH bytes AS MATERIALIZED (SELECT %(bytes)b::bytea AS all_bytes),{fence}
new_blobs AS (
    INSERT INTO {{blobs}} (thread_id, checkpoint_ns, channel, version, type, data, base_version, seq,
                         ref_ns, ref_channel, ref_version, ref_key)
    SELECT %(thread_id)s, %(ns)s, b ->> 0, (b ->> 1)::bigint, b ->> 2,
           substring(bytes.all_bytes FROM (b ->> 3)::integer FOR (b ->> 4)::integer),
           (b ->> 5)::bigint, (b ->> 6)::integer, b ->> 7, b ->> 8, (b ->> 9)::bigint, b ->> 10
    FROM jsonb_array_elements(%(blobs)s::jsonb) AS b, bytes{fenced}
    ON CONFLICT DO NOTHING
    RETURNING channel, version
), new_checkpoints AS (
    INSERT INTO {{checkpoints}}
        (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, ts, type, checkpoint, metadata, versions, run_id)
    SELECT %(thread_id)s, %(ns)s, c ->> 0, c ->> 1, c ->> 2, c ->> 3,
           substring(bytes.all_bytes FROM (c ->> 4)::integer FOR (c ->> 5)::integer), c -> 6, j -> 7, (c ->> 8)::uuid
    FROM json_array_elements(%(checkpoints)s::json) AS j, LATERAL (SELECT j::jsonb) AS c(c), bytes{fenced}
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET
        parent_checkpoint_id = excluded.parent_checkpoint_id, ts = excluded.ts, type = excluded.type,
        checkpoint = excluded.checkpoint, metadata = excluded.metadata, versions = excluded.versions, run_id = excluded.run_id
), new_writes AS (
    INSERT INTO {{writes}} AS w (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, data,
                               task_path, ref_ns, ref_channel, ref_version, ref_key)
    SELECT w ->> 0, w ->> 1, w ->> 2, w ->> 3, (w ->> 4)::integer, w ->> 5, w ->> (6 + k.whole),
           substring(bytes.all_bytes FROM (w ->> (7 + k.whole))::integer FOR (w ->> (8 + k.whole))::integer),
           w ->> 9, w ->> (10 + k.whole), w ->> (11 + k.whole), (w ->> (12 + k.whole))::bigint, w ->> (13 + k.whole)
    FROM jsonb_array_elements(%(writes)s::jsonb) AS w CROSS JOIN LATERAL (SELECT CASE WHEN w ->> 14 IS NULL OR EXISTS (
        SELECT FROM new_blobs AS nb WHERE nb.channel = w ->> 11 AND nb.version = (w ->> 12)::bigint) THEN 0 ELSE 8 END AS whole
    ) AS k, bytes
    WHERE CASE WHEN (w ->> 4)::integer < 1 OR w ->> 22 IS NOT NULL THEN true ELSE NOT EXISTS (SELECT FROM {{writes}} AS s
        WHERE (s.thread_id, s.checkpoint_ns, s.checkpoint_id, s.task_id, s.idx) = (w ->> 0, w ->> 1, w ->> 2, w ->> 3, 0)
          AND s.type LIKE '%%graphwire:writes') END{fenced_and}
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET
        channel = excluded.channel, type = excluded.type, data = excluded.data, task_path = excluded.task_path,
        ref_ns = excluded.ref_ns, ref_channel = excluded.ref_channel, ref_version = excluded.ref_version,
        ref_key = excluded.ref_key
        WHERE excluded.idx < 0
    RETURNING idx, type
){ending}
SELECT channel, version FROM new_blobs
UNION ALL SELECT NULL, -1 - count(*) FROM new_writes WHERE idx > 0 OR type LIKE '%%graphwire:writes' HAVING count(*) > 0{fence_row}
"""
# -- get ------------------------------------------------------------------------------
# A get is one statement, so it reads one snapshot in one round trip (no
# transaction around it): the checkpoint row with its pending writes (ordered
# by task, then index) and the blob rows that rebuild its channel values, the
# last two as arrays, one per column (psycopg decodes them in C). No row: no
# such checkpoint. (A listing's pages are read in a transaction of several
# statements, on one snapshot.)
BEGIN_SNAPSHOT = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
COMMIT = "COMMIT"

_NAMED = "  AND cp.checkpoint_id = %(checkpoint_id)s\n"
# A version's metadata as read: the run that wrote it is a column of its own (migrations/0014_run_column.sql).
_METADATA = "CASE WHEN run_id IS NULL THEN metadata ELSE metadata || jsonb_build_object('__graphwire_run_id__', run_id::text) END"
_LATEST = "ORDER BY cp.checkpoint_id DESC\nLIMIT 1\n"


# Where a blob row's chain goes on: its ref, or its base in its own namespace and channel.
_NEXT = """CASE WHEN ref_version IS NULL THEN checkpoint_ns ELSE ref_ns END AS next_ns,
               CASE WHEN ref_version IS NULL THEN channel ELSE ref_channel END AS next_channel,
               coalesce(ref_version, base_version) AS next_version"""


def _chain_cte(wanted: str, stop: str = "") -> str:
    """``chain``: the keys of the blob rows of the ``(ns, channel, version)`` keys that ``wanted`` selects, with their bases.

    Each wanted row, then each row's base (or ref: a chain may pass into
    another namespace of the thread), recursively, down to full values
    (engine/checkpoint/_delta.py). The recursion carries keys only (UNION
    drops chains that merge); each row's data is read once, at the end. Every
    blob is reached through a LATERAL subquery with LIMIT 1: a fence the
    planner cannot flatten, so each step is one primary-key lookup whatever
    the statistics say (a freshly written thread, never analyzed, otherwise
    gets a plan that scans the whole thread at every step of the recursion).
    """
    return f"""
chain(ns, channel, version, next_ns, next_channel, next_version) AS (
    SELECT b.checkpoint_ns, b.channel, b.version, b.next_ns, b.next_channel, b.next_version
    FROM {wanted}
    CROSS JOIN LATERAL (
        SELECT checkpoint_ns, channel, version, {_NEXT} FROM {{blobs}}
        WHERE thread_id = %(thread_id)s AND checkpoint_ns = want.ns AND channel = want.channel AND version = want.version
        LIMIT 1
    ) AS b
  UNION
    SELECT b.checkpoint_ns, b.channel, b.version, b.next_ns, b.next_channel, b.next_version
    FROM chain AS link
    CROSS JOIN LATERAL (
        SELECT checkpoint_ns, channel, version, {_NEXT} FROM {{blobs}}
        WHERE thread_id = %(thread_id)s AND checkpoint_ns = link.next_ns
          AND channel = link.next_channel AND version = link.next_version
        LIMIT 1
    ) AS b{stop}
)
"""


# The blob rows the keys in ``chain`` name, each row's data read once.
_CHAIN_ROWS = """SELECT b.checkpoint_ns, b.channel, b.version, b.type, b.data, b.base_version, b.seq,
       b.ref_ns, b.ref_channel, b.ref_version, b.ref_key
FROM chain AS link
CROSS JOIN LATERAL (
    SELECT checkpoint_ns, channel, version, type, data, base_version, seq, ref_ns, ref_channel, ref_version, ref_key
    FROM {blobs}
    WHERE thread_id = %(thread_id)s AND checkpoint_ns = link.ns AND channel = link.channel AND version = link.version
    LIMIT 1
) AS b
"""


def _chain(wanted: str, stop: str = "") -> str:
    """The blob rows of the ``(ns, channel, version)`` keys that ``wanted`` selects, with their bases."""
    return _chain_cte(wanted, stop) + _CHAIN_ROWS


# The checkpoint a get reads (then _NAMED or _LATEST): its row, its pending
# writes, and the blob rows of its versions and of the lists its writes extend.
_THE_CHECKPOINT = """
WITH RECURSIVE cp AS MATERIALIZED (
    SELECT cp.checkpoint_id, cp.parent_checkpoint_id, cp.ts, cp.type, cp.checkpoint, """ + _METADATA + """ AS metadata, cp.versions
    FROM {checkpoints} AS cp
    WHERE cp.thread_id = %(thread_id)s AND cp.checkpoint_ns = %(ns)s
"""
_ITS_WRITES = """), w AS MATERIALIZED (  -- a lookup by the writes' key prefix
    SELECT task_id, idx, task_path, channel, type, data, ref_ns, ref_channel, ref_version, ref_key FROM {writes}
    WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s AND checkpoint_id = (SELECT checkpoint_id FROM cp)
),"""
# A stored ``versions`` that is not an object of integers selects no blob for
# the pairs it spoils, instead of failing the statement: load_meta then names
# the checkpoint as corrupt (DATA_LOSS), where an SQL error would read as the
# database being unavailable.
_ITS_VERSIONS = """(
    SELECT %(ns)s::text, v.key, CASE WHEN v.value ~ '^-?[0-9]{{1,18}}$' THEN v.value::bigint END
    FROM cp, json_each_text(CASE json_typeof(cp.versions) WHEN 'object' THEN cp.versions ELSE '{{}}' END) AS v
  UNION ALL
    SELECT ref_ns, ref_channel, ref_version FROM w WHERE ref_version IS NOT NULL
) AS want(ns, channel, version)"""
# The row: the checkpoint's columns, then its writes' (task_id, channel, type,
# data, ref_ns, ref_channel, ref_version, ref_key) and its blob rows' (as
# _CHAIN_ROWS has them) as arrays, by position.
_GOT = """, blob_rows AS (
""" + _CHAIN_ROWS + """)
SELECT cp.checkpoint_id, cp.parent_checkpoint_id, cp.ts, cp.type, cp.checkpoint, cp.metadata, cp.versions, w.*, b.*
FROM cp
CROSS JOIN (
    SELECT array_agg(task_id ORDER BY task_path, task_id, idx), array_agg(channel ORDER BY task_path, task_id, idx),
           array_agg(type ORDER BY task_path, task_id, idx), array_agg(data ORDER BY task_path, task_id, idx),
           array_agg(ref_ns ORDER BY task_path, task_id, idx), array_agg(ref_channel ORDER BY task_path, task_id, idx),
           array_agg(ref_version ORDER BY task_path, task_id, idx), array_agg(ref_key ORDER BY task_path, task_id, idx)
    FROM w
) AS w
CROSS JOIN (  -- one aggregate node: the arrays are in the same order
    SELECT array_agg(checkpoint_ns), array_agg(channel), array_agg(version), array_agg(type), array_agg(data),
           array_agg(base_version), array_agg(seq), array_agg(ref_ns), array_agg(ref_channel),
           array_agg(ref_version), array_agg(ref_key)
    FROM blob_rows
) AS b
"""
SELECT_TUPLE = _THE_CHECKPOINT + _NAMED + _ITS_WRITES + _chain_cte(_ITS_VERSIONS) + _GOT
SELECT_LATEST_TUPLE = _THE_CHECKPOINT + _LATEST + _ITS_WRITES + _chain_cte(_ITS_VERSIONS) + _GOT

# The blob rows for a page of an alist: the (ns, channel, version) keys of
# several checkpoints of one thread, and the lists their pending writes
# extend. ``known``: rows the caller already decoded (one alist decodes each
# row once): the walk stops there.
# ``wanted`` and ``known`` are JSON texts (arrays of [ns, channel, version]),
# ``checkpoints`` one of [ns, checkpoint_id]: a listing's stop set grows with
# every page, and one text goes to the server at C speed where arrays go
# element by element. Their keys were read from the database: valid text.
SELECT_CHAINS = """WITH RECURSIVE known(ns, channel, version) AS MATERIALIZED (
    SELECT k ->> 0, k ->> 1, (k ->> 2)::bigint FROM json_array_elements(%(known)s::json) AS k
),""" + _chain(
    """(
    SELECT k ->> 0, k ->> 1, (k ->> 2)::bigint FROM json_array_elements(%(wanted)s::json) AS k
  UNION ALL
    SELECT w.ref_ns, w.ref_channel, w.ref_version
    FROM (SELECT k ->> 0, k ->> 1 FROM json_array_elements(%(checkpoints)s::json) AS k) AS c(ns, checkpoint_id)
    CROSS JOIN LATERAL (
        SELECT ref_ns, ref_channel, ref_version FROM {writes}
        WHERE thread_id = %(thread_id)s AND checkpoint_ns = c.ns AND checkpoint_id = c.checkpoint_id
          AND ref_version IS NOT NULL
        OFFSET 0
    ) AS w
) AS want(ns, channel, version)""",
    """
    WHERE NOT EXISTS (
        SELECT 1 FROM known AS k
        WHERE k.ns = link.next_ns AND k.channel = link.next_channel AND k.version = link.next_version
    )""",
)

# Pending writes of several checkpoints (a page of an alist), in one query;
# LATERAL ... OFFSET 0 keeps it to index lookups, as above.
# Which listed checkpoints still exist when a page of the listing is read:
# one pruned since the listing began is gone, and is skipped.
EXISTING_OF = """
SELECT k.thread_id, k.ns, k.checkpoint_id
FROM unnest(%(thread_ids)s::text[], %(nss)s::text[], %(checkpoint_ids)s::text[]) AS k(thread_id, ns, checkpoint_id)
WHERE EXISTS (
    SELECT 1 FROM {checkpoints} AS c
    WHERE c.thread_id = k.thread_id AND c.checkpoint_ns = k.ns AND c.checkpoint_id = k.checkpoint_id
)
"""
SELECT_WRITES_OF = """
SELECT k.thread_id, k.ns, k.checkpoint_id, w.task_id, w.channel, w.type, w.data,
       w.ref_ns, w.ref_channel, w.ref_version, w.ref_key
FROM unnest(%(thread_ids)s::text[], %(nss)s::text[], %(checkpoint_ids)s::text[]) AS k(thread_id, ns, checkpoint_id)
CROSS JOIN LATERAL (
    SELECT task_id, idx, task_path, channel, type, data, ref_ns, ref_channel, ref_version, ref_key FROM {writes}
    WHERE thread_id = k.thread_id AND checkpoint_ns = k.ns AND checkpoint_id = k.checkpoint_id
    OFFSET 0
) AS w
ORDER BY k.thread_id, k.ns, k.checkpoint_id, w.task_path, w.task_id, w.idx
"""

# -- list: LIST_CHECKPOINTS [WHERE clause AND clause ...] LIST_ORDER [LIST_LIMIT] -----
LIST_CHECKPOINTS = """
SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, ts, type, checkpoint, """ + _METADATA + """ AS metadata, versions
FROM {checkpoints}
"""
WHERE_THREAD = "thread_id = %s"
WHERE_NS = "checkpoint_ns = %s"
WHERE_ID = "checkpoint_id = %s"
WHERE_BEFORE = "checkpoint_id < %s"
# Parameters: key (text), value (JSON text). jsonb equality is exact: a
# string never equals a number, [1] never equals [1, 2] (where containment,
# @>, would match), a missing key is NULL and matches nothing; but a None
# (null) wanted matches a missing key as a stored null, as LangGraph's filters.
META_EQUALS = f"({_METADATA}) -> %s::text = %s::jsonb"
META_IS_NULL = f"coalesce(({_METADATA}) -> %s::text, 'null'::jsonb) = 'null'::jsonb"
LIST_ORDER = "\nORDER BY checkpoint_id DESC, thread_id DESC, checkpoint_ns DESC"
LIST_LIMIT = "\nLIMIT %s"

# -- delete and prune -----------------------------------------------------------------
DELETE_THREAD = """
WITH gone_writes AS (DELETE FROM {writes} WHERE thread_id = %(thread_id)s),
     gone_events AS (DELETE FROM {run_events} WHERE thread_id = %(thread_id)s),
     gone_runs AS (DELETE FROM {runs} WHERE thread_id = %(thread_id)s),
     gone_record AS (DELETE FROM {threads} WHERE thread_id = %(thread_id)s),
     gone_blobs AS (DELETE FROM {blobs} WHERE thread_id = %(thread_id)s)
DELETE FROM {checkpoints} WHERE thread_id = %(thread_id)s
"""
# Prune reads the checkpoints, then the blob rows, and deletes what no kept
# checkpoint reads: both reads must see one snapshot, or a version committed
# between them would show its new rows but not itself, and lose them. A
# listing's page is read from one snapshot too (see EXISTING_OF).
SNAPSHOT = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"
SELECT_CHECKPOINT_VERSIONS = """
SELECT checkpoint_ns, checkpoint_id, ts, versions FROM {checkpoints} WHERE thread_id = %(thread_id)s
"""
SELECT_BLOB_BASES = """
SELECT checkpoint_ns, channel, version, base_version, ref_ns, ref_channel, ref_version
FROM {blobs} WHERE thread_id = %(thread_id)s
"""
# The rows pending writes extend: a kept checkpoint's writes keep them.
SELECT_WRITE_REFS = """
SELECT checkpoint_ns, checkpoint_id, ref_ns, ref_channel, ref_version
FROM {writes} WHERE thread_id = %(thread_id)s AND ref_version IS NOT NULL
"""
# Checkpoints (with their writes) and blobs, by key arrays, in one statement.
# The blobs' foreign key checks, at the statement's end, that no remaining
# delta lost its base.
PRUNE = """
WITH gone AS (
    SELECT * FROM unnest(%(nss)s::text[], %(checkpoint_ids)s::text[]) AS g(ns, checkpoint_id)
), gone_writes AS (
    DELETE FROM {writes} AS w USING gone
    WHERE w.thread_id = %(thread_id)s AND w.checkpoint_ns = gone.ns AND w.checkpoint_id = gone.checkpoint_id
), gone_blobs AS (
    DELETE FROM {blobs} AS b
    USING unnest(%(blob_nss)s::text[], %(blob_channels)s::text[], %(blob_versions)s::bigint[]) AS d(ns, channel, version)
    WHERE b.thread_id = %(thread_id)s AND b.checkpoint_ns = d.ns AND b.channel = d.channel AND b.version = d.version
)
DELETE FROM {checkpoints} AS c USING gone
WHERE c.thread_id = %(thread_id)s AND c.checkpoint_ns = gone.ns AND c.checkpoint_id = gone.checkpoint_id
"""

# -- alist_threads: each thread's newest root checkpoint, newest first --------------------
# The prefix is a range of the primary key (thread ids compare bytewise,
# COLLATE "C") checked exactly with starts_with: % and _ are just characters.
LIST_THREADS = """
SELECT thread_id, checkpoint_id, ts FROM (
    SELECT DISTINCT ON (thread_id) thread_id, checkpoint_id, ts
    FROM {checkpoints}
    WHERE checkpoint_ns = '' AND thread_id >= %(prefix)s AND starts_with(thread_id, %(prefix)s)
    ORDER BY thread_id, checkpoint_id DESC
) AS newest
ORDER BY checkpoint_id DESC, thread_id
LIMIT %(limit)s
"""

# A fenced batch (see _PUT): the fence is the statement's first part, every
# insert takes rows only if it matched, and the statement returns its row
# (channel NULL, the epoch) beside the inserted blobs: none means fenced off,
# and nothing was written. Same row locks as a fence in a transaction of its
# own: held until the statement commits.
def _fenced(fence: str, *, ending: bool = False) -> str:
    return _PUT.format(
        fence=f"\nfence AS ({fence}),",
        fenced="\n    WHERE EXISTS (SELECT FROM fence)",
        fenced_and="\n    AND EXISTS (SELECT FROM fence)",
        fence_row="\nUNION ALL\nSELECT NULL, epoch FROM fence" + ("\n/*end row*/" if ending else ""),
        ending="/*end*/" if ending else "",
    )


PUT = _PUT.format(fence="", fenced="", fenced_and="", fence_row="", ending="")
# A task's stored regular writes, for (namespace, checkpoint, task) keys given as arrays (see _PUT).
TASK_WRITES = """
SELECT w.checkpoint_ns, w.checkpoint_id, w.task_id, w.idx, w.type, w.data
FROM {writes} AS w JOIN unnest(%(ns)s::text[], %(ids)s::text[], %(tasks)s::text[]) AS k(ns, id, task)
  ON (w.thread_id, w.checkpoint_ns, w.checkpoint_id, w.task_id) = (%(thread_id)s, k.ns, k.id, k.task)
WHERE w.idx >= 0"""
PUT_FENCED = _fenced(FENCE_WRITES)  # pending writes, puts in other namespaces: the lease holds
PUT_FENCED_HEAD = _fenced(FENCE_PUT)  # a root-namespace chain: it continues the lease's head, and moves it
# A run's last versions with its end (see _prepared.py): PUT_FENCED_HEAD, the end's parts spliced in where
# /*end*/ stands (data-modifying CTEs written only if the fence matched) and its row where /*end row*/
# stands; with FENCE_PUT_RELEASING when the end lets go of the lease.
PUT_ENDING = _fenced(FENCE_PUT, ending=True)
PUT_ENDING_RELEASING = _fenced(FENCE_PUT_RELEASING, ending=True)

# -- messages between the processes sharing these tables (LISTEN/NOTIFY) ---------------
# One channel for every schema; a message names its schema, and a listener
# keeps only its own. NOTIFY is delivered when the sending transaction
# commits, to every session listening then (a message is lost when nobody is).
CHANNEL = "graphwire"
# To the process holding the thread's live lease, if any: its owner comes back.
SIGNAL_HOLDER = """
SELECT owner, pg_notify(%(channel)s, json_build_object(
    'schema', %(schema)s::text, 'to', owner, 'thread_id', thread_id, 'body', %(body)s::json)::text)
FROM {leases} AS l WHERE thread_id = %(thread_id)s AND expires_at > clock_timestamp() AND NOT """ + _HOLDER_GONE + """
"""
SEND = "SELECT pg_notify(%(channel)s, %(payload)s)"

# -- introspection (tests, tooling) ---------------------------------------------------
COUNT_BLOBS = "SELECT count(*) FROM {blobs} WHERE thread_id = %s"


@dataclass(frozen=True, slots=True)
class Queries:
    """The statements above, with one schema's table names filled in."""

    PUT: str
    PUT_FENCED: str
    PUT_FENCED_HEAD: str
    PUT_ENDING: str
    PUT_ENDING_RELEASING: str
    SELECT_TUPLE: str
    SELECT_LATEST_TUPLE: str
    SELECT_CHAINS: str
    SELECT_WRITES_OF: str
    LIST_CHECKPOINTS: str
    DELETE_THREAD: str
    SNAPSHOT: str
    EXISTING_OF: str
    SELECT_CHECKPOINT_VERSIONS: str
    SELECT_BLOB_BASES: str
    SELECT_WRITE_REFS: str
    TASK_WRITES: str
    PRUNE: str
    LIST_THREADS: str
    ACQUIRE_LEASE: str
    RENEW_LEASE: str
    RELEASE_LEASE: str
    FENCE_PUT: str
    FENCE_WRITES: str
    FENCE_DELETE: str
    LEASE_HOLDER: str
    SELECT_LEASE: str
    SIGNAL_HOLDER: str
    SEND: str
    COUNT_BLOBS: str
    tables: dict[str, str]  # name -> the qualified, quoted name


def render(schema: str | None) -> Queries:
    """The statements for tables in ``schema`` (None: unqualified, found through ``search_path``)."""
    names = ("checkpoints", "blobs", "writes", "leases", "runs", "run_events", "threads", "assistants", "assistant_versions", "crons", "webhooks", "delayed_runs")
    idents = {n: sql.Identifier(schema, n) if schema is not None else sql.Identifier(n) for n in names}
    tables = {n: i.as_string(None) for n, i in idents.items()}
    out = {}
    for f in fields(Queries):
        if f.name == "tables":
            continue
        text = compact(globals()[f.name])
        out[f.name] = sql.SQL(text).format(**idents).as_string(None) if "{" in text else text  # type: ignore[arg-type]
    return Queries(**out, tables=tables)
