-- 0007: thread records (issue 33; see engine/checkpoint/_threads.py).
--
-- threads: one row per thread a host serves, keyed by the checkpointer's
--   thread id, so the thread's delete takes its row with it. tenant: '' for
--   a thread of no tenant. metadata: a JSON object (text). status: idle,
--   busy, interrupted or error; interrupts: an interrupted thread's pending
--   interrupts, as the host encodes them. Times are ISO-8601 text in UTC, so
--   they sort as text. expires_at: updated_at + ttl_seconds (NULL: never).
-- threads_created, threads_updated: a search's order within a tenant, so a
--   page of `limit` threads (from the start or after a given one) reads
--   `limit` rows when the filter keeps them (keyset paging, no OFFSET).
-- threads_expiry: the sweeper's read of the expired threads.
--
-- Threads written before this migration get their record here (backfill):
-- every thread id of the server's form ([tenant/]graph:thread) that has a
-- version, created at its first version and updated at its newest, idle.

CREATE TABLE threads (
    thread_id TEXT PRIMARY KEY,
    graph TEXT NOT NULL,
    caller_thread TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    tenant TEXT NOT NULL DEFAULT '',
    metadata TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL DEFAULT 'idle',
    interrupts BLOB NOT NULL DEFAULT X'',
    ttl_seconds INTEGER,
    ttl_strategy TEXT,
    expires_at TEXT
);
CREATE INDEX threads_created ON threads (tenant, created_at, thread_id);
CREATE INDEX threads_updated ON threads (tenant, updated_at, thread_id);
CREATE INDEX threads_expiry ON threads (expires_at) WHERE expires_at IS NOT NULL;

INSERT INTO threads (thread_id, graph, caller_thread, created_at, updated_at, tenant)
SELECT thread_id,
       substr(rest, 1, instr(rest, ':') - 1),
       substr(rest, instr(rest, ':') + 1),
       first_ts, last_ts, tenant
FROM (
    SELECT thread_id, first_ts, last_ts,
           CASE WHEN instr(thread_id, '/') BETWEEN 2 AND instr(thread_id, ':') - 1
                THEN substr(thread_id, 1, instr(thread_id, '/') - 1) ELSE '' END AS tenant,
           CASE WHEN instr(thread_id, '/') BETWEEN 2 AND instr(thread_id, ':') - 1
                THEN substr(thread_id, instr(thread_id, '/') + 1) ELSE thread_id END AS rest
    FROM (SELECT thread_id, min(ts) AS first_ts, max(ts) AS last_ts FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id)
)
WHERE instr(rest, ':') > 1 AND length(rest) > instr(rest, ':');
