-- 0008: thread records (issue 33; see engine/checkpoint/_threads.py).
--
-- threads: one row per thread a host serves, keyed by the checkpointer's
--   thread id, so the thread's delete takes its row with it. tenant: '' for
--   a thread of no tenant. metadata: a JSON object. status: idle, busy,
--   interrupted or error; interrupts: an interrupted thread's pending
--   interrupts, as the host encodes them. expires_at: updated_at +
--   ttl_seconds (NULL: never).
-- threads_created, threads_updated: a search's order within a tenant, so a
--   page of `limit` threads (from the start or after a given one) reads
--   `limit` rows when the filter keeps them (keyset paging, no OFFSET).
-- threads_metadata: a metadata filter (containment, @>) without a scan.
-- threads_expiry: the sweeper's read of the expired threads.
--
-- Threads written before this migration get their record here (backfill):
-- every thread id of the server's form ([tenant/]graph:thread) that has a
-- version, created at its first version and updated at its newest, idle.

CREATE TABLE threads (
    thread_id text COLLATE "C" PRIMARY KEY,
    graph text NOT NULL,
    caller_thread text COLLATE "C" NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    tenant text COLLATE "C" NOT NULL DEFAULT '',
    metadata jsonb NOT NULL DEFAULT '{}',
    status text NOT NULL DEFAULT 'idle',
    interrupts bytea NOT NULL DEFAULT '',
    ttl_seconds integer,
    ttl_strategy text,
    expires_at timestamptz
);
CREATE INDEX threads_created ON threads (tenant, created_at, thread_id);
CREATE INDEX threads_updated ON threads (tenant, updated_at, thread_id);
CREATE INDEX threads_metadata ON threads USING gin (metadata jsonb_path_ops);
CREATE INDEX threads_expiry ON threads (expires_at) WHERE expires_at IS NOT NULL;

INSERT INTO threads (thread_id, graph, caller_thread, created_at, updated_at, tenant)
SELECT thread_id, split_part(rest, ':', 1), substr(rest, position(':' IN rest) + 1), first_ts::timestamptz, last_ts::timestamptz, tenant
FROM (
    SELECT thread_id, first_ts, last_ts,
           CASE WHEN position('/' IN thread_id) BETWEEN 2 AND position(':' IN thread_id) - 1
                THEN split_part(thread_id, '/', 1) ELSE '' END AS tenant,
           CASE WHEN position('/' IN thread_id) BETWEEN 2 AND position(':' IN thread_id) - 1
                THEN substr(thread_id, position('/' IN thread_id) + 1) ELSE thread_id END AS rest
    FROM (SELECT thread_id, min(ts) AS first_ts, max(ts) AS last_ts FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id) AS t
) AS k
WHERE position(':' IN rest) > 1 AND length(rest) > position(':' IN rest);
