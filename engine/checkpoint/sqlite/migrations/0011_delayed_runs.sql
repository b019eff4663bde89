-- 0011: delayed runs (issue 34's after_seconds; see engine/checkpoint/_delayed.py).
--
-- delayed_runs: a row per run asked to start later, removed once it started
--   (its run record takes over). thread_id NULL: a stateless run's. body: the
--   run's body, a JSON object as text; times ISO-8601 in UTC (they sort as
--   text). status: pending, cancelled or error (message says why).
-- delayed_runs_due: a starter's claim of the pending rows due, oldest first.
-- delayed_runs_thread: a thread's rows, for its run listing.

CREATE TABLE delayed_runs (
    run_id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    thread_id TEXT,
    body TEXT NOT NULL,
    status TEXT NOT NULL,
    message TEXT NOT NULL,
    not_before TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX delayed_runs_due ON delayed_runs (status, not_before);
CREATE INDEX delayed_runs_thread ON delayed_runs (tenant, thread_id);
